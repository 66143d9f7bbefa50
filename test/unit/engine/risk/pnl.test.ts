import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { applyFill, totalPnl, unrealised, ZERO_PNL, type PnlFill } from '../../../../src/engine/risk/pnl.ts';

const d = (s: string | number) => new Decimal(s);
const fill = (side: 'buy' | 'sell', q: string, p: string, fee = '0'): PnlFill => ({
  side,
  quantity: d(q),
  price: d(p),
  fee: d(fee),
});

describe('average-cost PnL', () => {
  it('averages the cost of buys and realises against it on sells', () => {
    let s = applyFill(ZERO_PNL, fill('buy', '2', '100', '0.2'));
    s = applyFill(s, fill('buy', '2', '110', '0.22'));
    expect(s.position.toFixed()).toBe('4');
    expect(s.averageCost.toFixed()).toBe('105');
    s = applyFill(s, fill('sell', '1', '120', '0.12'));
    expect(s.realised.toFixed()).toBe('15');
    expect(s.position.toFixed()).toBe('3');
    expect(s.averageCost.toFixed()).toBe('105');
    expect(s.fees.toFixed()).toBe('0.54');
    expect(unrealised(s, d('100')).toFixed()).toBe('-15');
    expect(totalPnl(s, d('100')).toFixed()).toBe('-0.54');
  });
  it('a sell larger than the position flips it at the fill price', () => {
    let s = applyFill(ZERO_PNL, fill('buy', '1', '100'));
    s = applyFill(s, fill('sell', '3', '90'));
    expect(s.realised.toFixed()).toBe('-10');
    expect(s.position.toFixed()).toBe('-2');
    expect(s.averageCost.toFixed()).toBe('90');
  });
  it('a round trip realises exactly the price difference times the quantity, less fees', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 100_000 }),
        (q, buy, sell) => {
          const s = applyFill(
            applyFill(ZERO_PNL, fill('buy', String(q), String(buy), '1')),
            fill('sell', String(q), String(sell), '1'),
          );
          expect(s.position.isZero()).toBe(true);
          expect(
            totalPnl(s, null).eq(
              d(q)
                .mul(sell - buy)
                .sub(2),
            ),
          ).toBe(true);
        },
      ),
    );
  });
});
