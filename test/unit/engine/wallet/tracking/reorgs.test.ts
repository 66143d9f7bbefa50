/**
 * Outcomes applied from receipts, and fills applied from confirmed events, whose blocks a reorganisation
 * replaces (fake venue and adapter: outcomes name their block as chain A receipts do, and the follower reports
 * a replaced block it had delivered as a gap from the fork). After each, the store must say what the chain
 * says: order status and order id, fills, inventory.
 */
import { describe, expect, it } from 'vitest';
import type { ChainEvent, Outcome } from '../../../../../src/chains/types.ts';
import { Decimal } from '../../../../../src/core/decimal.ts';
import type { Side } from '../../../../../src/core/order-terms.ts';
import type { StoredOrder } from '../../../../../src/store/order-store.ts';
import { harness, start, TAKER, WALLET, withClock, type Harness } from '../../../../support/engine/harness.ts';
import { metricValue } from '../../../../support/venue/metric-value.ts';

const PAIR = 'tp-evm-bond-eure';

async function reorgHarness(confirmations = 1): Promise<Harness> {
  // A dropped transaction is known never to have applied a few blocks after it was first missed: asked each second.
  const h = await harness({
    adapter: { blocks: true, confirmations },
    engine: { settleDelaysMs: [1_000, 1_000, 1_000, 1_000, 1_000, 1_000] },
  });
  await start(h);
  return h;
}

const get = (h: Harness, cid: bigint) => h.store.orders.get(WALLET, cid) as StoredOrder;
const unconfirmed = (h: Harness) => h.store.applications.unconfirmed('evm', WALLET);

async function place(h: Harness, side: Side, qty: string, price: string): Promise<bigint> {
  const p = await h.engine.place({ pairId: PAIR, side, quantity: new Decimal(qty), price: new Decimal(price) });
  await h.block();
  return p.clientOrderId;
}

/** Mines until the follower confirmed everything applied so far. */
async function confirmAll(h: Harness): Promise<void> {
  for (let i = 0; i < 5 && unconfirmed(h).length > 0; i++) await h.block();
  expect(unconfirmed(h)).toEqual([]);
}

/** Mines `n` blocks, letting the background settling run between them. */
async function blocks(h: Harness, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await h.block();
    h.clock.advance(1_000);
    await h.settle();
  }
}

/** The wallet's orders resting on the fake book, as [order id, remaining]. */
function onBook(h: Harness): Array<[bigint, bigint]> {
  const book = h.venue.pair(PAIR).book;
  return [...book.buys, ...book.sells]
    .filter((o) => o.wallet === WALLET)
    .map((o): [bigint, bigint] => [o.id, o.remaining])
    .toSorted((a, b) => (a[0] < b[0] ? -1 : 1));
}

function inStore(h: Harness): Array<[bigint, bigint]> {
  return h.store.orders
    .live({ wallet: WALLET })
    .map((o): [bigint, bigint] => [o.orderId as bigint, o.quantity - o.filled])
    .toSorted((a, b) => (a[0] < b[0] ? -1 : 1));
}

async function expectInventoryIsBalances(h: Harness): Promise<void> {
  expect(await h.engine.compareInventory()).toMatchObject({ comparable: true, mismatched: [] });
}

describe('a receipt outcome whose block is replaced', () => {
  it('a dropped cancel: derived again from what stands, the order rests, is settled as never cancelled and can be cancelled again', async () => {
    const h = await reorgHarness();
    const cid = await place(h, 'buy', '1', '99');
    await confirmAll(h);
    const keep = h.venue.height;
    await h.engine.cancel(cid);
    await h.block();
    expect(get(h, cid).status).toBe('cancelled');
    expect(unconfirmed(h).map((a) => a.kind)).toEqual(['cancel']);
    h.venue.reorg(keep);
    await blocks(h, 2);
    // Withdrawn before the next batch: back to the cancellation request, whose transaction is asked about again.
    expect(get(h, cid)).toMatchObject({ status: 'cancelRequested' });
    await blocks(h, 4);
    expect(get(h, cid)).toMatchObject({ status: 'resting', cancelTxHash: null });
    expect(inStore(h)).toEqual(onBook(h));
    const history = h.store.orders.transitions(WALLET, cid);
    expect(history.map((t) => `${t.kind}:${t.from}->${t.to}${t.withdrawnMs === null ? '' : ' (withdrawn)'}`)).toEqual([
      'event:intended->submitting',
      'event:submitting->received',
      'event:received->resting',
      'event:resting->cancelRequested',
      'event:cancelRequested->cancelled (withdrawn)',
      'rollback:cancelled->cancelRequested',
      'event:cancelRequested->resting',
    ]);
    expect(await metricValue(h.metrics, 'dltmm_reorg_withdrawals_total', { chain: 'evm', kind: 'cancel' })).toBe(1);
    await h.engine.cancel(cid);
    await h.block();
    await confirmAll(h);
    expect(get(h, cid).status).toBe('cancelled');
    expect(onBook(h)).toEqual([]);
    await expectInventoryIsBalances(h);
  });

  it('a dropped placement is withdrawn and settled as never applied; its event keys are forgotten', async () => {
    const h = await reorgHarness();
    const keep = h.venue.height;
    const cid = await place(h, 'sell', '1', '101');
    const o = get(h, cid);
    expect(o.status).toBe('resting');
    const keys = () =>
      h.store.db.prepare('SELECT COUNT(*) AS n FROM processed_events WHERE tx_hash = ?').get(o.txHash) as { n: number };
    expect(keys().n).toBeGreaterThan(0);
    h.venue.reorg(keep);
    await blocks(h, 6);
    expect(get(h, cid)).toMatchObject({ status: 'rejected', orderId: null, rejection: { code: 'E_CHAIN_TX_EXPIRED' } });
    expect(keys().n).toBe(0);
    expect(inStore(h)).toEqual(onBook(h));
    expect(unconfirmed(h)).toEqual([]);
    await expectInventoryIsBalances(h);
  });

  it('a placement mined again after another order took its id: the store takes the new id and raises nothing', async () => {
    const h = await reorgHarness();
    const keep = h.venue.height;
    const cid = await place(h, 'buy', '1', '99');
    const o = get(h, cid);
    expect(o.orderId).toBe(1n);
    h.venue.place(TAKER, PAIR, 'sell', 10_000n, 1_050_000n);
    h.venue.reorg(keep, [o.txHash as string]);
    await blocks(h, 2);
    expect(get(h, cid)).toMatchObject({ status: 'resting', orderId: 2n });
    expect(h.store.alerts.open()).toEqual([]);
    expect(await metricValue(h.metrics, 'dltmm_order_events_refused_total')).toBe(0);
    expect(inStore(h)).toEqual(onBook(h));
    expect(unconfirmed(h)).toEqual([]);
    await expectInventoryIsBalances(h);
  });

  it('a reverted placement mined again and accepted in another block is not raised as resurrected', async () => {
    const h = await reorgHarness();
    const base = h.pair.baseToken;
    const have = h.venue.balance(base, WALLET);
    // All of the wallet's base goes elsewhere: its sell reverts for the balance.
    h.venue.balances.set(`${base}:${WALLET}`, 0n);
    h.venue.mine();
    await h.settle();
    const keep = h.venue.height;
    const cid = await place(h, 'sell', '1', '101');
    expect(get(h, cid)).toMatchObject({ status: 'rejected', rejection: { code: 'E_VENUE_INSUFFICIENT_BALANCE' } });
    await confirmAll(h);
    // In the chain that replaces it, the base is back before the placement is mined again.
    h.venue.reorg(keep, [get(h, cid).txHash as string]);
    h.venue.balances.set(`${base}:${WALLET}`, have);
    await blocks(h, 2);
    expect(get(h, cid)).toMatchObject({ status: 'resting', orderId: 1n });
    // The block the follower had confirmed was replaced: a gap, which reconciliation closes; nothing else.
    expect(h.store.alerts.open().map((a) => a.kind)).toEqual(['event-gap']);
    await withClock(h, h.engine.reconcile());
    expect(h.store.alerts.open().map((a) => a.kind)).toEqual([]);
    expect(inStore(h)).toEqual(onBook(h));
  });

  it('a later transition that no longer applies is withdrawn too: a placement and its cancellation both dropped', async () => {
    const h = await reorgHarness();
    const keep = h.venue.height;
    const cid = await place(h, 'buy', '1', '99');
    await h.engine.cancel(cid);
    await h.block();
    expect(get(h, cid).status).toBe('cancelled');
    h.venue.reorg(keep);
    await blocks(h, 6);
    expect(get(h, cid)).toMatchObject({ status: 'rejected', orderId: null, cancelTxHash: null });
    const withdrawn = h.store.orders
      .transitions(WALLET, cid)
      .filter((t) => t.withdrawnMs !== null)
      .map((t) => (t.event as { type: string }).type);
    expect(withdrawn).toEqual(['Accepted', 'Rested', 'CancelSent', 'Cancelled']);
    expect(inStore(h)).toEqual(onBook(h));
    await expectInventoryIsBalances(h);
  });

  it('an outcome still unconfirmed at a restart is decided by the next run', async () => {
    let h = await reorgHarness();
    const keep = h.venue.height;
    const cid = await place(h, 'buy', '1', '99');
    expect(unconfirmed(h)).toHaveLength(1);
    h = await h.restart();
    h.venue.reorg(keep);
    await start(h);
    await blocks(h, 6);
    expect(get(h, cid)).toMatchObject({ status: 'rejected', orderId: null });
    expect(unconfirmed(h)).toEqual([]);
  });

  it('an outcome read from a block the follower has already seen replaced is not applied', async () => {
    const h = await reorgHarness();
    const cid = await place(h, 'buy', '1', '99');
    await confirmAll(h);
    const o = get(h, cid);
    const before = JSON.stringify(h.store.db.prepare('SELECT * FROM orders').all());
    const received: ChainEvent = {
      key: `${o.txHash}:0`,
      pairId: PAIR,
      txHash: o.txHash as string,
      height: 1n,
      blockHash: `0x${'ee'.repeat(32)}`,
      timeMs: 0,
      type: 'OrderReceived',
      orderId: 7n,
      client: WALLET,
      quantity: 10_000n,
      price: 990_000n,
      side: 'buy',
      crossIdentifier: cid,
      orderType: 0,
      executionCondition: 0,
    };
    const stale: Outcome = {
      kind: 'accepted',
      txHash: o.txHash as string,
      height: 1n,
      orderId: 7n,
      events: [received],
      block: { height: 1n, hash: `0x${'ee'.repeat(32)}` },
    };
    h.parts.settler.placement(cid, stale);
    expect(JSON.stringify(h.store.db.prepare('SELECT * FROM orders').all())).toBe(before);
    expect(h.logs.some((l) => l.msg === 'outcome from a block the chain has since replaced; not applied')).toBe(true);
  });
});

/** A resting sell of ours, half filled by the taker in a block the follower confirmed. */
async function filled(h: Harness): Promise<{ cid: bigint; keep: bigint; fillTx: string }> {
  const cid = await place(h, 'sell', '2', '101');
  await confirmAll(h);
  const keep = h.venue.height;
  const fillTx = h.venue.place(TAKER, PAIR, 'buy', 10_000n, 1_010_000n);
  await h.block();
  await h.block();
  expect(get(h, cid)).toMatchObject({ status: 'partiallyFilled', filled: 10_000n });
  return { cid, keep, fillTx };
}

describe('a maker fill whose block is replaced (deeper than the confirmation depth)', () => {
  it('is withdrawn with its inventory change when the fill is gone; the reconciliation that follows finds the store right', async () => {
    const h = await reorgHarness();
    const { cid, keep } = await filled(h);
    const totals = () => h.store.inventory.all('evm', WALLET).map((r) => r.total);
    h.venue.reorg(keep);
    await blocks(h, 2);
    expect(get(h, cid)).toMatchObject({ status: 'resting', filled: 0n, fillIds: [] });
    expect(h.store.orders.fills()).toEqual([]);
    expect(inStore(h)).toEqual(onBook(h));
    await withClock(h, h.engine.reconcile());
    expect(h.store.alerts.open()).toEqual([]);
    await expectInventoryIsBalances(h);
    expect(totals()).toEqual(h.store.inventory.all('evm', WALLET).map((r) => r.total));
    expect(await metricValue(h.metrics, 'dltmm_reorg_withdrawals_total', { chain: 'evm', kind: 'events' })).toBe(1);
  });

  it('is applied again, once, from its new block when the fill is mined again', async () => {
    const h = await reorgHarness();
    const { cid, keep, fillTx } = await filled(h);
    h.venue.reorg(keep, [fillTx]);
    await blocks(h, 2);
    expect(get(h, cid)).toMatchObject({ status: 'partiallyFilled', filled: 10_000n });
    expect(h.store.orders.fills().map((f) => [f.txHash, f.quantity])).toEqual([[fillTx, 10_000n]]);
    expect((h.store.db.prepare('SELECT block_hash FROM fills').get() as { block_hash: string }).block_hash).toBe(
      h.venue.blocks[Number(keep)]?.hash,
    );
    await withClock(h, h.engine.reconcile());
    expect(h.store.alerts.open()).toEqual([]);
    expect(inStore(h)).toEqual(onBook(h));
    await expectInventoryIsBalances(h);
  });
});

describe('chain B', () => {
  it('events and outcomes that name no block are final: nothing is listed to confirm', async () => {
    const h = await harness();
    await start(h);
    const cid = await place(h, 'buy', '1', '99');
    const o = get(h, cid);
    const p = h.parts.applier.provisional;
    // Outcomes that name no block are final at once; a chain B event names none either.
    expect(unconfirmed(h)).toEqual([]);
    const rows = () => h.store.db.prepare('SELECT * FROM chain_applications ORDER BY tx_hash').all();
    const before = rows();
    const event: ChainEvent = {
      key: 'ledger-event-1',
      pairId: PAIR,
      txHash: 'abc',
      height: 5n,
      blockHash: null,
      timeMs: 0,
      type: 'Transfer',
      token: 'quote',
      from: WALLET,
      to: h.pair.orderBook,
      amount: 1n,
    };
    p.followed([event]);
    p.outcomeApplied(cid, 'place', {
      kind: 'accepted',
      txHash: o.txHash as string,
      height: 5n,
      orderId: o.orderId,
      events: [],
    });
    expect(rows()).toEqual(before);
  });
});

describe('parked maker fills and a reorganisation', () => {
  it('a parked movement delivered again from a new block is parked once, and the pair stays paused with an alert that says why', async () => {
    const h = await harness({ adapter: { blocks: true, confirmations: 0, foreignTrades: false } });
    await start(h);
    const cid = await place(h, 'sell', '12', '100');
    const keep = h.venue.height;
    // 11 at 100.0 pays what 10 at 110.0 would: parked (the node refuses its candidate's cancellation here).
    h.adapter.faults.push('refuse');
    const fillTx = h.venue.place(TAKER, PAIR, 'buy', 110_000n, 1_000_000n);
    await h.block();
    expect(h.store.alerts.pausing('evm', WALLET, PAIR).map((a) => a.kind)).toEqual(['ambiguous-fill']);
    const parked = () => h.store.pendingFills.open('evm', WALLET, PAIR).map((r) => [r.txHashes, r.quoteIn]);
    const before = parked();
    expect(before).toEqual([[[fillTx], expect.any(BigInt)]]);
    h.venue.reorg(keep, [fillTx]);
    await h.block();
    expect(parked()).toEqual(before);
    // (The gap the follower reported was reconciled meanwhile: the inventory counts the parked quote.)
    expect(
      h.store.alerts
        .pausing('evm', WALLET, PAIR)
        .map((a) => a.kind)
        .toSorted(),
    ).toEqual(['ambiguous-fill', 'reorganised-parked-fill']);
    expect(get(h, cid).filled).toBe(0n);
  });
});
