/**
 * The quote loop against the usual way of refreshing quotes, on a real chain A node (1 s interval blocks) with
 * the real adapter and order engine. One seeded random walk of the mid is delivered as synthetic book
 * messages, alternately to two wallets on two identical pairs, each message only once both have settled:
 *   - ours: the pair's strategy loop (`PairLoop`), which keeps what still fits and replaces only what moved
 *     beyond the tolerance (a replacement is placed first, its predecessor cancelled once it rests);
 *   - the baseline: on every book change cancel every live order, wait until the cancellations are
 *     confirmed, then place the whole ladder anew (the common approach of existing bots).
 * Measured per book change: the time from the message to the first transaction leaving the process (signed
 * and handed to the node), the time until the last new quote has left, and the transactions it cost.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { EvmAdapter } from '../../src/chains/evm/evm-adapter.ts';
import type { TxKind } from '../../src/chains/evm/options.ts';
import type { ChainAdapter, PairBinding } from '../../src/chains/types.ts';
import { Decimal } from '../../src/core/decimal.ts';
import { derivePairRules } from '../../src/core/rules.ts';
import { liveQuotes, pairInventory } from '../../src/engine/loop/inventory-view.ts';
import { loopMetrics } from '../../src/engine/loop/loop-metrics.ts';
import { PairLoop } from '../../src/engine/loop/pair-loop.ts';
import { PnlTracker } from '../../src/engine/loop/pnl-tracker.ts';
import { StrategyCatalog } from '../../src/engine/loop/strategy-catalog.ts';
import { VenueStatus } from '../../src/market/status.ts';
import { resolveLimits } from '../../src/engine/risk/limits.ts';
import { RiskMonitor } from '../../src/engine/risk/monitor.ts';
import { createWalletEngine } from '../../src/engine/wallet/assemble.ts';
import type { WalletEngine } from '../../src/engine/wallet/wallet-engine.ts';
import { startEvmVenue, type DeployedPair, type FundedWallet } from '../../src/sandbox/evm/venue.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { computeQuotes } from '../../src/strategy/registry.ts';
import type { MarketView } from '../../src/strategy/types.ts';
import { silentLogger } from '../../src/telemetry/logger.ts';
import { createMetrics } from '../../src/telemetry/metrics.ts';
import type { MarketBook } from '../../src/venue/market-data/book.ts';
import { seeded } from '../support/engine/random.ts';
import { pairWith } from '../support/pairs.ts';
import { fmt, type Row } from './harness.ts';
import { systemClock } from '../../src/core/system-clock.ts';

export const title = 'quote loop';

const BLOCK_MS = 1_000;
/** Book changes measured (after the first message, which places the first ladder for both). */
const CHANGES = 30;
/** Standard deviation of one step of the mid, relative (8 bp: about one tick of the pair near 100). */
const STEP = 0.0008;
const SEED = 7;
const LADDER = fileURLToPath(new URL('../../strategies/ladder.yaml', import.meta.url));
const FUNDS = { BOND26: '1000', XBOND26: '1000', EURe: '1000000' };
const ON_THE_WAY = new Set(['intended', 'submitting', 'unknown', 'received', 'cancelRequested']);

interface SentTx {
  readonly at: number;
  readonly kind: TxKind;
}

interface Contender {
  readonly txs: SentTx[];
  /** Delivers one book message and resolves once everything it caused is settled on chain. */
  deliver(book: MarketBook): Promise<void>;
  close(): Promise<void>;
}

interface Wallet {
  readonly binding: PairBinding;
  readonly adapter: ChainAdapter;
  readonly engine: WalletEngine;
  readonly store: Store;
  readonly txs: SentTx[];
  readonly status: VenueStatus;
  close(): Promise<void>;
}

const d = (s: string) => new Decimal(s);
const percentile = (xs: readonly number[], p: number) =>
  xs.toSorted((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))] as number;
const catalog = new StrategyCatalog((p) => readFileSync(p, 'utf8'));

function bindingOf(p: DeployedPair): PairBinding {
  return {
    pairId: p.id,
    symbol: p.pair.symbol ?? p.id,
    chain: 'evm',
    orderBook: p.orderBook,
    baseToken: p.baseToken,
    quoteToken: p.quoteToken,
    rules: derivePairRules(p.pair),
  };
}

/** A wallet as `dlt-mm run` builds it on a sandbox: adapter (one confirmation), reconciled order engine. */
async function wallet(rpcUrl: string, w: FundedWallet, p: DeployedPair, onActivity?: () => void): Promise<Wallet> {
  const binding = bindingOf(p);
  const store = openStore(':memory:');
  const txs: SentTx[] = [];
  const raw = new EvmAdapter({
    rpcUrl,
    chainId: 80002n,
    privateKey: w.privateKey,
    journal: store.transactions,
    state: store.state,
    follower: { confirmations: 1 },
    onSubmitTiming: (t) => txs.push({ at: performance.now(), kind: t.kind }),
  });
  try {
    const ready = await readyWallet(binding, raw, store, txs);
    if (onActivity !== undefined) ready.engine.onActivity(onActivity);
    return ready;
  } catch (e) {
    await raw.close();
    store.close();
    throw e;
  }
}

async function readyWallet(binding: PairBinding, adapter: ChainAdapter, store: Store, txs: SentTx[]): Promise<Wallet> {
  await adapter.ensureReady(binding);
  const engine = await createWalletEngine({
    adapter,
    pairs: [binding],
    store,
    marketMaker: false,
    logger: silentLogger(),
    metrics: createMetrics(),
    clock: systemClock,
  });
  await engine.start();
  const status = new VenueStatus(
    binding,
    { getTradeInfo: async () => ({ raw: {}, tradingStatus: 'CONTINUOUS_TRADING', referencePrice: d('100') }) },
    adapter,
    silentLogger(),
    () => undefined,
  );
  await status.refreshTradeInfo(Date.now());
  await status.refreshPhase();
  return {
    binding,
    adapter,
    engine,
    store,
    txs,
    status,
    close: async () => {
      await engine.stop();
      await adapter.close();
      store.close();
    },
  };
}

/** Until no order of the wallet is on its way (placed or cancelled, not yet settled) and `busy` says idle. */
async function settled(w: Wallet, busy: () => Promise<void>): Promise<void> {
  const deadline = performance.now() + 60_000;
  for (;;) {
    await busy();
    await w.engine.idle();
    if (!w.store.orders.live({ wallet: w.engine.wallet }).some((o) => ON_THE_WAY.has(o.status))) return;
    if (performance.now() > deadline) throw new Error('quote loop bench: orders did not settle within a minute');
    await sleep(20);
  }
}

function market(book: MarketBook, status: VenueStatus): MarketView {
  const s = status.current;
  return {
    bids: book.buy.map((l) => ({ price: l.limit, quantity: l.quantity })),
    asks: book.sell.map((l) => ({ price: l.limit, quantity: l.quantity })),
    lastPrice: s.lastPrice,
    staticReferencePrice: s.staticReferencePrice,
    tradeInfo: {
      lastPrice: s.lastPrice,
      previousClose: s.staticReferencePrice,
      tradeVolume24h: null,
      tradingHaltCounter: null,
    },
    nowMs: Date.now(),
    msUntilClose: null,
  };
}

async function ours(rpcUrl: string, w: FundedWallet, p: DeployedPair): Promise<Contender> {
  const box: { loop: PairLoop | null } = { loop: null };
  const wl = await wallet(rpcUrl, w, p, () => {
    box.loop?.balancesChanged();
    box.loop?.trigger();
  });
  const pairId = wl.binding.pairId;
  const metrics = loopMetrics(createMetrics());
  const risk = new RiskMonitor();
  risk.addPair(pairId, wl.engine.wallet, resolveLimits({}), Date.now());
  const feed = { current: undefined as MarketBook | undefined };
  const loop = new PairLoop({
    runtime: wl.engine.pair(pairId) as NonNullable<ReturnType<typeof wl.engine.pair>>,
    engine: wl.engine,
    adapter: wl.adapter,
    feed: { book: () => feed.current },
    status: wl.status,
    risk,
    pnl: new PnlTracker(wl.engine.fills(pairId), wl.binding.rules.scales),
    strategy: () => catalog.get(LADDER),
    limits: () => resolveLimits({}),
    calendar: { enabled: false, config: { holidays: [], open: '08:00', close: '17:00', clearingDelayMinutes: 5 } },
    quoteShare: d('1'),
    refreshCost: d('0'),
    marketMaker: false,
    balanceMaxAgeMs: 10_000,
    clock: systemClock,
    logger: silentLogger(),
    metrics,
  });
  box.loop = loop;
  return {
    txs: wl.txs,
    async deliver(book) {
      feed.current = book;
      risk.marketData(pairId, book.receivedAt);
      loop.trigger(book.receivedAt);
      await settled(wl, () => loop.idle());
    },
    async close() {
      await loop.stop();
      await wl.close();
    },
  };
}

/** The common refresher: cancel everything, wait for the cancellations to be confirmed, place the whole ladder. */
async function baseline(rpcUrl: string, w: FundedWallet, p: DeployedPair): Promise<Contender> {
  const wl = await wallet(rpcUrl, w, p);
  const pairId = wl.binding.pairId;
  const runtime = wl.engine.pair(pairId) as NonNullable<ReturnType<typeof wl.engine.pair>>;
  const live = () => wl.store.orders.live({ wallet: wl.engine.wallet, pairId });
  return {
    txs: wl.txs,
    async deliver(book) {
      await wl.engine.cancelAll({ pairId, timeoutMs: 60_000 });
      const balances = await wl.adapter.readBalances(wl.binding);
      const inventory = pairInventory(runtime, false, balances, live(), d('1'));
      const context = { marketMaker: false, refreshCost: d('0'), liveOrders: liveQuotes(wl.binding, live()) };
      const { result } = computeQuotes(
        catalog.get(LADDER).config,
        market(book, wl.status),
        inventory,
        wl.binding.rules,
        context,
        {},
      );
      for (const q of result.quotes)
        await wl.engine.place({ pairId, side: q.side, quantity: q.quantity, price: q.price });
      await settled(wl, async () => {});
    },
    close: () => wl.close(),
  };
}

const onGrid = (x: Decimal) => x.div('0.05').round().mul('0.05');

/** Book messages of others around a seeded random walk of the mid: three levels a side, on the 0.05 grid. */
function messages(symbol: string): (() => MarketBook)[] {
  const random = seeded(SEED);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  let mid = d('100');
  const out: (() => MarketBook)[] = [];
  for (let i = 0; i <= CHANGES; i++) {
    if (i > 0) mid = mid.mul(d((1 + gauss() * STEP).toFixed(8)));
    const m = mid;
    const level = (bps: number, side: 1 | -1) => ({
      limit: onGrid(m.mul(d(String(1 + (side * bps) / 10_000)))),
      quantity: d('20'),
    });
    out.push(() => ({
      symbol,
      buy: [level(30, -1), level(55, -1), level(80, -1)],
      sell: [level(30, 1), level(55, 1), level(80, 1)],
      receivedAt: Date.now(),
      source: 'ws',
    }));
  }
  return out;
}

interface Measured {
  /** Message to the first transaction it caused, ms (messages that caused none have no sample). */
  readonly first: number[];
  /** Message to the last new quote (placement) it caused, ms. */
  readonly quoted: number[];
  readonly txs: SentTx[];
  /** Book changes that caused at least one transaction. */
  readonly acted: number;
}

function measure(c: Contender, windows: readonly { from: number; to: number }[]): Measured {
  const first: number[] = [];
  const quoted: number[] = [];
  // Every transaction from the first measured change on counts, also one sent after its change had settled.
  const txs = c.txs.filter((t) => t.at >= (windows[0]?.from ?? 0));
  for (const w of windows) {
    const inside = c.txs.filter((t) => t.at >= w.from && t.at < w.to);
    if (inside.length > 0) first.push((inside[0] as SentTx).at - w.from);
    const places = inside.filter((t) => t.kind === 'place');
    if (places.length > 0) quoted.push((places.at(-1) as SentTx).at - w.from);
  }
  return { first, quoted, txs, acted: first.length };
}

const ratio = (x: number, y: number) => `${fmt(x / y, 2)}x`;
const pair = (xs: readonly number[]) => `${fmt(percentile(xs, 0.5), 1)} / ${fmt(percentile(xs, 0.99), 1)}`;
const perChange = (m: Measured) => m.txs.length / CHANGES;
const split = (m: Measured) =>
  (['place', 'cancel', 'approve'] as const)
    .map((k) => `${k} ${fmt(m.txs.filter((t) => t.kind === k).length / CHANGES, 2)}`)
    .join(', ');

function rows(o: Measured, b: Measured): Row[] {
  return [
    {
      benchmark: title,
      measure: `book message to first transaction sent, ms, p50 / p99 (${BLOCK_MS / 1000} s blocks; loop vs cancel-all-then-place; ${o.first.length} and ${b.first.length} samples)`,
      value: pair(o.first),
      baseline: pair(b.first),
      ratio: `${ratio(percentile(o.first, 0.5), percentile(b.first, 0.5))} / ${ratio(percentile(o.first, 0.99), percentile(b.first, 0.99))}`,
    },
    {
      benchmark: title,
      measure: 'book message to the last new quote sent, ms, p50 / p99',
      value: pair(o.quoted),
      baseline: pair(b.quoted),
      ratio: `${ratio(percentile(o.quoted, 0.5), percentile(b.quoted, 0.5))} / ${ratio(percentile(o.quoted, 0.99), percentile(b.quoted, 0.99))}`,
    },
    {
      benchmark: title,
      measure: `transactions per book change (${CHANGES} changes, seeded walk of the mid, 8 bp steps)`,
      value: fmt(perChange(o), 2),
      baseline: fmt(perChange(b), 2),
      ratio: ratio(perChange(o), perChange(b)),
    },
    { benchmark: title, measure: '  of which, per change', value: split(o), baseline: split(b) },
    {
      benchmark: title,
      measure: '  book changes that needed a transaction',
      value: `${o.acted} of ${CHANGES}`,
      baseline: `${b.acted} of ${CHANGES}`,
    },
  ];
}

export async function run(): Promise<Row[]> {
  const xbond = { ...pairWith('evm-pair').baseTokenData, symbol: 'XBOND26', isin: 'DE000A3X8B26' };
  const chain = await startEvmVenue(
    { blockTimeMs: BLOCK_MS, automine: false },
    {
      pairs: [
        { pair: pairWith('evm-pair', { id: 'tp-bench-loop' }) },
        { pair: pairWith('evm-pair', { id: 'tp-bench-baseline', symbol: 'XBOND26EURe', baseTokenData: xbond }) },
      ],
      wallets: [
        { name: 'loop', balances: FUNDS },
        { name: 'baseline', balances: FUNDS },
      ],
    },
  );
  const opened: Contender[] = [];
  try {
    const [loopPair, basePair] = chain.venue.pairs as [DeployedPair, DeployedPair];
    const [loopWallet, baseWallet] = chain.venue.wallets as [FundedWallet, FundedWallet];
    // Each contender is closed whatever happens next: its follower and receipt polls must not outlive the run.
    opened.push(await ours(chain.node.rpcUrl, loopWallet, loopPair));
    opened.push(await baseline(chain.node.rpcUrl, baseWallet, basePair));
    const runs = [
      {
        c: opened[0] as Contender,
        feed: messages(loopPair.pair.symbol ?? ''),
        windows: [] as Array<{ from: number; to: number }>,
      },
      {
        c: opened[1] as Contender,
        feed: messages(basePair.pair.symbol ?? ''),
        windows: [] as Array<{ from: number; to: number }>,
      },
    ];
    // Message 0 places the first ladder of both; the measured changes follow, each contender in turn, so that
    // the machine's load and the block clock fall on both alike.
    for (let i = 0; i <= CHANGES; i++) {
      for (const r of runs) {
        const from = performance.now();
        const message = r.feed[i];
        if (message === undefined) throw new Error(`no book message ${i}`);
        await r.c.deliver(message());
        if (i > 0) r.windows.push({ from, to: performance.now() });
      }
    }
    const [o, b] = runs.map((r) => measure(r.c, r.windows)) as [Measured, Measured];
    return rows(o, b);
  } finally {
    for (const c of opened) await c.close();
    await chain.stop();
  }
}
