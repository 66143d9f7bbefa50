/**
 * The pieces of the venue view the REST endpoints read: price levels (aggregated, best first, bounded), the
 * lagged open-order lists, and the trade log behind last price, 24 h figures and candles.
 */
import { describe, expect, it } from 'vitest';
import { LaggedOrders } from '../../../../src/sandbox/api/open-orders.ts';
import { PairBook, type RestingOrderView } from '../../../../src/sandbox/api/pair-book.ts';
import { TradeLog } from '../../../../src/sandbox/api/trades.ts';

function order(
  orderId: bigint,
  side: 'buy' | 'sell',
  price: bigint,
  remaining: bigint,
  wallet = 'w',
): RestingOrderView {
  return {
    pairId: 'p',
    orderId,
    wallet,
    side,
    price,
    quantity: remaining,
    remaining,
    orderType: 'limit',
    condition: 'standard',
    placedAtMs: 0,
  };
}

describe('price levels', () => {
  it('sums quantity and counts orders per price, best first, at most the limit of levels', () => {
    const book = new PairBook();
    for (const o of [
      order(1n, 'buy', 100n, 5n),
      order(2n, 'buy', 102n, 1n),
      order(3n, 'buy', 100n, 7n),
      order(4n, 'buy', 99n, 2n),
      order(5n, 'sell', 105n, 3n),
    ])
      book.rest(o);
    expect(book.levels('buy')).toEqual([
      { price: 102n, quantity: 1n, orderCount: 1 },
      { price: 100n, quantity: 12n, orderCount: 2 },
      { price: 99n, quantity: 2n, orderCount: 1 },
    ]);
    expect(book.levels('buy', 2).map((l) => l.price)).toEqual([102n, 100n]);
    expect(book.side('buy').map((o) => o.orderId)).toEqual([2n, 1n, 3n, 4n]);
    expect(book.fill('sell', 4n).map((f) => [f.order.orderId, f.quantity])).toEqual([
      [2n, 1n],
      [1n, 3n],
    ]);
    expect(book.levels('buy')[0]).toEqual({ price: 100n, quantity: 9n, orderCount: 2 });
  });
});

describe('lagged open orders', () => {
  it('shows a change only once the lag has passed, and forgets nothing early', () => {
    let now = 1_000;
    const orders = new LaggedOrders(500, () => now);
    const o = order(7n, 'sell', 100n, 10n, 'alice');
    orders.update(o);
    expect(orders.list()).toEqual([]);
    now = 1_500;
    expect(orders.list().map((x) => [x.orderId, x.remaining])).toEqual([[7n, 10n]]);
    o.remaining = 4n;
    orders.update(o);
    now = 1_900;
    expect(orders.list()[0]?.remaining).toBe(10n);
    now = 2_000;
    expect(orders.list()[0]?.remaining).toBe(4n);
    orders.end({ pairId: 'p', orderId: 7n, status: 'CANCELLED', reason: 'BY_PARTICIPANT', remaining: 4n });
    now = 2_499;
    expect(orders.list((x) => x.wallet === 'alice')).toHaveLength(1);
    expect(orders.list((x) => x.wallet === 'bob')).toHaveLength(0);
    now = 2_500;
    expect(orders.list()).toEqual([]);
  });

  it('keeps ended orders for only_open=false, with their status, reason and terms, the oldest forgotten first', () => {
    const orders = new LaggedOrders(
      0,
      () => 0,
      () => 5_000,
      2,
    );
    const received = (orderId: bigint) =>
      orders.receive({
        ...order(orderId, 'buy', 100n, 10n),
        crossId: 0xd1_000000n + orderId,
        reportingData: new Uint8Array([orderId === 1n ? 1 : 0]),
      });
    received(1n);
    orders.update(order(1n, 'buy', 100n, 10n));
    orders.end({ pairId: 'p', orderId: 1n, status: 'FILLED', reason: 'N_A', remaining: 0n });
    received(2n);
    orders.end({ pairId: 'p', orderId: 2n, status: 'REJECTED', reason: 'SELF_TRADE', remaining: 10n });
    received(3n);
    expect(orders.list()).toEqual([]);
    expect(orders.list(() => true, false)).toMatchObject([
      { orderId: 1n, status: 'FILLED', statusReason: 'N_A', remaining: 0n, crossId: 0xd1_000001n, modifiedAtMs: 5_000 },
      { orderId: 2n, status: 'REJECTED', statusReason: 'SELF_TRADE', remaining: 10n, quantity: 10n },
    ]);
    orders.update(order(3n, 'buy', 100n, 10n));
    orders.end({ pairId: 'p', orderId: 3n, status: 'CANCELLED', reason: 'BY_CONTRACT', remaining: 10n });
    // An order ends once: a later end of it changes nothing.
    orders.end({ pairId: 'p', orderId: 3n, status: 'FILLED', reason: 'N_A', remaining: 0n });
    expect(orders.list(() => true, false).map((o) => [o.orderId, o.status])).toEqual([
      [2n, 'REJECTED'],
      [3n, 'CANCELLED'],
    ]);
  });

  it('with no lag shows the current state', () => {
    const orders = new LaggedOrders(0, () => 0);
    orders.update(order(1n, 'buy', 1n, 1n));
    expect(orders.list()).toHaveLength(1);
  });
});

describe('trade log', () => {
  const log = new TradeLog();
  const t = (atMs: number, price: bigint, quantity: bigint) =>
    log.add({ atMs, price, quantity, takerSide: 'buy', takerOrderId: 1n });
  t(60_000, 100n, 1n);
  t(61_000, 104n, 2n);
  t(119_999, 98n, 3n);
  t(180_500, 101n, 4n);

  it('builds epoch-aligned candles of the trades in range, skipping empty intervals', () => {
    expect(log.candles(60_000, 0, 1e12, 100)).toEqual([
      { startMs: 60_000, open: 100n, high: 104n, low: 98n, close: 98n, volume: 6n, trades: 3 },
      { startMs: 180_000, open: 101n, high: 101n, low: 101n, close: 101n, volume: 4n, trades: 1 },
    ]);
    expect(log.candles(60_000, 0, 1e12, 1).map((c) => c.startMs)).toEqual([180_000]);
    expect(log.candles(60_000, 61_000, 120_000, 10)).toEqual([
      { startMs: 60_000, open: 104n, high: 104n, low: 98n, close: 98n, volume: 5n, trades: 2 },
    ]);
  });

  it('sums volume over (from, to] and finds the last trade before an instant', () => {
    expect(log.volume(60_000, 180_500)).toBe(9n);
    expect(log.lastAtOrBefore(119_999)?.price).toBe(98n);
    expect(log.lastAtOrBefore(59_999)).toBeUndefined();
    expect(log.last()?.price).toBe(101n);
  });

  it('drops trades older than the retention window', () => {
    const short = new TradeLog(1_000);
    short.add({ atMs: 0, price: 1n, quantity: 1n, takerSide: 'sell', takerOrderId: 1n });
    short.add({ atMs: 5_000, price: 2n, quantity: 1n, takerSide: 'sell', takerOrderId: 2n });
    expect(short.all().map((x) => x.price)).toEqual([2n]);
  });
});
