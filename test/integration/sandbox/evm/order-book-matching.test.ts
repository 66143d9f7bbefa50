/**
 * Matching on the Solidity order book, proven with exact token balances before and after each transaction.
 * Pair (test/fixtures/pairs/evm-pair.json): internal scales 10^4, base native 10^8, quote native 10^6, so a
 * value in native quote units is priceRaw * quantityRaw / 100; maker 10 bp, taker 20 bp, market maker 5 bp;
 * last price starts at the static reference price 100.00 (raw 1,000,000); ticks 0.05 below 100, 0.1 above.
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { reimbursementFormula } from '../../../../src/core/money.ts';
import { pairWith } from '../../../support/pairs.ts';
import { BASE_ONE, BUY, HALF, Harness, ONE, px, SELL, useHarness } from '../../../support/sandbox/evm/harness.ts';

let h: Harness;
useHarness(pairWith('evm-pair', { maximumMatches: 2 }), (started) => (h = started));

describe('matching on chain A', () => {
  it('full match: the incoming buy takes the whole resting sell at the resting limit, nothing rests', async () => {
    const rest = await h.deltasOf(() => h.place('alice', 'sell', ONE, px('101')));
    expect(rest).toEqual({ alice: { base: -BASE_ONE }, orderBook: { base: BASE_ONE } });

    let placed!: Awaited<ReturnType<Harness['place']>>;
    const deltas = await h.deltasOf(async () => {
      placed = await h.place('bob', 'buy', ONE, px('102'));
    });
    // value 101.00 = 101,000,000; taker 20 bp = 202,000; maker 10 bp = 101,000.
    expect(deltas).toEqual({
      bob: { base: BASE_ONE, quote: -101_202_000n },
      alice: { quote: 100_899_000n },
      orderBook: { base: -BASE_ONE },
      commission: { quote: 303_000n },
    });
    expect(placed.events.map((e) => e.name)).toEqual(['OrderReceived', 'NewBuyInitiatedTrade']);
    expect(placed.events[1]?.args).toEqual({ client: h.address('bob'), quantity: ONE, price: px('101'), orderId: 2n });
    expect([await h.read('countBuyOrders'), await h.read('countSellOrders'), await h.read('getLastPrice')]).toEqual([
      0n,
      0n,
      px('101'),
    ]);
  });

  it('partial match: one execution, the remainder rests pre-funded at the maker rate', async () => {
    await h.place('alice', 'sell', HALF, px('101'));
    let placed!: Awaited<ReturnType<Harness['place']>>;
    const deltas = await h.deltasOf(async () => {
      placed = await h.place('bob', 'buy', 3n * HALF, px('101.5'));
    });
    // 0.5 at 101.00 = 50,500,000 + taker 101,000; rest 1.0 at 101.50 locks 101,500,000 + maker 101,500.
    expect(deltas).toEqual({
      bob: { base: BASE_ONE / 2n, quote: -(50_500_000n + 101_000n + 101_601_500n) },
      alice: { quote: 50_500_000n - 50_500n },
      orderBook: { base: -BASE_ONE / 2n, quote: 101_601_500n },
      commission: { quote: 101_000n + 50_500n },
    });
    expect(placed.events.map((e) => [e.name, e.args.quantity ?? null, e.args.price ?? null])).toEqual([
      ['OrderReceived', 3n * HALF, px('101.5')],
      ['NewBuyInitiatedTrade', HALF, px('101')],
      ['NewBuyOrder', ONE, px('101.5')],
    ]);
    expect(await h.side(BUY)).toEqual([[2n, 'bob', ONE, px('101.5')]]);
    expect(await h.side(SELL)).toEqual([]);
  });

  it('single-price execution: the last price clamped between the limits, which is neither limit', async () => {
    await h.place('alice', 'sell', ONE, px('99'));
    const deltas = await h.deltasOf(() => h.place('bob', 'buy', ONE, px('101')));
    // last price 100.00 lies inside [99.00, 101.00]: value 100,000,000.
    expect(deltas).toEqual({
      bob: { base: BASE_ONE, quote: -100_200_000n },
      alice: { quote: 99_900_000n },
      orderBook: { base: -BASE_ONE },
      commission: { quote: 300_000n },
    });
    expect(await h.read('getLastPrice')).toBe(px('100'));
  });

  it('several resting orders execute at one price, taken best price first, then oldest first', async () => {
    await h.place('alice', 'sell', HALF, px('100.2'));
    await h.place('carol', 'sell', HALF, px('100.1'));
    await h.place('alice', 'sell', HALF, px('100.1'));
    const deltas = await h.deltasOf(() => h.place('bob', 'buy', ONE, px('100.5')));
    // Collected: carol's (id 2), then alice's (id 3) at 100.1; one price clamp(100, 100.1, 100.5) = 100.1.
    // Each fill 0.5 x 100.1 = 50,050,000, maker 50,050; taker on 100,100,000 = 200,200.
    expect(deltas).toEqual({
      bob: { base: BASE_ONE, quote: -100_300_200n },
      carol: { quote: 49_999_950n },
      alice: { quote: 49_999_950n },
      orderBook: { base: -BASE_ONE },
      commission: { quote: 200_200n + 2n * 50_050n },
    });
    expect(await h.side(SELL)).toEqual([[1n, 'alice', HALF, px('100.2')]]);
  });

  it('market-maker wallets pay the market-maker rate as maker, as taker and on their resting lock', async () => {
    const asMaker = await h.deltasOf(async () => {
      await h.place('mia', 'sell', ONE, px('101'));
      await h.place('bob', 'buy', ONE, px('101'));
    });
    expect(asMaker.mia).toEqual({ base: -BASE_ONE, quote: 101_000_000n - 50_500n });
    expect(asMaker.commission).toEqual({ quote: 202_000n + 50_500n });

    const asTaker = await h.deltasOf(async () => {
      await h.place('alice', 'sell', ONE, px('101'));
      await h.place('mia', 'buy', ONE, px('101'));
    });
    expect(asTaker.mia).toEqual({ base: BASE_ONE, quote: -(101_000_000n + 50_500n) });
    expect(asTaker.alice).toEqual({ base: -BASE_ONE, quote: 101_000_000n - 101_000n });

    const lock = await h.deltasOf(() => h.place('mia', 'buy', ONE, px('100')));
    expect(lock).toEqual({ mia: { quote: -(100_000_000n + 50_000n) }, orderBook: { quote: 100_050_000n } });
  });

  it('a resting buy that executes below its limit is reimbursed (limit - price) * Q * (1 + maker)', async () => {
    await h.place('bob', 'buy', ONE, px('101'));
    const deltas = await h.deltasOf(() => h.place('alice', 'sell', ONE, px('99')));
    // Bob's lock 101,101,000 is released; he owes 100,000,000 + maker 100,000 at the price 100.00.
    const reimbursed = reimbursementFormula(
      new Decimal('101'),
      new Decimal('100'),
      new Decimal('1'),
      10,
      h.pair.params.scales,
    );
    expect(reimbursed.toFixed()).toBe('1001000');
    expect(deltas).toEqual({
      bob: { base: BASE_ONE, quote: 1_001_000n },
      alice: { base: -BASE_ONE, quote: 100_000_000n - 200_000n },
      orderBook: { quote: -101_101_000n },
      commission: { quote: 300_000n },
    });
  });

  it('maximumMatches: at most two resting orders are matched and the crossing remainder is rejected MaxMatches', async () => {
    await h.place('alice', 'sell', HALF, px('100'));
    await h.place('carol', 'sell', HALF, px('100.1'));
    await h.place('alice', 'sell', HALF, px('100.2'));
    let placed!: Awaited<ReturnType<Harness['place']>>;
    const deltas = await h.deltasOf(async () => {
      placed = await h.place('bob', 'buy', 2n * ONE, px('100.5'));
    });
    expect(placed.events.map((e) => e.name)).toEqual(['OrderReceived', 'NewBuyInitiatedTrade', 'OrderRejected']);
    expect(placed.events[2]?.args).toEqual({
      client: h.address('bob'),
      orderId: 4n,
      reason: 2n,
      quantityNotExecuted: ONE,
      side: 1n,
      price: px('100.5'),
    });
    // Execution at 100.1 for 1.0: the rejected remainder locks nothing.
    expect(deltas.bob).toEqual({ base: BASE_ONE, quote: -(100_100_000n + 200_200n) });
    expect(deltas.orderBook).toEqual({ base: -BASE_ONE });
    expect(await h.side(SELL)).toEqual([[3n, 'alice', HALF, px('100.2')]]);
    expect(await h.side(BUY)).toEqual([]);
  });

  it('self-trade: the same wallet and cross identifier is rejected; a different cross identifier matches', async () => {
    await h.place('alice', 'sell', ONE, px('101'), 7n);
    let rejected!: Awaited<ReturnType<Harness['place']>>;
    const none = await h.deltasOf(async () => {
      rejected = await h.place('alice', 'buy', ONE, px('101'), 7n);
    });
    expect(none).toEqual({});
    expect(rejected.events.map((e) => [e.name, e.args.reason ?? null])).toEqual([
      ['OrderReceived', null],
      ['OrderRejected', 1n],
    ]);
    expect(rejected.orderId).toBe(2n);

    const crossed = await h.deltasOf(() => h.place('alice', 'buy', ONE, px('101'), 8n));
    // Alice buys her own sell: she gets her base back and pays both commissions.
    expect(crossed).toEqual({
      alice: { base: BASE_ONE, quote: -(202_000n + 101_000n) },
      orderBook: { base: -BASE_ONE },
      commission: { quote: 303_000n },
    });
  });
});
