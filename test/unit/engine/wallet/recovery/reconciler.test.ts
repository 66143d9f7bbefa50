import { copyFileSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../../src/core/decimal.ts';
import { DEFAULT_ORDER_OPTIONS } from '../../../../../src/core/order-terms.ts';
import { ZERO_REPORTING } from '../../../../../src/core/encoding/reporting.ts';
import { newOrder } from '../../../../../src/core/order-state.ts';
import { approvalFor } from '../../../../../src/core/money.ts';
import type { VenueOrder } from '../../../../../src/venue/payload/orders.ts';
import { harness, placeOrder, start, TAKER, WALLET, type Harness } from '../../../../support/engine/harness.ts';
import { timersDueIn, whenTrue } from '../../../../support/condition.ts';

const PAIR = 'tp-evm-bond-eure';
/** The harness's `catchUpTimeoutMs`: how long reconciliation waits for the follower to catch up. */
const CATCH_UP_TIMEOUT_MS = 5_000;

/** An order as the venue's open-order list of the wallet shows it, on the harness's pair. */
const listing = (orderId: bigint, side: 'BUY' | 'SELL', remainingQuantity: string, price: string): VenueOrder => ({
  externalOrderId: orderId,
  raw: { externalOrderId: Number(orderId), tradingPairId: PAIR, side, remainingQuantity, price },
});

/**
 * A started harness whose venue lists `views` as the wallet's open orders (nothing yet), with a sell of 2 at 101
 * resting on the book for ten seconds.
 */
async function listedSell() {
  const views: VenueOrder[] = [];
  const h = await harness({ engine: { rest: { walletOrders: async () => views } } });
  await start(h);
  const p = await h.engine.place(placeOrder('sell', '2', '101'));
  await h.block();
  const orderId = h.store.orders.get(WALLET, p.clientOrderId)?.orderId as bigint;
  h.clock.advance(10_000);
  return { views, h, p, orderId };
}

/** What the process had done when it was killed right after recording an order (and maybe signing it). */
async function killedAfterRecording(
  h: Harness,
  cid: bigint,
  stage: 'recorded' | 'journalled' | 'broadcast',
): Promise<string | null> {
  const terms = {
    ...DEFAULT_ORDER_OPTIONS,
    side: 'sell' as const,
    quantity: new Decimal('1'),
    price: new Decimal('101'),
  };
  h.store.orders.create(
    newOrder({ clientOrderId: cid, pairId: PAIR, side: 'sell', quantity: 10_000n, price: 1_010_000n }),
    { wallet: WALLET, chain: 'evm', lockRateBps: 10, prefunded: true },
  );
  if (stage === 'recorded') return null;
  if (stage === 'journalled') h.adapter.faults.push('drop');
  const s = await h.adapter.submit({
    kind: 'place',
    pair: h.pair,
    clientOrderId: cid,
    terms,
    reporting: ZERO_REPORTING,
    approval: approvalFor('sell', terms.quantity, terms.price, h.pair.rules.scales, h.pair.rules.commissions, false),
  });
  return s.txHash;
}

const receivedFor = (h: Harness, cid: bigint) =>
  h.venue.blocks
    .flatMap((b) => b.txs.flatMap((t) => t.events))
    .filter((e) => e.type === 'OrderReceived' && e.crossIdentifier === cid).length;

function snapshot(h: Harness): string {
  const rows = (sql: string) =>
    JSON.stringify(h.store.db.prepare(sql).all(), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return [
    rows('SELECT * FROM orders ORDER BY client_order_id'),
    rows('SELECT wallet, client_order_id, from_status, to_status, event_json FROM order_transitions ORDER BY id'),
    rows('SELECT * FROM fills ORDER BY fill_id'),
    rows('SELECT chain, wallet, token, total FROM inventory ORDER BY token'),
    rows('SELECT COUNT(*) FROM processed_events'),
    rows('SELECT kind, resolved_ms FROM alerts ORDER BY id'),
    rows('SELECT * FROM counters'),
  ].join('\n');
}

describe('recovery after a crash', () => {
  it('an order recorded but never signed is closed as not sent', async () => {
    let h = await harness();
    await start(h);
    await killedAfterRecording(h, 0xd1_000100n, 'recorded');
    h = await h.restart();
    const report = await start(h);
    expect(report.ready).toBe(true);
    expect(h.store.orders.get(WALLET, 0xd1_000100n)).toMatchObject({
      status: 'rejected',
      rejection: { code: 'E_ORDER_NOT_SENT' },
    });
  });

  it('killed during the broadcast: the journalled transaction is settled from the chain, not sent again', async () => {
    let h = await harness();
    await start(h);
    const txHash = await killedAfterRecording(h, 0xd1_000101n, 'broadcast');
    h.venue.mine();
    h = await h.restart();
    await start(h);
    expect(h.store.orders.get(WALLET, 0xd1_000101n)).toMatchObject({ status: 'resting', txHash, orderId: 1n });
    expect(receivedFor(h, 0xd1_000101n)).toBe(1);
    expect(h.adapter.sent).toEqual([]);
  });

  it('killed after the journal write, before the broadcast: unknown until the chain says it expired', async () => {
    let h = await harness();
    await start(h);
    await killedAfterRecording(h, 0xd1_000102n, 'journalled');
    h = await h.restart();
    const report = await start(h);
    expect(report.unknown).toEqual([0xd1_000102n]);
    expect(report.ready).toBe(false);
    for (let i = 0; i < 3; i++) await h.block();
    const again = await start(h);
    expect(again.ready).toBe(true);
    expect(h.store.orders.get(WALLET, 0xd1_000102n)).toMatchObject({
      status: 'rejected',
      rejection: { code: 'E_CHAIN_TX_EXPIRED' },
    });
    expect(receivedFor(h, 0xd1_000102n)).toBe(0);
  });

  it('adopts an order of ours the restored state file does not know, and never hands its id out again', async () => {
    let h = await harness();
    await start(h);
    await h.block();
    const backup = join(dirname(h.path), 'backup.sqlite');
    h.store.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    copyFileSync(h.path, backup);
    const lost = await h.engine.place(placeOrder('buy', '1', '99'));
    await h.block();
    h = await h.restart({
      beforeOpen: () => {
        for (const suffix of ['-wal', '-shm']) rmSync(h.path + suffix, { force: true });
        copyFileSync(backup, h.path);
      },
    });
    const report = await start(h);
    expect(report.adopted).toEqual([lost.clientOrderId]);
    expect(h.store.orders.get(WALLET, lost.clientOrderId)).toMatchObject({
      status: 'resting',
      adopted: true,
      orderId: 1n,
    });
    const next = await h.engine.place(placeOrder('buy', '1', '98'));
    expect(next.clientOrderId).toBe(lost.clientOrderId + 1n);
  });

  it('reports an order of the wallet that is not ours, without adopting it', async () => {
    const h = await harness();
    await start(h);
    h.venue.place(WALLET, PAIR, 'buy', 10_000n, 990_000n, 0n);
    await h.block();
    const report = await start(h);
    expect(report.foreign.map((f) => [f.orderId, f.crossId, f.source])).toEqual([[1n, 0n, 'events']]);
    expect(h.store.orders.live({ wallet: WALLET })).toEqual([]);
    expect(h.store.alerts.open({ kind: 'foreign-order' })).toMatchObject([{ pauses: false }]);
  });

  it('compares with the venue’s open-order list: ours by order id, the rest unrecognised', async () => {
    let listed: VenueOrder[] = [];
    const h = await harness({ engine: { rest: { walletOrders: async () => listed } } });
    await start(h);
    const p = await h.engine.place(placeOrder('sell', '2', '101'));
    await h.block();
    h.clock.advance(10_000);
    listed = [listing(1n, 'SELL', '2', '101'), listing(77n, 'BUY', '1', '99')];
    const report = await start(h);
    expect(report.discrepancies).toEqual([]);
    expect(report.unrecognised.map((v) => v.orderId)).toEqual([77n]);
    listed = [];
    const missing = await start(h);
    expect(missing.discrepancies).toMatchObject([{ kind: 'not-listed', clientOrderId: p.clientOrderId }]);
  });

  it('is idempotent: a second run changes nothing', async () => {
    const h = await harness();
    await start(h);
    await h.engine.place(placeOrder('sell', '1', '100.1'));
    await h.engine.place(placeOrder('buy', '1', '99.9'));
    await h.block();
    h.venue.place(TAKER, PAIR, 'buy', 5_000n, 1_001_000n);
    await h.block();
    await start(h);
    const once = snapshot(h);
    await start(h);
    expect(snapshot(h)).toBe(once);
  });

  it('a gap in the events pauses the wallet until reconciliation finds the chain and the store agree', async () => {
    let oldest = 0n;
    let h = await harness({ adapter: { retainedFrom: () => oldest } });
    await start(h);
    const p = await h.engine.place(placeOrder('buy', '1', '99'));
    await h.block();
    await h.engine.stop();
    for (let i = 0; i < 5; i++) h.venue.mine();
    oldest = h.venue.height;
    h = await h.restart();
    const report = await start(h);
    expect(h.store.alerts.open({ kind: 'event-gap' })).toEqual([]);
    expect(report.ready).toBe(true);
    expect(h.store.db.prepare("SELECT resolution FROM alerts WHERE kind = 'event-gap'").get()).toMatchObject({
      resolution: expect.stringContaining('reconciled'),
    });
    expect(h.store.orders.get(WALLET, p.clientOrderId)?.status).toBe('resting');
  });

  it('an order the venue does not list and the chain says is gone leaves the book for good, without a cancellation', async () => {
    let listed: VenueOrder[] = [];
    const h = await harness({ engine: { rest: { walletOrders: async () => listed } } });
    await start(h);
    const p = await h.engine.place(placeOrder('sell', '1', '101'));
    await h.block();
    // The order leaves the book with no event the follower could deliver (a lost event).
    const book = h.venue.pair(PAIR).book;
    book.sells.splice(0, book.sells.length);
    h.clock.advance(10_000);
    listed = [];
    const report = await start(h);
    expect(report.discrepancies).toMatchObject([
      { kind: 'not-listed', clientOrderId: p.clientOrderId, repair: 'not-on-book' },
    ]);
    expect(h.store.orders.get(WALLET, p.clientOrderId)).toMatchObject({
      status: 'cancelRequested',
      cancelTxHash: null,
    });
    // Never cancelled again: its events, if they come, settle it.
    await expect(h.engine.cancel(p.clientOrderId)).rejects.toMatchObject({ code: 'E_ORDER_STATE' });
  });

  it('a remaining quantity the venue lists differently is looked at again once the events up to the chain are applied: a fill the follower was still delivering repairs nothing', async () => {
    const { views, h, p, orderId } = await listedSell();
    // A taker takes half of it in a block the follower has not delivered; the venue already lists the rest.
    h.adapter.hold();
    h.venue.place(TAKER, PAIR, 'buy', 10_000n, 1_010_000n);
    h.venue.mine();
    views.push(listing(orderId, 'SELL', '1', '101'));
    const sent = h.adapter.sent.length;
    const before = timersDueIn(h.clock, CATCH_UP_TIMEOUT_MS);
    const reconciling = start(h);
    // The reconciliation waits for the follower to deliver up to the chain (its deadline is on the clock).
    await whenTrue(
      () => timersDueIn(h.clock, CATCH_UP_TIMEOUT_MS) > before,
      'the reconciliation waits for the follower',
    );
    await h.adapter.resume();
    const report = await reconciling;
    await h.settle();
    expect(report.discrepancies.map((d) => [d.kind, d.repair])).toEqual([['remaining-differs', 'checking']]);
    expect(h.store.orders.get(WALLET, p.clientOrderId)).toMatchObject({ status: 'partiallyFilled', filled: 10_000n });
    expect(h.adapter.sent.length).toBe(sent);
  });

  it('a remaining quantity that still differs once every event is applied is settled by cancelling the order', async () => {
    const { views, h, p, orderId } = await listedSell();
    views.push(listing(orderId, 'SELL', '1.5', '101'));
    const report = await start(h);
    expect(report.discrepancies.map((d) => [d.kind, d.repair])).toEqual([['remaining-differs', 'checking']]);
    await h.settle();
    expect(h.adapter.sent.at(-1)?.command).toMatchObject({ kind: 'cancel', orderId });
    await h.block();
    // The cancellation returned what the chain had left: the chain's truth settles the order.
    expect(h.store.orders.get(WALLET, p.clientOrderId)).toMatchObject({ status: 'cancelled', unexplained: 0n });
  });

  it('a process killed before its follower delivered any event resumes from where that follower started', async () => {
    const h = await harness();
    await start(h);
    // The follower has delivered nothing yet when the order goes out and a taker fills it; then the kill.
    h.adapter.hold();
    const p = await h.engine.place(placeOrder('sell', '1', '100.1'));
    h.venue.mine();
    await p.settled;
    h.venue.place(TAKER, PAIR, 'buy', 10_000n, 1_001_000n);
    h.venue.mine();
    // The held round of the stopped follower ends without delivering anything: what a kill leaves.
    const restarting = h.restart();
    await h.adapter.resume();
    const next = await restarting;
    const report = await start(next);
    expect(next.store.orders.get(WALLET, p.clientOrderId)).toMatchObject({ status: 'filled', filled: 10_000n });
    expect(report).toMatchObject({ ready: true, inventory: { comparable: true, mismatched: [] } });
  });
});
