/**
 * Order options and book life through the SDK: each execution condition, market orders, GFD clearing, GTD
 * expiry, no-prefund cancellation `ByContract`, volatility halts, allowance expiry by ledger, and the
 * read methods (config, phase, counts, best offers). Events are read with getEvents filtered by the client topic.
 */
import { Address, Keypair, rpc, scValToNative, type xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { type OrderOptions } from '../../../../src/core/order-terms.ts';
import { deployPair, type BookDeployment } from '../../../../src/sandbox/wasm/deploy.ts';
import { approve, clearOrders, setPhase } from '../../../../src/sandbox/wasm/operator.ts';
import { build, orderArgs, PAIR, fileHarness, submit, wallet } from '../../../support/sandbox/wasm/harness.ts';

const h = fileHarness();
let books = 0;

function freshBook(prefunded = true): BookDeployment {
  return deployPair(h.emu, h.venue, { pair: { ...PAIR, id: `conditions-${books++}` }, prefunded });
}

interface Seen {
  readonly type: string;
  readonly orderId: bigint | undefined;
  readonly data: unknown[];
}

/** Places an order as a signed transaction and returns the book's events of that ledger for the client. */
async function place(
  d: BookDeployment,
  kp: Keypair,
  side: 'buy' | 'sell',
  quantity: bigint,
  price: bigint,
  options: Partial<OrderOptions> = {},
): Promise<Seen[]> {
  const args = orderArgs(kp.publicKey(), { ...options, quantity, price });
  const res = await submit(h, kp, d.book.address, side === 'buy' ? 'new_buy_order' : 'new_sell_order', args);
  expect(res.status).toBe('SUCCESS');
  return eventsOf(d, kp.publicKey(), h.emu.latest.seq);
}

async function eventsOf(d: BookDeployment, client: string, ledger: number): Promise<Seen[]> {
  const clientTopic = new Address(client).toScVal().toXDR('base64');
  const res = await h.server.getEvents({
    startLedger: ledger,
    filters: [{ type: 'contract', contractIds: [d.book.address], topics: [['*', clientTopic, '**']] }],
  });
  return res.events
    .filter((e) => e.ledger === ledger)
    .map((e) => {
      const native = e.topic.map((t) => scValToNative(t)) as [string, string, bigint?];
      return { type: native[0], orderId: native[2], data: scValToNative(e.value) as unknown[] };
    });
}

async function read(d: BookDeployment, fn: string, args: xdr.ScVal[] = []): Promise<unknown> {
  const sim = await h.server.simulateTransaction(await build(h, wallet(h, d), d.book.address, fn, args));
  if (!rpc.Api.isSimulationSuccess(sim) || sim.result === undefined) throw new Error(`read ${fn} failed`);
  return scValToNative(sim.result.retval);
}

const U = 1000n; // one base unit at internal scale 1000
const P = 123_400n; // 12.34 at internal scale 10000

describe('execution conditions', () => {
  it('standard GFD rests, then end-of-day clearing cancels it ByContract', async () => {
    const d = freshBook();
    const maker = wallet(h, d);
    const seen = await place(d, maker, 'sell', U, P);
    expect(seen.map((e) => e.type)).toEqual(['OrderReceived', 'NewSellOrder']);
    clearOrders(h.emu, h.venue, d);
    h.emu.closeLedger();
    const cancelled = await eventsOf(d, maker.publicKey(), h.emu.latest.seq);
    expect(cancelled.map((e) => [e.type, e.data[2]])).toEqual([['CancelOrder', 2]]);
    expect(await read(d, 'count_sell_orders')).toBe(0n);
  });

  it('IOC takes what crosses and the remainder is rejected PartialRejected (7)', async () => {
    const d = freshBook();
    await place(d, wallet(h, d), 'sell', U, P);
    const seen = await place(d, wallet(h, d), 'buy', 2n * U, P, { condition: 'ioc' });
    expect(seen.map((e) => e.type)).toEqual(['OrderReceived', 'NewBuyInitiatedTrade', 'OrderRejected']);
    expect(seen[2]?.data.slice(0, 2)).toEqual([7, U]);
  });

  it('FOK that cannot fill in full is rejected FullyRejected (8) and nothing trades', async () => {
    const d = freshBook();
    await place(d, wallet(h, d), 'sell', U, P);
    const seen = await place(d, wallet(h, d), 'buy', 2n * U, P, { condition: 'fok' });
    expect(seen.map((e) => e.type)).toEqual(['OrderReceived', 'OrderRejected']);
    expect(seen[1]?.data.slice(0, 2)).toEqual([8, 2n * U]);
    expect(await read(d, 'count_sell_orders')).toBe(1n);
  });

  it('BOC rests when it does not cross and is rejected (8) when it would', async () => {
    const d = freshBook();
    await place(d, wallet(h, d), 'sell', U, P);
    expect((await place(d, wallet(h, d), 'buy', U, P - 200n, { condition: 'boc' })).map((e) => e.type)).toEqual([
      'OrderReceived',
      'NewBuyOrder',
    ]);
    const crossing = await place(d, wallet(h, d), 'buy', U, P, { condition: 'boc' });
    expect(crossing.map((e) => [e.type, e.data[0]])).toEqual([
      ['OrderReceived', 1000n],
      ['OrderRejected', 8],
    ]);
  });

  it('a market order crosses every resting order, executes at one price and never rests', async () => {
    const d = freshBook();
    await place(d, wallet(h, d), 'sell', U, P);
    await place(d, wallet(h, d), 'sell', U, P + 200n);
    const seen = await place(d, wallet(h, d), 'buy', 3n * U, 0n, { type: 'market' });
    expect(seen.map((e) => e.type)).toEqual(['OrderReceived', 'NewBuyInitiatedTrade', 'OrderRejected']);
    expect(seen[1]?.data.slice(0, 2)).toEqual([2n * U, P + 200n]);
    expect(await read(d, 'count_buy_orders')).toBe(0n);
  });

  it('an IOC against an empty book succeeds as a transaction and yields OrderRejected', async () => {
    const d = freshBook();
    const seen = await place(d, wallet(h, d), 'buy', U, P, { condition: 'ioc' });
    expect(seen.map((e) => [e.type, e.data[0]])).toEqual([
      ['OrderReceived', 1000n],
      ['OrderRejected', 8],
    ]);
  });
});

describe('GTD expiry', () => {
  it('a GTD order survives clearing until its lifetime has passed, then is cancelled ByContract', async () => {
    const d = freshBook();
    const kp = wallet(h, d);
    await place(d, kp, 'buy', U, P, { validity: 'gtd', lifetimeDays: 1 });
    h.clock.advance(12 * 3600 * 1000);
    clearOrders(h.emu, h.venue, d);
    h.emu.closeLedger();
    expect(await read(d, 'count_buy_orders')).toBe(1n);
    h.clock.advance(13 * 3600 * 1000);
    clearOrders(h.emu, h.venue, d);
    h.emu.closeLedger();
    expect((await eventsOf(d, kp.publicKey(), h.emu.latest.seq)).map((e) => [e.type, e.data[2]])).toEqual([
      ['CancelOrder', 2],
    ]);
    expect(await read(d, 'count_buy_orders')).toBe(0n);
  });
});

describe('no-prefund books', () => {
  it('lock nothing at placement and cancel an unfunded resting order ByContract during matching', async () => {
    const d = freshBook(false);
    expect((await read(d, 'get_config')) as Record<string, unknown>).toMatchObject({ no_prefund_config: true });
    const maker = wallet(h, d);
    const before = d.base.balanceOf(maker.publicKey());
    await place(d, maker, 'sell', U, P);
    expect(d.base.balanceOf(maker.publicKey())).toBe(before);
    approve(h.emu, d, 'base', maker.publicKey(), d.book.address, 0n, h.emu.latest.seq + 10);
    const taker = wallet(h, d);
    const seen = await place(d, taker, 'buy', U, P);
    expect(seen.map((e) => e.type)).toEqual(['OrderReceived', 'NewBuyOrder']);
    const makerEvents = await eventsOf(d, maker.publicKey(), h.emu.latest.seq);
    expect(makerEvents.map((e) => [e.type, e.data[2]])).toEqual([['CancelOrder', 2]]);
  });
});

describe('volatility', () => {
  it('an execution price outside the static threshold rejects the order (reason 3) and halts the book', async () => {
    const d = freshBook();
    await place(d, wallet(h, d), 'sell', U, 149_000n);
    const seen = await place(d, wallet(h, d), 'buy', U, 149_000n);
    expect(seen.map((e) => [e.type, e.data[0]])).toEqual([
      ['OrderReceived', 1000n],
      ['OrderRejected', 3],
    ]);
    expect(await read(d, 'get_order_book_phase')).toBe('AutomaticHalt');
    setPhase(h.emu, h.venue, d, 'open');
    expect(await read(d, 'get_order_book_phase')).toBe('OpenForTrading');
  });
});

describe('allowances', () => {
  it('an allowance past its expiration ledger reads zero and no longer funds an order (#9)', async () => {
    const d = freshBook();
    const kp = wallet(h, d);
    approve(h.emu, d, 'quote', kp.publicKey(), d.book.address, 10n ** 12n, h.emu.latest.seq + 2);
    const allowanceArgs = [new Address(kp.publicKey()).toScVal(), new Address(d.book.address).toScVal()];
    const allowance = async () => {
      const sim = await h.server.simulateTransaction(await build(h, kp, d.quote.address, 'allowance', allowanceArgs));
      return rpc.Api.isSimulationSuccess(sim) ? scValToNative(sim.result?.retval as xdr.ScVal) : 'error';
    };
    expect(await allowance()).toBe(10n ** 12n);
    for (let i = 0; i < 3; i++) h.emu.closeLedger();
    expect(await allowance()).toBe(0n);
    const sim = await h.server.simulateTransaction(
      await build(h, kp, d.book.address, 'new_buy_order', orderArgs(kp.publicKey(), { quantity: U, price: P })),
    );
    expect(rpc.Api.isSimulationError(sim) ? /Error\(Contract, #(\d+)\)/.exec(sim.error)?.[1] : null).toBe('9');
  });
});

describe('read methods', () => {
  it('report the configuration, phase, counts and best offers', async () => {
    const d = freshBook();
    await place(d, wallet(h, d), 'buy', 2n * U, P - 200n);
    await place(d, wallet(h, d), 'sell', U, P + 400n);
    await place(d, wallet(h, d), 'sell', U, P + 400n);
    expect(await read(d, 'get_config')).toMatchObject({
      base_token: d.base.address,
      quote_token: d.quote.address,
      maker_commission: 15,
      no_prefund_config: false,
      base_scale: 1000n,
    });
    expect(await read(d, 'get_order_book_phase')).toBe('OpenForTrading');
    expect([await read(d, 'count_buy_orders'), await read(d, 'count_sell_orders')]).toEqual([1n, 2n]);
    expect(await read(d, 'best_bid_offer')).toBe(((P - 200n) << 128n) | (P + 400n));
    expect(await read(d, 'best_fifty_offers')).toEqual([
      [((2n * U) << 64n) | (P - 200n)],
      [((2n * U) << 64n) | (P + 400n)],
    ]);
  });
});
