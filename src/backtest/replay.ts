/**
 * A backtest: the bot itself (the same `Bot`, order engines, strategy loops, risk gate, obligations guard,
 * fair values, markouts and PnL attribution that `run` builds) on simulated chains that replay a recording,
 * in event time. Nothing waits on the wall clock: the virtual clock moves to the next recorded block, fair
 * value reading or timer, the work that moment started runs to completion, and the clock moves on.
 */
import type { OnChainPairState, PairBinding } from '../chains/types.ts';
import type { ApprovalOptions } from '../chains/wasm/options.ts';
import type { CalendarUse } from '../core/calendar.ts';
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
import { ReplayDriver } from './replay-driver.ts';
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

interface Wiring {
  readonly clock: VirtualClock;
  readonly feed: SimFeed;
  readonly timelines: Map<'evm' | 'wasm', ChainTimeline>;
  readonly latency: LatencySummary[];
  readonly wallets: BotWallet[];
  readonly pairs: BotPair[];
}

/** A chain of the recording simulated: its pairs funded and seeded with their first recorded book. */
function simChainOf(
  chainKind: 'evm' | 'wasm',
  ofChain: readonly BacktestPair[],
  first: { readonly height: bigint; readonly fromMs: number },
  backtest: BacktestOptions,
): SimChain {
  const chain = new SimChain(
    chainKind,
    ofChain,
    {
      wallets: new Set(ofChain.map((p) => p.wallet)),
      marketMakers: new Set(ofChain.filter((p) => p.marketMaker).map((p) => p.wallet)),
    },
    { height: first.height, timeMs: first.fromMs },
  );
  for (const p of ofChain) {
    chain.fund(p.binding.baseToken, p.wallet, p.balances.base);
    chain.fund(p.binding.quoteToken, p.wallet, p.balances.quote);
    const book = backtest.data.books.find((b) => b.symbol === p.binding.symbol && b.recvMs >= backtest.fromMs);
    if (book !== undefined) seedBook(chain, p.binding, book);
  }
  return chain;
}

/** One wallet of a chain: its simulated adapter, its order engine, and its pairs for the bot. */
async function wireWallet(
  w: string,
  mine: readonly BacktestPair[],
  chain: {
    readonly sim: SimChain;
    readonly timeline: ChainTimeline;
    readonly latency: ReturnType<typeof fitLatency> & { blockMs: number };
  },
  draw: ReturnType<typeof delayDraw>,
  backtest: BacktestOptions,
  wiring: Wiring,
): Promise<void> {
  const { clock } = wiring;
  const kind = chain.sim.chain;
  const adapter = new SimAdapter({
    chain: chain.sim,
    wallet: w,
    states: new Map(mine.map((p) => [p.binding.pairId, p.state])),
    clock,
    journal: backtest.store.transactions,
    // The first block after it was sent.
    send: (tx) => chain.timeline.send(tx, clock.now() + 1),
    outcomeDelay: draw,
    confirmMs: backtest.confirmations[kind] * chain.latency.blockMs,
    maxInFlight: chain.latency.maxInFlight,
    ...(backtest.approvals === undefined
      ? {}
      : { approvals: { options: backtest.approvals, state: backtest.store.state, logger: backtest.logger } }),
  });
  const marketMaker = mine.some((p) => p.marketMaker);
  const engine = await createWalletEngine({
    adapter,
    pairs: mine.map((p) => p.binding),
    store: backtest.store,
    marketMaker,
    logger: backtest.logger,
    metrics: backtest.metrics,
    clock,
  });
  const id = `${kind}:${w}`;
  wiring.wallets.push({ id, engine, adapter, marketMaker });
  const walletThrottle = new Throttle('wallet', () => mine[0]?.throttle?.wallet ?? NO_THROTTLE);
  for (const p of mine) wiring.pairs.push(botPair(p, id, backtest, clock, walletThrottle));
}

/** A chain of the recording: its blocks on a timeline, its latency fitted, its wallets wired. */
async function wireChain(chainKind: 'evm' | 'wasm', backtest: BacktestOptions, wiring: Wiring): Promise<void> {
  const ofChain = backtest.pairs.filter((p) => p.binding.chain === chainKind);
  if (ofChain.length === 0) return;
  const ids = new Set(ofChain.map((p) => p.binding.pairId));
  const events = backtest.data.chainEvents.filter((e) => e.chain === chainKind && ids.has(e.pairId));
  const blocks = recordedBlocks(events);
  const latency = { ...fitLatency(backtest.data.actions, ids), blockMs: blockInterval(events, 1_000) };
  wiring.latency.push(summary(chainKind, latency));
  const draw = delayDraw(latency, backtest.seed + (chainKind === 'evm' ? 0 : 1));
  const sim = simChainOf(
    chainKind,
    ofChain,
    { height: (blocks[0]?.height ?? 1n) - 1n, fromMs: backtest.fromMs },
    backtest,
  );
  const timeline = new ChainTimeline(sim, blocks, latency.blockMs, backtest.fromMs);
  timeline.skipBefore(backtest.fromMs);
  wiring.timelines.set(chainKind, timeline);
  for (const w of new Set(ofChain.map((p) => p.wallet)))
    await wireWallet(
      w,
      ofChain.filter((p) => p.wallet === w),
      { sim, timeline, latency },
      draw,
      backtest,
      wiring,
    );
  for (const p of ofChain) wiring.feed.publish(sim, p.binding, backtest.fromMs);
}

/** The obligations tracker of the replay, told of each wallet's confirmed chain events. */
function obligationsOf(backtest: BacktestOptions, wallets: readonly BotWallet[]): ObligationTracker {
  const obligations = new ObligationTracker({
    store: backtest.store,
    pairs: backtest.pairs.map((p) => ({ binding: p.binding, wallet: p.wallet, obligations: p.obligations })),
    calendar: backtest.calendar,
    sampleMs: backtest.sampleMs,
    // Nothing reads the figures between samples in a replay (no board, no scrape; the guard asks for its terms).
    evaluateEveryMs: backtest.sampleMs,
    clock: backtest.clock,
    logger: backtest.logger.child({ component: 'obligations' }),
    metrics: backtest.metrics,
  });
  for (const w of wallets)
    w.engine.onConfirmedEvents((events) => obligations.onChainEvents(w.engine.chain, w.engine.wallet, events));
  return obligations;
}

export async function runBacktest(backtest: BacktestOptions): Promise<BacktestResult> {
  const clock = backtest.clock;
  const wiring: Wiring = { clock, feed: new SimFeed(), timelines: new Map(), latency: [], wallets: [], pairs: [] };
  for (const chainKind of ['evm', 'wasm'] as const) await wireChain(chainKind, backtest, wiring);
  const bot = new Bot({
    wallets: wiring.wallets,
    pairs: wiring.pairs,
    feed: wiring.feed,
    rest: recordedTradeInfo(backtest.data.tradeInfo, clock),
    calendar: backtest.calendar,
    timings: backtest.timings,
    clock,
    logger: backtest.logger,
    metrics: backtest.metrics,
    reloadStrategies: backtest.reloadStrategies,
    obligations: obligationsOf(backtest, wiring.wallets),
  });
  const driver = new ReplayDriver({
    ...wiring,
    data: backtest.data,
    bindings: backtest.pairs.map((p) => p.binding),
    fromMs: backtest.fromMs,
    toMs: backtest.toMs,
  });
  // The recording runs from where it began; the bot starts where the live bot began to quote (its reconciliation
  // and first reads took that long), so that its first round sees what the live bot's first round saw.
  await driver.drive(backtest.startMs ?? backtest.fromMs, backtest.toMs, () => false);
  await driver.run(bot.start(), backtest.toMs, backtest.toMs);
  await driver.drive(backtest.toMs, backtest.toMs, () => false);
  const shutdownMs = backtest.shutdownMs ?? 120_000;
  await driver.run(bot.shutdown(shutdownMs), backtest.toMs + shutdownMs + 60_000, backtest.toMs);
  const replayed = { evm: emptyCounts(), wasm: emptyCounts() };
  for (const [k, t] of wiring.timelines) replayed[k] = t.chain.counts;
  return { fromMs: backtest.fromMs, toMs: clock.now(), latency: wiring.latency, replayed, steps: driver.steps, bot };
}

const emptyCounts = (): ReplayCounts => ({ orders: 0, refused: 0, cancels: 0, moot: 0 });
