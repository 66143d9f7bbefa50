/**
 * A pair loop over the engine harness (fake chain, real store): its book, trade information and risk monitor
 * set by the caller, and what it logs kept line by line. The caller stops the engine and closes the store
 * (pair-loop-setup.ts does it after each test).
 */
import type { Throttle } from '../../../src/engine/risk/throttle.ts';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { Decimal } from '../../../src/core/decimal.ts';
import { remainingOf } from '../../../src/core/order-state.ts';
import { priceFromRaw, quantityFromRaw } from '../../../src/core/units.ts';
import { PairEvaluation } from '../../../src/engine/evaluation/pair-evaluation.ts';
import type { PairFairValue } from '../../../src/engine/fair-value/pair-fair-value.ts';
import { loopMetrics } from '../../../src/engine/loop/loop-metrics.ts';
import { PairLoop } from '../../../src/engine/loop/pair-loop.ts';
import type { RecordedAction } from '../../../src/engine/recording/recorder.ts';
import { PnlTracker } from '../../../src/engine/loop/pnl-tracker.ts';
import { StrategyCatalog } from '../../../src/engine/loop/strategy-catalog.ts';
import { VenueStatus } from '../../../src/market/status.ts';
import { resolveLimits, type RiskLimitsInput } from '../../../src/engine/risk/limits.ts';
import { RiskMonitor } from '../../../src/engine/risk/monitor.ts';
import type { MarketBook } from '../../../src/venue/market-data/book.ts';
import type { TradeInfo } from '../../../src/venue/payload/trade-info.ts';
import { harness, WALLET, withClock, type Harness } from './harness.ts';

const d = (s: string) => new Decimal(s);
export const LADDER = fileURLToPath(new URL('../../../strategies/ladder.yaml', import.meta.url));

export interface Setup {
  readonly h: Harness;
  readonly catalog: StrategyCatalog;
  readonly loop: PairLoop;
  readonly risk: RiskMonitor;
  readonly metrics: ReturnType<typeof loopMetrics>;
  book: MarketBook | undefined;
  trade: Partial<TradeInfo>;
  readonly status: VenueStatus;
  /** What the loop logged, one object per line. */
  readonly logs: Array<{ msg: string; level: number } & Record<string, unknown>>;
  /** With `markoutHorizonsMs`: the pair's evaluation. */
  readonly evaluation: PairEvaluation | undefined;
  round(marketEvent?: boolean): Promise<void>;
}

export interface SetupOptions {
  readonly limits?: RiskLimitsInput;
  readonly strategy?: string;
  readonly balanceMaxAgeMs?: number;
  /** Trading hours from the calendar (the test clock starts on a Monday at 10:00 Berlin time). */
  readonly calendar?: boolean;
  /** Blocks on top of an event's before the fake chain delivers it as confirmed (default 0). */
  readonly confirmations?: number;
  /** The pair's fair value and its guards, built on the harness (its clock, its pair). */
  readonly fairValue?: (h: Harness) => PairFairValue;
  /** Markouts at these horizons and the PnL attribution, on the harness's store. */
  readonly markoutHorizonsMs?: readonly number[];
  /** Where the loop's order actions go (the recording). */
  readonly record?: (a: RecordedAction) => void;
  /** The placement throttles of the wallet and of the pair. */
  readonly throttles?: readonly Throttle[];
  /** Runs on the harness before its engine starts and the loop is built (history already in the store). */
  readonly before?: (h: Harness) => void;
}

export async function buildPairLoop(options: SetupOptions = {}): Promise<Setup> {
  const { limits = {}, strategy: strategyPath = LADDER, balanceMaxAgeMs = 0, calendar = false } = options;
  const h = await harness(
    options.confirmations === undefined ? {} : { adapter: { confirmations: options.confirmations } },
  );
  options.before?.(h);
  await withClock(h, h.engine.start());
  const metrics = loopMetrics(h.metrics);
  const risk = new RiskMonitor();
  const pairId = h.pair.pairId;
  risk.addPair(pairId, WALLET, resolveLimits({ staleMarketDataMs: 10_000, ...limits }), h.clock.now());
  const catalog = new StrategyCatalog((p) => readFileSync(p, 'utf8'));
  const s: Setup = {
    h,
    catalog,
    risk,
    metrics,
    book: {
      symbol: h.pair.symbol,
      buy: [{ limit: d('99.8'), quantity: d('5') }],
      sell: [{ limit: d('100.2'), quantity: d('5') }],
      receivedAt: h.clock.now(),
      source: 'ws',
    },
    trade: { tradingStatus: 'CONTINUOUS_TRADING', lastPrice: d('100'), referencePrice: d('100') },
    status: undefined as unknown as VenueStatus,
    loop: undefined as unknown as PairLoop,
    logs: [],
    evaluation: undefined,
    async round(marketEvent = true) {
      if (marketEvent) risk.marketData(pairId, h.clock.now());
      await s.status.refreshTradeInfo(h.clock.now());
      s.loop.trigger(marketEvent ? h.clock.now() : undefined);
      await s.loop.idle();
      await h.block();
    },
  };
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void s.logs.push(JSON.parse(line) as Setup['logs'][number]) },
  );
  const status = new VenueStatus(
    h.pair,
    { getTradeInfo: async () => ({ raw: {}, ...s.trade }) },
    h.adapter,
    logger,
    () => undefined,
  );
  await status.refreshPhase();
  const evaluation =
    options.markoutHorizonsMs === undefined
      ? undefined
      : new PairEvaluation({
          pairId,
          wallet: WALLET,
          scales: h.pair.rules.scales,
          store: h.store.evaluation,
          horizonsMs: options.markoutHorizonsMs,
          chainFeeRate: { evm: d('0'), wasm: d('0') },
          clock: h.clock,
        });
  const loop = new PairLoop({
    runtime: h.engine.pair(pairId)!,
    engine: h.engine,
    adapter: h.adapter,
    feed: { book: () => s.book },
    status,
    risk,
    pnl: new PnlTracker(h.engine.fills(pairId), h.pair.rules.scales),
    strategy: () => catalog.get(strategyPath),
    limits: () => resolveLimits(limits),
    calendar: { enabled: calendar, config: { holidays: [], open: '08:00', close: '17:00', clearingDelayMinutes: 5 } },
    quoteShare: d('1'),
    refreshCost: d('0'),
    marketMaker: false,
    balanceMaxAgeMs,
    clock: h.clock,
    logger,
    metrics,
    ...(options.fairValue === undefined ? {} : { fairValue: options.fairValue(h) }),
    ...(evaluation === undefined ? {} : { evaluation }),
    ...(options.record === undefined ? {} : { record: options.record }),
    ...(options.throttles === undefined ? {} : { throttles: options.throttles }),
  });
  Object.assign(s, { status, loop, evaluation });
  return s;
}

/** Our resting orders as the store has them: side, price, remaining quantity. */
export function ours(h: Harness) {
  return h.store.orders
    .live({ wallet: WALLET })
    .filter((o) => o.status === 'resting' || o.status === 'partiallyFilled')
    .map((o) => ({
      side: o.side,
      price: priceFromRaw(o.price, h.pair.rules.scales),
      quantity: quantityFromRaw(remainingOf(o), h.pair.rules.scales),
    }));
}
