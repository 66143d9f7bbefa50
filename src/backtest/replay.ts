/**
 * A backtest: the bot itself (the same `Bot`, order engines, strategy loops, risk gate, obligations guard,
 * fair values, markouts and PnL attribution that `run` builds) on simulated chains that replay a recording,
 * in event time. Nothing waits on the wall clock: the virtual clock moves to the next recorded block, fair
 * value reading or timer, the work that moment started runs to completion, and the clock moves on.
 */
import type { OnChainPairState, PairBinding } from '../chains/types.ts';
import type { ApprovalOptions } from '../chains/wasm/options.ts';
import type { CalendarUse } from '../engine/loop/round-inputs.ts';
import type { ObligationsConfig } from '../core/config/obligations-config.ts';
import { Bot, type BotPair, type BotTimings, type BotWallet } from '../engine/loop/bot.ts';
import type { StrategyHandle } from '../engine/loop/loop-types.ts';
import { ObligationTracker } from '../engine/obligations/tracker.ts';
import type { RiskLimits } from '../engine/risk/limits.ts';
import { NO_THROTTLE, Throttle, type ThrottleLimits } from '../engine/risk/throttle.ts';
import { createWalletEngine } from '../engine/wallet/assemble.ts';
import type { Decimal } from '../core/decimal.ts';
import type { RecordingData } from '../store/recording-read.ts';
import type { Store } from '../store/store.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { Metrics } from '../telemetry/metrics.ts';
import { blockInterval, delayDraw, fitLatency, summary, type LatencySummary } from './latency.ts';
import { SimAdapter } from './sim-adapter.ts';
import { SimChain, type ReplayCounts } from './sim-chain.ts';
import { recordedTradeInfo, SimFeed } from './sim-market.ts';
import { botPair, seedBook } from './replay-pairs.ts';
import { ChainTimeline, recordedBlocks } from './timeline.ts';
import { VirtualClock } from './virtual-clock.ts';

export interface BacktestPair {
  readonly binding: PairBinding;
  readonly state: OnChainPairState;
  /** The wallet under test (the recorded one). */
  readonly wallet: string;
  readonly balances: { readonly base: bigint; readonly quote: bigint };
  readonly marketMaker: boolean;
  readonly strategy: () => StrategyHandle;
  readonly limits: () => RiskLimits;
  readonly refreshCost: Decimal;
  readonly obligations: ObligationsConfig | null;
  /** The placement throttles of its wallet and of the pair, as configured. */
  readonly throttle?: { readonly wallet: ThrottleLimits; readonly pair: ThrottleLimits };
}

export interface BacktestOptions {
  /** The replay's clock, at the start (the store and the logger read it too). */
  readonly clock: VirtualClock;
  readonly data: RecordingData;
  readonly pairs: readonly BacktestPair[];
  readonly fromMs: number;
  /** When the bot starts (default `fromMs`): the live bot's first decision, for a recording of one. */
  readonly startMs?: number;
  readonly toMs: number;
  readonly store: Store;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly timings: BotTimings;
  readonly calendar: CalendarUse;
  /** Blocks a chain A event waits before the follower reads it as confirmed. */
  readonly confirmations: { readonly evm: number; readonly wasm: number };
  readonly sampleMs: number;
  readonly evaluation: {
    readonly horizonsMs: readonly number[];
    readonly chainFeeRate: { readonly evm: Decimal; readonly wasm: Decimal };
  };
  /** Chain B approvals as the wallets' adapters size them (the configuration's lifetime and budgets). */
  readonly approvals?: ApprovalOptions;
  /** Seed of the latency draws. */
  readonly seed: number;
  readonly reloadStrategies: () => string[];
  /** How long the bot may take to cancel everything at the end (simulated). */
  readonly shutdownMs?: number;
}

export interface BacktestResult {
  readonly fromMs: number;
  readonly toMs: number;
  readonly latency: readonly LatencySummary[];
  readonly replayed: Readonly<Record<'evm' | 'wasm', ReplayCounts>>;
  /** Steps the replay took: recorded blocks, our blocks, timers fired. */
  readonly steps: number;
  readonly bot: Bot;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Lets the work started at this moment run until it waits for time or for the chain. */
async function settle(): Promise<void> {
  await turn();
}

export async function runBacktest(o: BacktestOptions): Promise<BacktestResult> {
  const clock = o.clock;
  const feed = new SimFeed();
  const timelines = new Map<'evm' | 'wasm', ChainTimeline>();
  const latency: LatencySummary[] = [];
  const wallets: BotWallet[] = [];
  const pairs: BotPair[] = [];
  for (const chainKind of ['evm', 'wasm'] as const) {
    const ofChain = o.pairs.filter((p) => p.binding.chain === chainKind);
    if (ofChain.length === 0) continue;
    const ids = new Set(ofChain.map((p) => p.binding.pairId));
    const events = o.data.chainEvents.filter((e) => e.chain === chainKind && ids.has(e.pairId));
    const blocks = recordedBlocks(events);
    const l = { ...fitLatency(o.data.actions, ids), blockMs: blockInterval(events, 1_000) };
    latency.push(summary(chainKind, l));
    const draw = delayDraw(l, o.seed + (chainKind === 'evm' ? 0 : 1));
    const wallet = new Set(ofChain.map((p) => p.wallet));
    const chain = new SimChain(
      chainKind,
      ofChain,
      { wallets: wallet, marketMakers: new Set(ofChain.filter((p) => p.marketMaker).map((p) => p.wallet)) },
      { height: (blocks[0]?.height ?? 1n) - 1n, timeMs: o.fromMs },
    );
    for (const p of ofChain) {
      chain.fund(p.binding.baseToken, p.wallet, p.balances.base);
      chain.fund(p.binding.quoteToken, p.wallet, p.balances.quote);
      const first = o.data.books.find((b) => b.symbol === p.binding.symbol && b.recvMs >= o.fromMs);
      if (first !== undefined) seedBook(chain, p.binding, first);
    }
    const timeline = new ChainTimeline(chain, blocks, l.blockMs, o.fromMs);
    timeline.skipBefore(o.fromMs);
    timelines.set(chainKind, timeline);
    for (const w of wallet) {
      const mine = ofChain.filter((p) => p.wallet === w);
      const adapter = new SimAdapter({
        chain,
        wallet: w,
        states: new Map(mine.map((p) => [p.binding.pairId, p.state])),
        clock,
        journal: o.store.transactions,
        // The first block after it was sent.
        send: (tx) => timeline.send(tx, clock.now() + 1),
        outcomeDelay: draw,
        confirmMs: o.confirmations[chainKind] * l.blockMs,
        maxInFlight: l.maxInFlight,
        ...(o.approvals === undefined
          ? {}
          : { approvals: { options: o.approvals, state: o.store.state, logger: o.logger } }),
      });
      const engine = await createWalletEngine({
        adapter,
        pairs: mine.map((p) => p.binding),
        store: o.store,
        marketMaker: mine.some((p) => p.marketMaker),
        logger: o.logger,
        metrics: o.metrics,
        clock,
      });
      const id = `${chainKind}:${w}`;
      wallets.push({ id, engine, adapter, marketMaker: mine.some((p) => p.marketMaker) });
      const walletThrottle = new Throttle('wallet', () => mine[0]?.throttle?.wallet ?? NO_THROTTLE);
      for (const p of mine) pairs.push(botPair(p, id, o, clock, walletThrottle));
    }
    for (const p of ofChain) feed.publish(chain, p.binding, o.fromMs);
  }
  const obligations = new ObligationTracker({
    store: o.store,
    pairs: o.pairs.map((p) => ({ binding: p.binding, wallet: p.wallet, obligations: p.obligations })),
    calendar: o.calendar,
    sampleMs: o.sampleMs,
    // Nothing reads the figures between samples in a replay (no board, no scrape; the guard asks for its terms).
    evaluateEveryMs: o.sampleMs,
    clock,
    logger: o.logger.child({ component: 'obligations' }),
    metrics: o.metrics,
  });
  for (const w of wallets)
    w.engine.onConfirmedEvents((events) => obligations.onChainEvents(w.engine.chain, w.engine.wallet, events));
  const bot = new Bot({
    wallets,
    pairs,
    feed,
    rest: recordedTradeInfo(o.data.tradeInfo, clock),
    calendar: o.calendar,
    timings: o.timings,
    clock,
    logger: o.logger,
    metrics: o.metrics,
    reloadStrategies: o.reloadStrategies,
    obligations,
  });
  const readings = o.data.readings.filter((r) => r.recvMs >= o.fromMs && r.recvMs <= o.toMs);
  const symbols = new Map(o.pairs.map((p) => [p.binding.symbol, p.binding]));
  // The venue's book messages came at these moments (changes and periodic snapshots): served again then.
  const bookTimes = o.data.books.filter((b) => b.recvMs >= o.fromMs && b.recvMs <= o.toMs && symbols.has(b.symbol));
  let nextBook = 0;
  const fairValues = new Map(
    pairs.flatMap((p) => (p.fairValue === undefined ? [] : [[p.binding.pairId, p.fairValue]])),
  );
  let nextReading = 0;
  let steps = 0;
  const bindings = new Map(o.pairs.map((p) => [p.binding.pairId, p.binding]));

  /** Runs events and timers in time order until `done` holds or nothing is left before `untilMs`. */
  const drive = async (untilMs: number, recordedUntilMs: number, done: () => boolean) => {
    for (;;) {
      await settle();
      if (done()) return;
      let inputMs = Number.POSITIVE_INFINITY;
      let chainNext: ChainTimeline | null = null;
      for (const t of timelines.values()) {
        const ms = t.nextMs(recordedUntilMs);
        if (ms !== null && ms < inputMs) {
          inputMs = ms;
          chainNext = t;
        }
      }
      const reading = readings[nextReading];
      const readingMs =
        reading !== undefined && reading.recvMs <= recordedUntilMs ? reading.recvMs : Number.POSITIVE_INFINITY;
      const book = bookTimes[nextBook];
      const bookMs = book !== undefined && book.recvMs <= recordedUntilMs ? book.recvMs : Number.POSITIVE_INFINITY;
      const timerMs = clock.nextDue() ?? Number.POSITIVE_INFINITY;
      const at = Math.min(inputMs, readingMs, bookMs, timerMs);
      if (at > untilMs || at === Number.POSITIVE_INFINITY) return;
      steps++;
      if (timerMs === at) {
        clock.fireNext(at);
      } else if (bookMs === at) {
        clock.fireNext(at);
        nextBook++;
        const b = symbols.get((book as { symbol: string }).symbol) as PairBinding;
        feed.publish((timelines.get(b.chain) as ChainTimeline).chain, b, at);
      } else if (readingMs === at) {
        clock.fireNext(at);
        nextReading++;
        void fairValues.get((reading as { pairId: string }).pairId)?.readNow();
      } else if (chainNext !== null) {
        clock.fireNext(at);
        for (const pairId of chainNext.mineNext(recordedUntilMs)) {
          const b = bindings.get(pairId);
          if (b !== undefined) feed.publish(chainNext.chain, b, clock.now());
        }
      }
    }
  };

  const run = async <T>(work: Promise<T>, untilMs: number, recordedUntilMs: number): Promise<T> => {
    const state = { done: false };
    const settled = work.finally(() => {
      state.done = true;
    });
    settled.catch(() => undefined);
    await drive(untilMs, recordedUntilMs, () => state.done);
    if (!state.done) throw new Error('backtest: the bot did not finish a step before the recording ended');
    return settled;
  };

  // The recording runs from where it began; the bot starts where the live bot began to quote (its reconciliation
  // and first reads took that long), so that its first round sees what the live bot's first round saw.
  await drive(o.startMs ?? o.fromMs, o.toMs, () => false);
  await run(bot.start(), o.toMs, o.toMs);
  await drive(o.toMs, o.toMs, () => false);
  const shutdownMs = o.shutdownMs ?? 120_000;
  await run(bot.shutdown(shutdownMs), o.toMs + shutdownMs + 60_000, o.toMs);
  const replayed = { evm: emptyCounts(), wasm: emptyCounts() };
  for (const [k, t] of timelines) replayed[k] = t.chain.counts;
  return { fromMs: o.fromMs, toMs: clock.now(), latency, replayed, steps, bot };
}

const emptyCounts = (): ReplayCounts => ({ orders: 0, refused: 0, cancels: 0, moot: 0 });
