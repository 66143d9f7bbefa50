import { describe, expect, it } from 'vitest';
import { clearsFeeFloor, minimumHalfSpread, type FeeFloorParams } from '../../../src/strategy/fee-floor.ts';
import { d, evmRules } from '../../support/strategy/builders.ts';

const commissions = evmRules().commissions;
const params = (over: Partial<FeeFloorParams> = {}): FeeFloorParams => ({
  commissions,
  marketMaker: false,
  refreshCost: d('0.3'),
  minSpreadBps: 10,
  ...over,
});
/** h(Q) worked out term by term, as the formula reads. */
const formula = (centre: string, quantity: string, p: FeeFloorParams) => {
  const maker = p.marketMaker ? commissions.marketMakerBps : commissions.makerBps;
  return d(centre)
    .mul(maker)
    .div(10_000)
    .add(p.refreshCost.div(d(2).mul(quantity)))
    .add(d(centre).mul(p.minSpreadBps).div(20_000));
};

describe('the fee floor', () => {
  it('is the formula for each centre, size and set of parameters, asked in any order', () => {
    const a = params();
    const b = params({ minSpreadBps: 40, marketMaker: true });
    const centre = d('100.37');
    const asked: Array<[string, string, FeeFloorParams]> = [
      ['100.37', '3', a],
      ['100.37', '7', a],
      ['100.37', '3', b],
      ['99.1', '3', b],
      ['100.37', '3', a],
    ];
    for (const [c, q, p] of asked) {
      // The same centre object for every question about 100.37, as a round asks.
      const at = c === '100.37' ? centre : d(c);
      expect({ c, q, h: minimumHalfSpread(at, d(q), p).toFixed() }).toEqual({ c, q, h: formula(c, q, p).toFixed() });
    }
    const h = formula('100.37', '3', b);
    expect(clearsFeeFloor('buy', centre.sub(h), d('3'), centre, b)).toBe(true);
    expect(clearsFeeFloor('buy', centre.sub(h).add('0.0001'), d('3'), centre, b)).toBe(false);
  });
});
