/**
 * Reorganisations at the engine level, on a real chain A node: the order engine of one wallet (real adapter,
 * real SQLite file) applies receipts at once and events once confirmed; the test then replaces blocks with
 * evm_snapshot / evm_revert, re-injecting some raw transactions (as a node re-injects orphaned ones) and
 * dropping others, and compares the store with the chain afterwards: order statuses and order ids with the
 * book and the wallet's events, inventory with the balances.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.ts';
import {
  encodeEvmCrossIdentifier,
  encodeEvmOrderData,
  encodeEvmReportingData,
} from '../../../src/core/encoding/evm-order.ts';
import { ZERO_REPORTING } from '../../../src/core/encoding/reporting.ts';
import { DEFAULT_ORDER_OPTIONS } from '../../../src/core/order-terms.ts';
import type { Side } from '../../../src/core/order-terms.ts';
import { createWalletEngine } from '../../../src/engine/wallet/assemble.ts';
import type { WalletEngine } from '../../../src/engine/wallet/wallet-engine.ts';
import { openStore, type Store } from '../../../src/store/store.ts';
import { createLogger } from '../../../src/telemetry/logger.ts';
import type { StoredOrder } from '../../../src/store/order-store.ts';
import { SteppedTime } from '../../support/engine/stepped-time.ts';
import { metricValue } from '../../support/venue/metric-value.ts';
import { useChainA, type ChainA, type TestAdapter } from '../../support/chains/evm/adapter-harness.ts';
import { TestTime } from '../../support/chains/evm/test-time.ts';

let c: ChainA;
useChainA((chain) => (c = chain));

const POLL = 1_000;

interface Rig {
  readonly engine: WalletEngine;
  readonly time: SteppedTime;
  readonly store: Store;
  readonly t: TestAdapter;
  readonly logs: string[];
  readonly confirmations: number;
}

const rigs: Rig[] = [];
const dirs: string[] = [];
// The harness closes adapters and their stores after each test; the engines stop first.
afterEach(async () => {
  for (const r of rigs.splice(0)) await r.engine.stop();
});
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A started engine on the `mm` wallet, events confirmed one block deep (the sandbox's setting). */
async function rig(confirmations = 1): Promise<Rig> {
  const time = new SteppedTime();
  const dir = mkdtempSync(join(tmpdir(), 'dltmm-reorg-'));
  const store = openStore(join(dir, 'state.sqlite'), time.clock.now);
  const t = c.adapter(
    'mm',
    {
      clock: time.clock,
      transport: time.transport(c.h.node.rpcUrl),
      follower: { confirmations, pollIntervalMs: POLL },
      receipts: { pollIntervalMs: POLL },
    },
    { store, time: new TestTime() },
  );
  const logs: string[] = [];
  const engine = await createWalletEngine({
    adapter: t.adapter,
    pairs: [c.pair],
    store,
    marketMaker: false,
    logger: createLogger({ level: 'debug', destination: { write: (line: string) => logs.push(line) } }),
    metrics: t.metrics,
    clock: time.clock,
    catchUpTimeoutMs: 30_000,
    settleDelaysMs: [1_000, 2_000, 5_000],
    inventory: { coverageTimeoutMs: 30_000 },
  });
  const r = { engine, time, store, t, logs, confirmations };
  rigs.push(r);
  dirs.push(dir);
  const report = await time.drive(engine.start());
  expect(report.ready).toBe(true);
  return r;
}

const get = (r: Rig, cid: bigint) => r.store.orders.get(r.t.adapter.wallet, cid) as StoredOrder;

/** Places through the engine and waits for the receipt's outcome to be applied. */
async function place(r: Rig, side: Side, quantity: string, price: string): Promise<StoredOrder> {
  const p = await r.time.drive(
    r.engine.place({ pairId: c.pair.pairId, side, quantity: new Decimal(quantity), price: new Decimal(price) }),
  );
  return r.time.drive(p.settled);
}

async function cancel(r: Rig, cid: bigint): Promise<StoredOrder> {
  const x = await r.time.drive(r.engine.cancel(cid));
  return r.time.drive(x.settled);
}

/** Mines as many blocks as the confirmation depth and lets the follower confirm everything applied so far. */
async function confirmAll(r: Rig): Promise<void> {
  await c.mine(r.confirmations);
  await r.time.until(
    () => r.store.applications.unconfirmed('evm', r.t.adapter.wallet).length === 0,
    POLL,
    30,
    'every application confirmed',
  );
}

const snapshot = async () => (await c.provider.send('evm_snapshot', [])) as string;
const revert = async (id: string) => {
  await c.provider.send('evm_revert', [id]);
};

interface BookOrder {
  readonly orderId: bigint;
  readonly side: Side;
  readonly remaining: bigint;
  readonly price: bigint;
}

/** The wallet's resting orders as the order book contract lists them. */
async function onBook(r: Rig): Promise<BookOrder[]> {
  const out: BookOrder[] = [];
  for (const side of [1, 2]) {
    const ids = await c.h.read<bigint[]>('getOrderIds', side, 1000);
    for (const id of ids) {
      const [client, , remaining, price] = await c.h.read<[string, bigint, bigint, bigint]>('getOrder', id);
      if (client.toLowerCase() === r.t.adapter.wallet.toLowerCase())
        out.push({ orderId: id, side: side === 1 ? 'buy' : 'sell', remaining, price });
    }
  }
  return out.toSorted((a, b) => (a.orderId < b.orderId ? -1 : 1));
}

/** The store's live orders in the same shape (those that rest: every live order must be settled by now). */
function inStore(r: Rig): BookOrder[] {
  const live = r.store.orders.live({ wallet: r.t.adapter.wallet });
  expect(live.map((o) => o.status).filter((s) => s !== 'resting' && s !== 'partiallyFilled')).toEqual([]);
  return live
    .map((o) => ({ orderId: o.orderId as bigint, side: o.side, remaining: o.quantity - o.filled, price: o.price }))
    .toSorted((a, b) => (a.orderId < b.orderId ? -1 : 1));
}

/** Cross identifier -> order id of every placement of the wallet the chain now holds. */
async function placementsOnChain(r: Rig): Promise<Map<bigint, bigint>> {
  const book = c.h.book;
  const logs = await book.queryFilter(book.filters.OrderReceived?.(r.t.adapter.wallet) as never, 0, 'latest');
  return new Map(
    logs.map((l) => {
      const a = (l as unknown as { args: { crossIdentifier: bigint; orderId: bigint } }).args;
      return [BigInt(a.crossIdentifier), BigInt(a.orderId)];
    }),
  );
}

/** The store agrees with the chain: resting orders, order ids of every placement, inventory and balances. */
async function expectStoreIsChain(r: Rig): Promise<void> {
  expect(inStore(r)).toEqual(await onBook(r));
  const placements = await placementsOnChain(r);
  for (const o of r.store.db.prepare('SELECT client_order_id FROM orders WHERE wallet = ?').all(r.t.adapter.wallet)) {
    // Our client order id is the cross identifier the placement carries on chain.
    const order = get(r, BigInt((o as { client_order_id: string }).client_order_id));
    expect([order.clientOrderId, order.orderId]).toEqual([
      order.clientOrderId,
      placements.get(order.clientOrderId) ?? null,
    ]);
  }
  const inventory = await r.engine.compareInventory();
  expect(inventory).toMatchObject({ comparable: true, mismatched: [] });
}

const openAlerts = (r: Rig) => r.store.alerts.open().map((a) => a.kind);

describe('a receipt outcome whose block is reorganised away', () => {
  it(
    'a dropped cancel: the order rests again in the store, as on the book, and can be cancelled again',
    { timeout: 120_000 },
    async () => {
      const r = await rig();
      const o = await place(r, 'buy', '1', '99');
      expect(o.status).toBe('resting');
      await confirmAll(r);
      const before = await snapshot();
      expect((await cancel(r, o.clientOrderId)).status).toBe('cancelled');
      expect(await onBook(r)).toEqual([]);
      await revert(before);
      await c.mine(2);
      await r.time.until(() => get(r, o.clientOrderId).status === 'resting', POLL, 30, 'the order resting again');
      await r.engine.idle();
      expect(get(r, o.clientOrderId)).toMatchObject({ status: 'resting', orderId: o.orderId, cancelTxHash: null });
      await expectStoreIsChain(r);
      // Its history keeps the cancellation, withdrawn, and says why.
      const history = r.store.orders.transitions(r.t.adapter.wallet, o.clientOrderId);
      expect(history.filter((h) => h.kind === 'rollback').map((h) => [h.from, h.to])).toEqual([
        ['cancelled', 'cancelRequested'],
      ]);
      expect(history.find((h) => (h.event as { type: string }).type === 'Cancelled')?.withdrawnMs).not.toBeNull();
      expect(await metricValue(r.t.metrics, 'dltmm_reorg_withdrawals_total', { chain: 'evm', kind: 'cancel' })).toBe(1);

      expect((await cancel(r, o.clientOrderId)).status).toBe('cancelled');
      await confirmAll(r);
      expect(await onBook(r)).toEqual([]);
      await expectStoreIsChain(r);
      expect(openAlerts(r)).toEqual([]);
    },
  );

  it(
    'a dropped placement does not stay resting: its nonce is taken back and the order is settled as never applied',
    { timeout: 120_000 },
    async () => {
      const r = await rig();
      const before = await snapshot();
      // The wallet's first placement: an approval goes ahead of it, and the reorganisation drops both.
      const o = await place(r, 'buy', '1', '98');
      expect(o).toMatchObject({ status: 'resting', orderId: expect.any(BigInt) });
      await revert(before);
      // The replacing chain is longer than the one it replaces.
      await c.mine(3);
      await r.time.until(() => get(r, o.clientOrderId).status === 'rejected', POLL, 30, 'the placement settled again');
      await r.engine.idle();
      expect(get(r, o.clientOrderId)).toMatchObject({
        status: 'rejected',
        orderId: null,
        rejection: { code: 'E_CHAIN_TX_EXPIRED' },
      });
      // The approval went out again as it was (it is needed by the orders to come); the placement's nonce was
      // taken back with a self-transfer, so the stale quote can never reach the book.
      const journal = (n: bigint) =>
        r.store.transactions.atSequence('evm', r.t.adapter.wallet, n).map((x) => `${x.kind}:${x.status}`);
      expect(journal(0n)).toEqual(['approve:included']);
      expect(journal(1n)).toEqual(['place:replaced', 'noop:included']);
      await confirmAll(r);
      await expectStoreIsChain(r);
      expect(openAlerts(r)).toEqual([]);
      // Trading goes on with the next nonce.
      const next = await place(r, 'buy', '1', '98');
      expect(next.status).toBe('resting');
      await confirmAll(r);
      await expectStoreIsChain(r);
    },
  );

  it(
    'a placement mined again with another order id: the store takes the new id, with no false duplicate alert',
    { timeout: 120_000 },
    async () => {
      const r = await rig(2);
      await place(r, 'buy', '1', '97');
      await confirmAll(r);
      const before = await snapshot();
      const o = await place(r, 'buy', '1', '98');
      const first = o.orderId as bigint;
      // The follower has seen it, tentatively, two blocks short of confirmation.
      await r.time.advance(POLL);
      const raw = r.store.transactions.get(o.txHash as string)?.raw as string;
      await revert(before);
      // Another client's order is mined first and takes the id; ours follows in the next block.
      const other = await c.h.place('taker', 'sell', 10_000n, 1_050_000n);
      expect(other.orderId).toBe(first);
      await c.provider.send('eth_sendRawTransaction', [raw]);
      await c.mine(2);
      await r.time.until(
        () =>
          get(r, o.clientOrderId).orderId === first + 1n &&
          r.store.applications.unconfirmed('evm', r.t.adapter.wallet).length === 0,
        POLL,
        30,
        'the new order id confirmed',
      );
      await r.engine.idle();
      expect(get(r, o.clientOrderId)).toMatchObject({ status: 'resting', orderId: first + 1n });
      expect(r.store.alerts.open()).toEqual([]);
      await expectStoreIsChain(r);
    },
  );
});

/** A crossing buy of the taker, signed here so that the test can send it again after a reorganisation. */
async function takerBuy(quantity: bigint, price: bigint): Promise<{ raw: string; hash: string }> {
  const w = c.h.signer('taker');
  const orderData = encodeEvmOrderData({ ...DEFAULT_ORDER_OPTIONS, quantity, price });
  const req = await c.h
    .bookAs('taker')
    .getFunction('newBuyOrder')
    .populateTransaction(orderData, encodeEvmReportingData(ZERO_REPORTING), encodeEvmCrossIdentifier(0n));
  const raw = await w.signTransaction(await w.populateTransaction(req));
  const hash = (await c.provider.send('eth_sendRawTransaction', [raw])) as string;
  return { raw, hash: hash.toLowerCase() };
}

describe('a maker fill first seen in a block that disappears', () => {
  it(
    'is undone when the fill is gone from the chain: the order rests whole again and inventory equals balances',
    { timeout: 120_000 },
    async () => {
      const r = await rig();
      const s = await place(r, 'sell', '2', '101');
      await confirmAll(r);
      const before = await snapshot();
      const fill = await takerBuy(10_000n, 1_010_000n);
      await c.mine();
      await r.time.until(() => get(r, s.clientOrderId).status === 'partiallyFilled', POLL, 30, 'the fill applied');
      expect(r.store.orders.fills().map((f) => [f.txHash, f.quantity])).toEqual([[fill.hash, 10_000n]]);
      // A reorganisation deeper than the confirmation depth: the block of the applied fill is replaced.
      await revert(before);
      await c.mine(3);
      await r.time.until(() => get(r, s.clientOrderId).status === 'resting', POLL, 30, 'the fill withdrawn');
      await r.time.until(() => openAlerts(r).length === 0, POLL, 60, 'the reconciliation after the reorganisation');
      await r.engine.idle();
      expect(get(r, s.clientOrderId)).toMatchObject({ status: 'resting', filled: 0n, fillIds: [] });
      expect(r.store.orders.fills()).toEqual([]);
      await expectStoreIsChain(r);
      expect(await metricValue(r.t.metrics, 'dltmm_reorg_withdrawals_total', { chain: 'evm', kind: 'events' })).toBe(1);
    },
  );

  it('is applied again from its new block when the fill is mined again', { timeout: 120_000 }, async () => {
    const r = await rig();
    const s = await place(r, 'sell', '2', '101');
    await confirmAll(r);
    const before = await snapshot();
    const fill = await takerBuy(10_000n, 1_010_000n);
    await c.mine();
    await r.time.until(() => get(r, s.clientOrderId).status === 'partiallyFilled', POLL, 30, 'the fill applied');
    const old = r.store.db.prepare('SELECT block_hash FROM fills').get() as { block_hash: string };
    await revert(before);
    await c.mine();
    await c.provider.send('eth_sendRawTransaction', [fill.raw]);
    await c.mine(2);
    await r.time.until(
      () => {
        const f = r.store.db.prepare('SELECT block_hash FROM fills').get() as { block_hash: string } | undefined;
        return f !== undefined && f.block_hash !== old.block_hash;
      },
      POLL,
      30,
      'the fill applied from its new block',
    );
    await r.time.until(() => openAlerts(r).length === 0, POLL, 60, 'the reconciliation after the reorganisation');
    await r.engine.idle();
    expect(get(r, s.clientOrderId)).toMatchObject({ status: 'partiallyFilled', filled: 10_000n });
    expect(r.store.orders.fills().map((f) => [f.txHash, f.quantity])).toEqual([[fill.hash, 10_000n]]);
    await expectStoreIsChain(r);
  });
});
