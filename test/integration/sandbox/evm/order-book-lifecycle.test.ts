/**
 * An order's life on the chain A order book after placement: allowance, cancellation by the owner and by
 * others, end-of-day clearing, admin cancels and the operator's exclusive functions.
 * Pair: test/fixtures/pairs/evm-pair.json (value in native quote = priceRaw * quantityRaw / 100).
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { approvalFor } from '../../../../src/core/money.ts';
import { contractAt } from '../../../../src/sandbox/evm/chain.ts';
import { pairWith } from '../../../support/pairs.ts';
import { BASE_ONE, BUY, HALF, Harness, ONE, px, SELL, useHarness } from '../../../support/sandbox/evm/harness.ts';

let h: Harness;
useHarness(pairWith('evm-pair'), (started) => (h = started));

const commissions = { makerBps: 10, takerBps: 20, marketMakerBps: 5 };

async function allowance(token: 'base' | 'quote', owner: string): Promise<bigint> {
  const c = token === 'base' ? h.base : h.quote;
  return (await c.getFunction('allowance').staticCall(h.address(owner), h.pair.orderBook)) as bigint;
}

async function approve(token: 'base' | 'quote', owner: string, amount: bigint): Promise<void> {
  await (await h.tokenAs(token, owner).getFunction('approve').send(h.pair.orderBook, amount)).wait();
}

describe('allowance on chain A', () => {
  it('placement consumes the allowance by transferFrom; cancelling returns the tokens but not the allowance', async () => {
    // The bot approves notional + commission at max(maker, taker): 100,000,000 + 200,000.
    const need = approvalFor('buy', new Decimal(1), new Decimal(100), h.pair.params.scales, commissions, false);
    expect(need.amount).toBe(100_200_000n);
    await approve('quote', 'dora', need.amount);
    const placed = await h.deltasOf(() => h.place('dora', 'buy', ONE, px('100')));
    expect(placed).toEqual({ dora: { quote: -100_100_000n }, orderBook: { quote: 100_100_000n } });
    expect(await allowance('quote', 'dora')).toBe(100_000n);

    const cancelled = await h.deltasOf(() => h.cancel('dora', 'buy', 1n));
    expect(cancelled).toEqual({ dora: { quote: 100_100_000n }, orderBook: { quote: -100_100_000n } });
    expect(await allowance('quote', 'dora')).toBe(100_000n);
    expect((await h.failure(h.place('dora', 'buy', ONE, px('100')))).code).toBe('E_VENUE_INSUFFICIENT_ALLOWANCE');

    await approve('base', 'dora', BASE_ONE);
    await h.place('dora', 'sell', ONE, px('101'));
    await h.cancel('dora', 'sell', 2n);
    expect(await allowance('base', 'dora')).toBe(0n);
    expect((await h.failure(h.place('dora', 'sell', ONE, px('101')))).code).toBe('E_VENUE_INSUFFICIENT_ALLOWANCE');
  });

  it('the approval the bot computes covers an order that matches at once at the taker rate, to the unit', async () => {
    await h.place('alice', 'sell', ONE, px('100'));
    await approve(
      'quote',
      'dora',
      approvalFor('buy', new Decimal(1), new Decimal(100), h.pair.params.scales, commissions, false).amount,
    );
    expect(await h.deltasOf(() => h.place('dora', 'buy', ONE, px('100')))).toMatchObject({
      dora: { base: BASE_ONE, quote: -100_200_000n },
    });
    expect(await allowance('quote', 'dora')).toBe(0n);
  });
});

describe('cancellation on chain A', () => {
  it('the owner cancels in any phase; the CancelOrder event names the remaining quantity, the token and the receiver', async () => {
    await h.place('alice', 'sell', ONE, px('101'));
    await h.place('bob', 'buy', HALF, px('101'));
    await h.call('operator', 'setPhase', [2]);
    let cancelled!: Awaited<ReturnType<Harness['cancel']>>;
    const deltas = await h.deltasOf(async () => {
      cancelled = await h.cancel('alice', 'sell', 1n);
    });
    expect(deltas).toEqual({ alice: { base: BASE_ONE / 2n }, orderBook: { base: -BASE_ONE / 2n } });
    expect(cancelled.events).toEqual([
      {
        name: 'CancelOrder',
        args: {
          client: h.address('alice'),
          orderId: 1n,
          quantity: HALF,
          price: px('101'),
          cancellationType: 0n,
          token: h.pair.baseToken,
          toAddress: h.address('alice'),
        },
      },
    ]);
  });

  it('a buy returns its remaining lock at the rate it was placed with', async () => {
    await h.place('bob', 'buy', 3n * HALF, px('101'));
    await h.place('alice', 'sell', HALF, px('101'));
    // Remaining 1.0 at 101.00: 101,000,000 + maker 101,000.
    expect(await h.deltasOf(() => h.cancel('bob', 'buy', 1n))).toEqual({
      bob: { quote: 101_101_000n },
      orderBook: { quote: -101_101_000n },
    });
  });

  it('only the owner, with the cancel flag, cancels a resting order of that side', async () => {
    await h.place('alice', 'sell', ONE, px('101'));
    await h.place('nocancel', 'buy', ONE, px('99'));
    const codes = [
      (await h.failure(h.cancel('bob', 'sell', 1n))).code,
      (await h.failure(h.cancel('nocancel', 'buy', 2n))).code,
      (await h.failure(h.cancel('alice', 'buy', 1n))).code,
    ];
    expect(codes).toEqual([
      'E_VENUE_NOT_ALLOWED_TO_CANCEL',
      'E_VENUE_NOT_ALLOWED_TO_CANCEL',
      'E_VENUE_ORDER_NOT_FOUND',
    ]);
    expect((await h.side(SELL)).map((o) => o[0])).toEqual([1n]);
    expect((await h.side(BUY)).map((o) => o[0])).toEqual([2n]);
  });

  it('a filled, an already cancelled, a rejected and an unknown order are not found', async () => {
    await h.place('alice', 'sell', ONE, px('101'));
    await h.place('bob', 'buy', ONE, px('101'));
    await h.place('alice', 'sell', ONE, px('102'));
    await h.cancel('alice', 'sell', 3n);
    await h.place('alice', 'sell', ONE, px('103'), 5n);
    await h.place('alice', 'buy', ONE, px('103'), 5n); // self-trade: rejected, id 5
    const codes = [];
    for (const [name, side, id] of [
      ['alice', 'sell', 1n],
      ['bob', 'buy', 2n],
      ['alice', 'sell', 3n],
      ['alice', 'buy', 5n],
      ['alice', 'sell', 999n],
    ] as const) {
      codes.push((await h.failure(h.cancel(name, side, id))).code);
    }
    expect(codes).toEqual(Array(5).fill('E_VENUE_ORDER_NOT_FOUND'));
    expect(await h.read('getOrder', 1n)).toEqual([h.address('alice'), 2n, 0n, px('101'), 0n, 2n]);
    expect(await h.read('getOrder', 3n)).toEqual([h.address('alice'), 2n, ONE, px('102'), 0n, 3n]);
  });
});

describe('operator functions on chain A', () => {
  it('clearing cancels every resting order ByContract in order id order and returns every lock', async () => {
    await h.place('bob', 'buy', ONE, px('99'));
    await h.place('alice', 'sell', ONE, px('101'));
    await h.place('carol', 'buy', ONE, px('99.5'));
    let cleared!: Awaited<ReturnType<Harness['call']>>;
    const deltas = await h.deltasOf(async () => {
      cleared = await h.call('operator', 'clearOrders', []);
    });
    expect(cleared.events.map((e) => [e.name, e.args.orderId, e.args.cancellationType])).toEqual([
      ['CancelOrder', 1n, 2n],
      ['CancelOrder', 2n, 2n],
      ['CancelOrder', 3n, 2n],
    ]);
    // Locks: 99.00 -> 99,000,000 + 99,000; 99.50 -> 99,500,000 + 99,500.
    expect(deltas).toEqual({
      bob: { quote: 99_099_000n },
      alice: { base: BASE_ONE },
      carol: { quote: 99_599_500n },
      orderBook: { base: -BASE_ONE, quote: -(99_099_000n + 99_599_500n) },
    });
    expect([await h.read('countBuyOrders'), await h.read('countSellOrders'), await h.read('bestBidOffer')]).toEqual([
      0n,
      0n,
      0n,
    ]);
  });

  it('an admin cancel is ByAdmin; tokens an owner can no longer receive go to the fallback wallet', async () => {
    await h.place('alice', 'sell', ONE, px('101'));
    await h.place('bob', 'sell', ONE, px('102'));
    const admin = await h.call('operator', 'adminCancel', [1n]);
    expect(admin.events[0]?.args).toMatchObject({ orderId: 1n, cancellationType: 1n, toAddress: h.address('alice') });
    const base = contractAt('RestrictedToken', h.pair.baseToken, h.signer('operator'));
    await (await base.getFunction('setBeneficiary').send(h.address('bob'), false)).wait();
    expect((await h.failure(h.cancel('bob', 'sell', 2n))).code).toBe('E_VENUE_NOT_BENEFICIARY');
    let cleared!: Awaited<ReturnType<Harness['call']>>;
    const deltas = await h.deltasOf(async () => {
      cleared = await h.call('operator', 'clearOrders', []);
    });
    expect(cleared.events[0]?.args).toMatchObject({
      client: h.address('bob'),
      orderId: 2n,
      cancellationType: 2n,
      toAddress: h.address('operator'),
    });
    expect(deltas).toEqual({ operator: { base: BASE_ONE }, orderBook: { base: -BASE_ONE } });
  });

  it('participants cannot call operator functions of the book, the registry or the tokens', async () => {
    await h.place('alice', 'sell', ONE, px('101'));
    const codes = [];
    for (const [method, args] of [
      ['setPhase', [2]],
      ['adminCancel', [1n]],
      ['clearOrders', []],
      ['setStaticReferencePrice', [px('90')]],
    ] as const) {
      codes.push((await h.failure(h.call('alice', method, args))).code);
    }
    const registry = contractAt('ClientRegistry', h.venue.registry, h.signer('alice'));
    codes.push(
      (await h.failure(registry.getFunction('setClient').send(h.address('alice'), 9n, true, true, true, true, true)))
        .code,
    );
    codes.push(
      (await h.failure(h.tokenAs('base', 'alice').getFunction('setBeneficiary').send(h.address('nobene'), true))).code,
    );
    codes.push((await h.failure(h.tokenAs('quote', 'alice').getFunction('mint').send(h.address('alice'), 1n))).code);
    expect(codes).toEqual(Array(7).fill('E_VENUE_UNAUTHORIZED'));
    expect(await h.side(SELL)).toEqual([[1n, 'alice', ONE, px('101')]]);
    expect(await h.read('getOrderBookPhase')).toBe(1n);
  });
});
