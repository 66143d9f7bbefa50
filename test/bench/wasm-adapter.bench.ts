/**
 * The chain B adapter against the emulator over RPC, side by side in one run:
 * (1) orders included per ledger with 8 channel accounts versus 1, the adapter submitting as fast as its
 *     sources allow while ledgers close on a timer;
 * (2) events decoded and applied per second: getEvents items (captured once from the node) decoded into
 *     ChainEvents and applied to per-order state through the core's transition table; and the same through
 *     the follower end to end (RPC paging, JSON, decoding, delivery);
 * (3) time from `submit(place)` to the signed transaction being handed to the transport, next to the
 *     simulation round trip it contains (the adapter's own share is the difference).
 */
import { once } from 'node:events';
import { cpus, loadavg } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Keypair } from '@stellar/stellar-sdk';
import { applyOrderEvent, newOrder, type OrderRecord } from '../../src/core/order-state.ts';
import { Decimal } from '../../src/core/decimal.ts';
import { ZERO_REPORTING } from '../../src/core/encoding/reporting.ts';
import { approvalFor } from '../../src/core/money.ts';
import { DEFAULT_ORDER_OPTIONS } from '../../src/core/order-terms.ts';
import { parseTradingPair } from '../../src/core/pair.ts';
import { derivePairRules } from '../../src/core/rules.ts';
import type { ChainEvent, FollowerNotice, PairBinding, PlaceCommand } from '../../src/chains/types.ts';
import { decodeRpcEvent, EventBindings } from '../../src/chains/wasm/event-decoder.ts';
import { filterGroups } from '../../src/chains/wasm/follower.ts';
import type { SubmitTiming } from '../../src/chains/wasm/options.ts';
import { endOfLedgerCursor } from '../../src/chains/wasm/tx-events.ts';
import { WasmAdapter } from '../../src/chains/wasm/wasm-adapter.ts';
import { freePort } from '../../src/sandbox/net.ts';
import { deployPair, deployVenue, type BookDeployment, type Venue } from '../../src/sandbox/wasm/deploy.ts';
import { WasmEmulator } from '../../src/sandbox/wasm/emulator.ts';
import { controlCall, setUpWallet } from '../../src/sandbox/wasm/operator.ts';
import { startRpcServer, type RunningRpc } from '../../src/sandbox/wasm/rpc-server.ts';
import { scv } from '../../src/sandbox/wasm/scval.ts';
import { encodeWasmCrossIdentifier, encodeWasmOrderData } from '../../src/core/encoding/wasm-order.ts';
import { openStore } from '../../src/store/store.ts';
import { fmt, type Row } from './harness.ts';
import pairJson from '../fixtures/pairs/wasm-pair.json' with { type: 'json' };
import type { Clock } from '../../src/core/clock.ts';
import { systemClock } from '../../src/core/system-clock.ts';

export const title = 'chain B adapter';

const PAIR = parseTradingPair(pairJson);
const OVERRIDES = { minimumSize: '0.005' };
const BIG = 10n ** 15n;

interface Node {
  readonly emu: WasmEmulator;
  readonly rpc: RunningRpc;
  readonly venue: Venue;
  readonly d: BookDeployment;
  readonly pair: PairBinding;
}

async function node(ledgerIntervalMs: number): Promise<Node> {
  const emu = new WasmEmulator({ ledgerIntervalMs });
  const venue = deployVenue(emu, Keypair.random());
  const d = deployPair(emu, venue, { pair: PAIR, prefunded: true, overrides: OVERRIDES });
  const rpc = await startRpcServer(emu, { port: await freePort() });
  emu.closeLedger();
  const pair: PairBinding = {
    pairId: PAIR.id,
    symbol: PAIR.symbol ?? PAIR.id,
    chain: 'wasm',
    orderBook: d.addresses.orderBook.strkey,
    baseToken: d.addresses.base.strkey,
    quoteToken: d.addresses.quote.strkey,
    rules: derivePairRules(PAIR, OVERRIDES),
  };
  return { emu, rpc, venue, d, pair };
}

function trader(n: Node, approved = false): Keypair {
  const kp = Keypair.random();
  setUpWallet(n.emu, n.venue, n.d, kp.publicKey(), {
    base: BIG,
    quote: BIG,
    ...(approved ? { approveBase: BIG, approveQuote: BIG } : {}),
    client: { canBuy: true, canSell: true, canCancel: true, canTransfer: true, isMarketMaker: false },
  });
  return kp;
}

function funded(n: Node, count: number): Keypair[] {
  return Array.from({ length: count }, () => {
    const kp = Keypair.random();
    n.emu.fundAccount(kp.publicKey(), BIG);
    return kp;
  });
}

/** Sub-millisecond epoch time, so the latency figures are not rounded to whole milliseconds. */
const fineClock: Clock = { ...systemClock, now: () => performance.timeOrigin + performance.now() };

/** Where an adapter finds the node: in this thread (in-process emulator) or in a worker thread. */
interface Target {
  readonly url: string;
  readonly passphrase: string;
  readonly ledgerIntervalMs: number;
  readonly pair: PairBinding;
}

const targetOf = (n: Node): Target => ({
  url: n.rpc.url,
  passphrase: n.emu.passphrase,
  ledgerIntervalMs: n.emu.ledgerIntervalMs,
  pair: n.pair,
});

function adapter(
  t: Target,
  kp: Keypair,
  channelKeys: readonly Keypair[],
  onSubmitTiming?: (t: SubmitTiming) => void,
  pollIntervalMs = 20,
): WasmAdapter {
  const store = openStore(':memory:');
  return new WasmAdapter({
    clock: fineClock,
    rpcUrl: t.url,
    networkPassphrase: t.passphrase,
    tradingKey: kp,
    channelKeys,
    journal: store.transactions,
    state: store.state,
    pollIntervalMs,
    ledgerCloseMs: t.ledgerIntervalMs,
    approvals: { budgets: { [t.pair.pairId]: { base: BIG, quote: BIG } } },
    ...(onSubmitTiming === undefined ? {} : { onSubmitTiming }),
  });
}

interface WorkerSetup {
  readonly trader: string;
  readonly channels: readonly string[];
  readonly ledgerIntervalMs: number;
}

interface WorkerReady {
  readonly url: string;
  readonly passphrase: string;
  readonly orderBook: string;
  readonly baseToken: string;
  readonly quoteToken: string;
}

/**
 * In a worker thread this module serves a node instead: the emulator then runs on its own event loop, as
 * the real node runs in its own process, so its ledger closes and RPC work do not stall the adapter's clock.
 */
async function serveNode(setup: WorkerSetup): Promise<void> {
  const n = await node(setup.ledgerIntervalMs);
  setUpWallet(n.emu, n.venue, n.d, setup.trader, {
    base: BIG,
    quote: BIG,
    client: { canBuy: true, canSell: true, canCancel: true, canTransfer: true, isMarketMaker: false },
  });
  for (const c of setup.channels) n.emu.fundAccount(c, BIG);
  n.emu.start();
  const ready: WorkerReady = {
    url: n.rpc.url,
    passphrase: n.emu.passphrase,
    orderBook: n.pair.orderBook,
    baseToken: n.pair.baseToken,
    quoteToken: n.pair.quoteToken,
  };
  parentPort?.once('message', () => {
    n.emu.stop();
    void n.rpc.close().then(() => parentPort?.close());
  });
  // oxlint-disable-next-line unicorn/require-post-message-target-origin -- a worker_threads port, not window.postMessage
  parentPort?.postMessage(ready);
}

if (!isMainThread && (workerData as { role?: unknown } | null)?.role === 'wasm-node')
  await serveNode((workerData as { setup: WorkerSetup }).setup);

async function nodeInWorker(setup: WorkerSetup): Promise<{ target: Target; stop: () => Promise<void> }> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { role: 'wasm-node', setup } });
  const ready = await new Promise<WorkerReady>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const pair: PairBinding = {
    pairId: PAIR.id,
    symbol: PAIR.symbol ?? PAIR.id,
    chain: 'wasm',
    orderBook: ready.orderBook,
    baseToken: ready.baseToken,
    quoteToken: ready.quoteToken,
    rules: derivePairRules(PAIR, OVERRIDES),
  };
  return {
    target: { url: ready.url, passphrase: ready.passphrase, ledgerIntervalMs: setup.ledgerIntervalMs, pair },
    stop: async () => {
      // oxlint-disable-next-line unicorn/require-post-message-target-origin -- a worker_threads port, not window.postMessage
      worker.postMessage('stop');
      await once(worker, 'exit');
    },
  };
}

let cid = 1n;
/** Resting buys below the reference price, on tick, so every placement succeeds and nothing matches. */
function restingBuy(pair: PairBinding, i: number): PlaceCommand {
  const terms = {
    ...DEFAULT_ORDER_OPTIONS,
    side: 'buy' as const,
    quantity: new Decimal('1'),
    price: new Decimal(12 - (i % 50) * 0.02).toDecimalPlaces(2),
  };
  return {
    kind: 'place',
    pair,
    clientOrderId: cid++,
    terms,
    reporting: ZERO_REPORTING,
    approval: approvalFor('buy', terms.quantity, terms.price, pair.rules.scales, pair.rules.commissions, false),
  };
}

async function warm(a: WasmAdapter, pair: PairBinding): Promise<void> {
  for (const role of ['base', 'quote'] as const) {
    const sub = await a.ensureAllowance(pair, role, BIG);
    if (sub !== null && (await sub.outcome).kind !== 'accepted') throw new Error('approval failed');
  }
}

/** (1) The adapter submits back to back for `ledgers` ledgers; counts our placements included per ledger. */
async function ordersPerLedger(channelCount: number, ledgers: number, intervalMs: number): Promise<number> {
  const n = await node(intervalMs);
  const kp = trader(n);
  const a = adapter(targetOf(n), kp, funded(n, channelCount));
  n.emu.start();
  await warm(a, n.pair);
  const perLedger: number[] = [];
  const off = n.emu.onLedgerClosed((c) =>
    perLedger.push(c.transactions.filter((t) => t.success && t.call?.fn === 'new_buy_order').length),
  );
  const outcomes: Promise<unknown>[] = [];
  for (let i = 0; perLedger.length < ledgers + 1; i++) outcomes.push((await a.submit(restingBuy(n.pair, i))).outcome);
  off();
  n.emu.stop();
  await a.close();
  await Promise.allSettled(outcomes);
  await n.rpc.close();
  // The first ledger was partly before the measurement started.
  const counted = perLedger.slice(1, ledgers + 1);
  return counted.reduce((s, x) => s + x, 0) / counted.length;
}

/** Arguments of a one-unit order (the control path needs no signature). */
const orderArgs = (who: string, price: bigint) => [
  scv.address(who),
  scv.bytes(encodeWasmOrderData({ ...DEFAULT_ORDER_OPTIONS, quantity: 1000n, price })),
  scv.bytes(encodeWasmCrossIdentifier(0n)),
  scv.bytes(new Uint8Array([0])),
];

/** Trader events on the node: resting sells taken by another wallet, resting buys cancelled. */
function generateEvents(n: Node, me: Keypair, rounds: number): void {
  const other = trader(n, true);
  const book = n.d.book.address;
  for (let i = 0; i < rounds; i++) {
    controlCall(n.emu, me.publicKey(), book, 'new_sell_order', orderArgs(me.publicKey(), 123_400n));
    controlCall(n.emu, other.publicKey(), book, 'new_buy_order', orderArgs(other.publicKey(), 123_400n));
    controlCall(n.emu, me.publicKey(), book, 'new_buy_order', orderArgs(me.publicKey(), 120_000n));
    const id = n.d.book.book.buys.find((b) => b.wallet === me.publicKey())?.id as bigint;
    controlCall(n.emu, me.publicKey(), book, 'cancel_buy_order', [scv.address(me.publicKey()), scv.u64(id)]);
    if (i % 20 === 19) n.emu.closeLedger();
  }
  n.emu.closeLedger();
}

/** Per-order state through the core's transition table: what "applied" means here. */
function applier(): { apply: (e: ChainEvent) => void; orders: Map<bigint, OrderRecord> } {
  const orders = new Map<bigint, OrderRecord>();
  const step = (id: bigint, event: Parameters<typeof applyOrderEvent>[1]) => {
    const o = orders.get(id);
    if (o === undefined) return;
    const r = applyOrderEvent(o, event);
    if (r.ok) orders.set(id, r.order);
  };
  const apply = (e: ChainEvent) => {
    switch (e.type) {
      case 'OrderReceived': {
        const o = newOrder({
          clientOrderId: e.crossIdentifier,
          pairId: e.pairId,
          side: e.side,
          quantity: e.quantity,
          price: e.price,
        });
        const sent = applyOrderEvent(o, { type: 'SubmissionSent', txHash: e.txHash });
        if (sent.ok) orders.set(e.orderId, sent.order);
        step(e.orderId, { type: 'Accepted', orderId: e.orderId });
        break;
      }
      case 'OrderResting':
        return step(e.orderId, { type: 'Rested', quantity: e.quantity });
      case 'Trade':
        return step(e.orderId, { type: 'Filled', fillId: e.key, quantity: e.quantity, price: e.price, role: 'taker' });
      case 'OrderCancelled':
        return step(e.orderId, { type: 'Cancelled', by: e.cancellationType, quantity: e.quantity });
      case 'OrderRejected':
        return step(e.orderId, { type: 'RemainderRejected', reason: e.reason, quantity: e.quantityNotExecuted });
      case 'Transfer':
        return undefined;
    }
  };
  return { apply, orders };
}

/** The wallet's events as the follower asks for them (its own filters), captured once. */
async function rawEvents(n: Node, from: number, me: string): Promise<unknown[]> {
  const call = async (params: unknown) =>
    (
      (await (
        await fetch(n.rpc.url, {
          method: 'POST',
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getEvents', params }),
        })
      ).json()) as { result: { events: unknown[]; cursor: string } }
    ).result;
  const [filters] = filterGroups(me, [n.pair]);
  const out: unknown[] = [];
  let page = await call({ startLedger: from, filters, pagination: { limit: 10_000 } });
  while (page.events.length > 0) {
    out.push(...page.events);
    page = await call({ filters, pagination: { cursor: page.cursor, limit: 10_000 } });
  }
  return out;
}

/** (2) Decoding and applying captured events, and the follower end to end. */
async function eventsPerSecond(
  rounds: number,
): Promise<{ decodePerSecond: number; followerPerSecond: number; events: number; orders: number }> {
  const n = await node(0);
  const me = trader(n, true);
  const start = n.emu.latest.seq + 1;
  generateEvents(n, me, rounds);
  const raw = await rawEvents(n, start, me.publicKey());
  const bindings = new EventBindings(me.publicKey(), [n.pair]);
  const passes: number[] = [];
  let ours = 0;
  let orders = 0;
  for (let pass = 0; pass < 7; pass++) {
    const { apply, orders: tracked } = applier();
    const t0 = process.hrtime.bigint();
    ours = 0;
    for (const r of raw) {
      const e = decodeRpcEvent(bindings, r);
      if (e !== null) {
        apply(e);
        ours++;
      }
    }
    passes.push(Number(process.hrtime.bigint() - t0) / 1e9);
    orders = tracked.size;
  }
  const median = passes.toSorted((a, b) => a - b)[3] as number;
  // End to end: a follower from before the first event, until it has delivered all of ours.
  const store = openStore(':memory:');
  const a = new WasmAdapter({
    rpcUrl: n.rpc.url,
    networkPassphrase: n.emu.passphrase,
    tradingKey: me,
    journal: store.transactions,
    state: store.state,
    follower: { pollIntervalMs: 1, pageLimit: 10_000 },
  });
  const { apply } = applier();
  let delivered = 0;
  const t0 = process.hrtime.bigint();
  const done = new Promise<void>((resolve) => {
    const f = a.follow(
      [n.pair],
      { chain: 'wasm', cursor: endOfLedgerCursor(start - 1), height: BigInt(start - 1) },
      async (notice: FollowerNotice) => {
        if (notice.kind !== 'events') return;
        for (const e of notice.events) apply(e);
        delivered += notice.events.length;
        if (delivered >= ours) {
          resolve();
          void f.stop();
        }
      },
    );
  });
  await done;
  const followerSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await a.close();
  await n.rpc.close();
  if (ours !== raw.length) throw new Error(`${raw.length - ours} captured events did not decode as the wallet's`);
  return {
    decodePerSecond: raw.length / median,
    followerPerSecond: delivered / followerSeconds,
    events: raw.length,
    orders,
  };
}

const percentile = (xs: readonly number[], p: number) =>
  xs.toSorted((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] as number;

/**
 * (3) Placements at about 40 a second (a busy market maker) with 64 channel accounts, 250 ms ledgers and
 * outcomes polled every 100 ms, so that a command rarely waits for a free source (that wait is reported
 * apart and not counted as the adapter's own time); the node runs in a worker thread, as a real node runs
 * elsewhere. The machine's load average is reported beside it: on a busy machine the tail is the scheduler's.
 */
async function placeToSend(
  count: number,
): Promise<{ p50: number; p99: number; simP99: number; ownP50: number; ownP99: number; waited: number }> {
  const kp = Keypair.random();
  const chans = Array.from({ length: 64 }, () => Keypair.random());
  const remote = await nodeInWorker({
    trader: kp.publicKey(),
    channels: chans.map((c) => c.publicKey()),
    ledgerIntervalMs: 250,
  });
  const timings: SubmitTiming[] = [];
  const a = adapter(remote.target, kp, chans, (t) => timings.push(t), 100);
  await warm(a, remote.target.pair);
  timings.length = 0;
  const outcomes: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    outcomes.push((await a.submit(restingBuy(remote.target.pair, i))).outcome);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await a.close();
  await Promise.allSettled(outcomes);
  await remote.stop();
  const place = timings.filter((t) => t.kind === 'place').slice(20);
  const own = place.map((t) => t.toSendMs - t.simulationMs - t.sourceWaitMs);
  return {
    p50: percentile(
      place.map((t) => t.toSendMs),
      0.5,
    ),
    p99: percentile(
      place.map((t) => t.toSendMs),
      0.99,
    ),
    simP99: percentile(
      place.map((t) => t.simulationMs),
      0.99,
    ),
    ownP50: percentile(own, 0.5),
    ownP99: percentile(own, 0.99),
    waited: place.filter((t) => t.sourceWaitMs > 1).length,
  };
}

export async function run(): Promise<Row[]> {
  const one = await ordersPerLedger(1, 8, 400);
  const eight = await ordersPerLedger(8, 8, 400);
  const ev = await eventsPerSecond(2500);
  const lat = await placeToSend(520);
  const load = loadavg()[0] ?? 0;
  return [
    { benchmark: title, measure: 'orders included per ledger, 1 channel account', value: fmt(one, 2) },
    {
      benchmark: title,
      measure: 'orders included per ledger, 8 channel accounts (one kept free for cancels)',
      value: fmt(eight, 2),
      baseline: fmt(one, 2),
      ratio: `${fmt(eight / one, 2)}x`,
    },
    {
      benchmark: title,
      measure: `events decoded and applied per second (${fmt(ev.events)} getEvents items, ${fmt(ev.orders)} orders)`,
      value: fmt(ev.decodePerSecond),
    },
    {
      benchmark: title,
      measure: 'events per second through the follower (RPC paging, decode, apply)',
      value: fmt(ev.followerPerSecond),
    },
    {
      benchmark: title,
      measure: 'place -> signed tx sent, ms p50 / p99',
      value: `${fmt(lat.p50, 1)} / ${fmt(lat.p99, 1)}`,
    },
    {
      benchmark: title,
      measure: '  of which waiting for a free channel account: placements that waited',
      value: `${lat.waited} of 500`,
    },
    { benchmark: title, measure: 'of which simulation round trip, ms p99', value: fmt(lat.simP99, 1) },
    {
      benchmark: title,
      measure: 'adapter own time (place -> sent minus simulation and channel wait), ms p50 / p99',
      value: `${fmt(lat.ownP50, 1)} / ${fmt(lat.ownP99, 1)}`,
      baseline: '20 ms goal',
    },
    {
      benchmark: title,
      measure: `  machine load average (1 min) at the end, over ${cpus().length} CPUs`,
      value: fmt(load, 2),
    },
  ];
}
