import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newOrder } from '../../../src/core/order-state.ts';
import { openStore, type Store } from '../../../src/store/store.ts';

let store: Store;
let clock = 1_000;

beforeEach(() => {
  clock = 1_000;
  store = openStore(':memory:', () => clock);
});
afterEach(() => store.close());

const rest = (orderId: bigint, atMs: number, quantity = 10n, side: 'buy' | 'sell' = 'sell') =>
  store.obligations.rested({
    chain: 'evm',
    wallet: 'w',
    pairId: 'p',
    orderId,
    side,
    price: 100n,
    quantity,
    atMs,
    height: BigInt(atMs),
  });

/** An order of ours known to the store with its venue id, and a maker fill of it at `atMs`. */
function makerFill(cid: bigint, orderId: bigint, quantity: bigint, atMs: number): void {
  if (store.orders.get('w', cid) === undefined) {
    store.orders.create(newOrder({ clientOrderId: cid, pairId: 'p', side: 'sell', quantity: 10n, price: 100n }), {
      wallet: 'w',
      chain: 'evm',
    });
    store.orders.apply('w', cid, { type: 'SubmissionSent', txHash: `0x${cid}` });
    store.orders.apply('w', cid, { type: 'Accepted', orderId });
    store.orders.apply('w', cid, { type: 'Rested', quantity: 10n });
  }
  const fillId = `f${cid}-${atMs}`;
  store.orders.apply(
    'w',
    cid,
    { type: 'Filled', fillId, quantity, price: 100n, role: 'maker' },
    {
      fillId,
      wallet: 'w',
      clientOrderId: cid,
      pairId: 'p',
      side: 'sell',
      role: 'maker',
      quantity,
      price: 100n,
      baseDelta: -quantity,
      quoteDelta: 0n,
      fee: 0n,
      txHash: `0xf${atMs}`,
      height: BigInt(atMs),
      atMs,
    },
  );
}

describe('quote spans', () => {
  it('one span per size: a partial fill ends one and starts the next, the last fill ends the quote', () => {
    rest(7n, 100);
    makerFill(1n, 7n, 4n, 150);
    makerFill(1n, 7n, 6n, 180);
    expect(store.obligations.spans('p', 0, 1_000).map((s) => [s.from, s.to, s.quantity])).toEqual([
      [100, 150, 10n],
      [150, 180, 6n],
    ]);
  });

  it('a cancel ends the quote; an open quote runs to the end of the stretch; only quotes in the stretch count', () => {
    rest(1n, 100);
    store.obligations.ended({
      chain: 'evm',
      wallet: 'w',
      pairId: 'p',
      orderId: 1n,
      atMs: 200,
      height: 200n,
      kind: 'cancel',
    });
    store.obligations.ended({
      chain: 'evm',
      wallet: 'w',
      pairId: 'p',
      orderId: 1n,
      atMs: 300,
      height: 300n,
      kind: 'cancel',
    });
    rest(2n, 250, 5n, 'buy');
    expect(store.obligations.spans('p', 0, 500).map((s) => [s.side, s.from, s.to])).toEqual([
      ['sell', 100, 200],
      ['buy', 250, 500],
    ]);
    expect(store.obligations.spans('p', 200, 500).map((s) => s.from)).toEqual([250]);
    expect(store.obligations.open('p').map((q) => q.orderId)).toEqual([2n]);
  });
});

describe('runs and windows', () => {
  it('a run lasts to its stop, or to its last sign of life after a crash', () => {
    const a = store.obligations.startRun(100);
    store.obligations.alive(a, 400);
    const b = store.obligations.startRun(900);
    store.obligations.alive(b, 1_000);
    store.obligations.stopRun(b, 1_100);
    expect(store.obligations.runs(0, 2_000)).toEqual([
      { from: 100, to: 400 },
      { from: 900, to: 1_100 },
    ]);
    expect(store.obligations.firstRunMs()).toBe(100);
  });

  it('declared windows apply to their pair or to every pair, and end when told', () => {
    const all = store.obligations.declare({
      kind: 'exception',
      pairId: null,
      fromMs: 100,
      toMs: null,
      reason: 'data feed failed',
      source: 'command',
    });
    store.obligations.declare({
      kind: 'stressed',
      pairId: 'other',
      fromMs: 100,
      toMs: 200,
      reason: 'venue notice',
      source: 'endpoint',
    });
    expect(store.obligations.windows(0, 1_000, 'p').map((w) => [w.kind, w.reason])).toEqual([
      ['exception', 'data feed failed'],
    ]);
    expect(store.obligations.endWindow(all.id, 500)?.toMs).toBe(500);
    expect(store.obligations.windows(600, 1_000, 'p')).toEqual([]);
    expect(store.obligations.endWindow(999, 500)).toBeNull();
  });
});

describe('transaction fees', () => {
  it('an included transaction keeps the fee the chain charged', () => {
    store.transactions.recordSigned({
      txHash: '0xa',
      chain: 'evm',
      wallet: 'w',
      source: 'w',
      sequence: 1n,
      kind: 'place',
      clientOrderId: null,
      raw: '0x',
    });
    store.transactions.mark('0xa', 'sent');
    store.transactions.mark('0xa', 'included', null, 123_000n);
    expect(store.transactions.get('0xa')?.fee).toBe(123_000n);
    expect(store.transactions.signedBetween(0, 2_000).map((t) => [t.txHash, t.status])).toEqual([['0xa', 'included']]);
  });
});
