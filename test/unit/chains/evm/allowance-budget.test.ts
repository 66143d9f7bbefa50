import { MaxUint256 } from 'ethers';
import { describe, expect, it } from 'vitest';
import { AllowanceBudget } from '../../../../src/chains/evm/allowance-budget.ts';
import type { PairBinding } from '../../../../src/chains/types.ts';

const pair = { pairId: 'p', orderBook: '0xBook' } as PairBinding;
const budget = (o: Partial<ConstructorParameters<typeof AllowanceBudget>[0]> = {}) =>
  new AllowanceBudget({ budgets: {}, multiplier: 4n, unlimited: false, ...o });

describe('chain A allowance budget', () => {
  it('tops up to the need plus a budget of three more needs by default, a configured budget, or unlimited when asked', () => {
    const b = budget();
    expect(b.topUp(pair, 'quote', 100n)).toBe(400n);
    expect(budget({ budgets: { p: { quote: 5n } } }).topUp(pair, 'quote', 100n)).toBe(105n);
    expect(budget({ unlimited: true }).topUp(pair, 'base', 1n)).toBe(MaxUint256);
  });

  it('projects placements along the nonce order: an approve sets, a placement takes', () => {
    const b = budget();
    b.load(pair, 'quote', 50n);
    expect(b.topUp(pair, 'quote', 40n)).toBeNull();
    b.consume(pair, 'quote', 40n);
    expect(b.topUp(pair, 'quote', 40n)).toBe(160n);
    b.approved(pair, 'quote', 160n);
    b.consume(pair, 'quote', 40n);
    expect(b.projected(pair, 'quote')).toBe(120n);
    expect(b.projected(pair, 'base')).toBeNull();
  });

  it('gives back what a placement that never applied would have taken, unless an approve reset the count since', () => {
    const b = budget();
    b.load(pair, 'quote', 100n);
    const first = b.consume(pair, 'quote', 30n);
    const second = b.consume(pair, 'quote', 30n);
    b.giveBack(second);
    expect(b.projected(pair, 'quote')).toBe(70n);
    b.approved(pair, 'quote', 500n);
    b.giveBack(first);
    expect(b.projected(pair, 'quote')).toBe(500n);
    b.invalidate(pair, 'quote');
    expect(b.projected(pair, 'quote')).toBeNull();
  });
});
