/**
 * The book never pays out more than it holds. Values are rounded in the participants' favour only while the
 * commissions can pay for it; a pre-funded resting buy's lock can release one unit less than the fill owes
 * (its lock was rounded on the whole quantity), and that unit is counted against the commissions too, so the
 * seller is then credited the floor value. Pair: value = priceRaw * quantityRaw / 100 native units, maker 1 bp,
 * taker 0, every other control off, so a fill of 1 at 0.1001 is worth 10.01 units.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pairWith } from '../../../support/pairs.ts';
import { BUY, Harness } from '../../../support/sandbox/evm/harness.ts';

let h: Harness;
beforeAll(async () => {
  const pair = pairWith('evm-pair', {
    minimumOrderValue: '0',
    minimumSizeIncrement: '0.0001',
    priceCollarFactor: 0,
    staticThreshold: 0,
    dynamicThreshold: 0,
    staticReferencePrice: '0.1001',
    makerCommission: 1,
    takerCommission: 0,
    marketMakerCommission: 0,
  });
  h = await Harness.start(pair, { tick: { fixed: '0.0001' } });
});
afterAll(async () => h?.stop());

describe('rounding on chain A', () => {
  it("a lock one unit short of a fill is not made up from other orders' locks: the seller gets the floor value", async () => {
    // Bob's lock for 2 at 0.1001: floor(20.02) = 20 + commission ceil(20 * 1 / 10000) = 1 -> 21.
    expect(await h.deltasOf(() => h.place('bob', 'buy', 2n, 1_001n))).toEqual({
      bob: { quote: -21n },
      orderBook: { quote: 21n },
    });
    // A fill of 1 releases 21 - lockFor(1) = 21 - 11 = 10 but owes 10 + maker 1: one unit short.
    const deltas = await h.deltasOf(() => h.place('alice', 'sell', 1n, 1_001n));
    expect(deltas).toEqual({
      alice: { base: -10_000n, quote: 10n },
      bob: { base: 10_000n },
      orderBook: { quote: -10n },
    });
    // What the book still holds is exactly the lock of Bob's remaining 1: 10 + 1.
    expect(await h.side(BUY)).toEqual([[1n, 'bob', 1n, 1_001n]]);
    expect(await h.quote.getFunction('balanceOf').staticCall(h.pair.orderBook)).toBe(11n);
  });
});
