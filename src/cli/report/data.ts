/**
 * One trading day of the bot, read back from its state file alone (the bot and its venue may be long gone):
 * per pair the presence against the obligations (the same measure the running bot uses), the samples of mark,
 * position, PnL and quoted spread, the fills, the orders and their rejections; the transactions sent and what
 * the chains charged for them; the declared windows and the bot's runs.
 */
import { DEFAULT_CALENDAR, type CalendarConfig } from '../../core/calendar.ts';
import { obligationTerms, obligationsSchema, type ObligationsConfig } from '../../core/config/obligations-config.ts';
import { Decimal } from '../../core/decimal.ts';
import { measurePresence, ObligationRules, type Interval, type Segment } from '../../core/obligations.ts';
import { priceFromRaw, quantityFromRaw, quoteFromNative, type PairScales } from '../../core/units.ts';
import type { CalendarUse } from '../../core/calendar.ts';
import { dayFrame, type DayFrame } from '../../engine/obligations/day-frame.ts';
import type { Breach, ObligationWindow, PairSample, ReportPair } from '../../store/obligation-store.ts';
import type { FairValueSample } from '../../store/fair-value-store.ts';
import type { Store } from '../../store/store.ts';
import { evaluationDay, type ChainFeeRate, type EvaluationDay } from './evaluation.ts';
import type { MarketContext } from './market-context.ts';
import { transactionGroups, type TxGroup } from './transactions.ts';

export interface Compliance {
  readonly target: number;
  /** Presence over the day's continuous trading time, 0..1; null without any. */
  readonly presence: number | null;
  readonly presentMs: number;
  readonly continuousMs: number;
  readonly downMs: number;
  readonly haltedMs: number;
  readonly exceptionMs: number;
  readonly closedMs: number;
  /** Presence reached the target; null without continuous trading time. */
  readonly met: boolean | null;
  readonly maxSpread: string;
  readonly minSize: string;
  readonly maxSizeRatio: number;
  readonly guard: boolean;
}

export interface FillRow {
  readonly atMs: number;
  readonly side: 'buy' | 'sell';
  readonly role: 'maker' | 'taker';
  readonly quantity: string;
  readonly price: string;
  /** Commission, quote units. */
  readonly fee: string;
  readonly txHash: string;
}

export interface PairDay {
  readonly pairId: string;
  readonly symbol: string;
  readonly chain: 'evm' | 'wasm';
  readonly wallet: string;
  readonly obligations: ObligationsConfig | null;
  readonly compliance: Compliance | null;
  /** The day cut into stretches of one market state (and presence, with obligations). */
  readonly segments: readonly Segment[];
  readonly samples: readonly PairSample[];
  /** The fair value as the bot saw it, with the mid of others' book; empty for a pair without one. */
  readonly fairValues: readonly FairValueSample[];
  readonly fills: readonly FillRow[];
  readonly breaches: readonly Breach[];
  readonly orders: {
    readonly placed: number;
    readonly rested: number;
    readonly filled: number;
    readonly cancelled: number;
    readonly rejected: number;
  };
  readonly rejections: ReadonlyArray<{ readonly reason: string; readonly count: number }>;
  /** First and last sample: PnL and position as the bot had them (cumulative since its state file began). */
  readonly start: PairSample | null;
  readonly end: PairSample | null;
  /** Markouts and the PnL attribution of the day (marked to the fair value, else the mid of others' book). */
  readonly evaluation: EvaluationDay;
  /** The venue's public trades of the day beside ours (market-context.ts); absent from a backtest's report. */
  readonly market?: MarketContext;
}

export interface DayReport {
  readonly day: string;
  readonly timeZone: 'Europe/Berlin';
  readonly from: number;
  /** The end of the day, or the time of the report for the running day. */
  readonly to: number;
  readonly generatedMs: number;
  readonly calendar: { readonly enabled: boolean } & CalendarConfig;
  readonly pairs: readonly PairDay[];
  readonly transactions: readonly TxGroup[];
  readonly rejections: ReadonlyArray<{ readonly pairId: string; readonly reason: string; readonly count: number }>;
  readonly windows: readonly ObligationWindow[];
  readonly runs: readonly Interval[];
  /** Set when the day is a backtest's: what was replayed, and how. */
  readonly backtest?: BacktestMark;
}

/** What a backtest replayed: the recordings, the strategy, the span, the latency model and the replay's counts. */
export interface BacktestMark {
  readonly recordings: readonly string[];
  readonly fromMs: number;
  readonly toMs: number;
  /** Each pair's strategy file and its parameters changed from the file's (a sweep's combination). */
  readonly strategies: Readonly<Record<string, string>>;
  readonly overrides: Readonly<Record<string, string>>;
  readonly latency: ReadonlyArray<Readonly<Record<string, unknown>>>;
  readonly replayed: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

function scalesOf(pair: ReportPair): PairScales {
  return {
    baseInternal: BigInt(pair.scales.baseInternal),
    quoteInternal: BigInt(pair.scales.quoteInternal),
    baseNative: BigInt(pair.scales.baseNative),
    quoteNative: BigInt(pair.scales.quoteNative),
  };
}

function calendarOf(pairs: readonly ReportPair[], fallback: CalendarUse): CalendarUse {
  const kept = pairs[0]?.calendar as ({ enabled?: boolean } & Partial<CalendarConfig>) | undefined;
  if (kept === undefined || typeof kept.enabled !== 'boolean') return fallback;
  return { enabled: kept.enabled, config: { ...DEFAULT_CALENDAR, ...kept } };
}

/** Terms that nothing meets: for the market states of a pair without obligations. */
const NO_TERMS = {
  maxSpread: { unit: 'bps' as const, value: new Decimal(0) },
  minSize: { unit: 'base' as const, value: new Decimal('1e30') },
  target: 1,
  maxSizeRatio: 0,
  stressedSpreadMultiplier: new Decimal(1),
};

const interval = (window: ObligationWindow): Interval => ({
  from: window.fromMs,
  to: window.toMs ?? Number.MAX_SAFE_INTEGER,
});

type Measured = ReturnType<typeof measurePresence>;

/** The pair's presence over the day as the running bot measures it. */
function measuredDay(store: Store, pair: ReportPair, frame: DayFrame, to: number, rules: ObligationRules): Measured {
  const recorded = store.obligations;
  const windows = recorded.windows(frame.from, to, pair.pairId);
  return measurePresence({
    from: frame.from,
    to,
    observedFrom: Math.max(frame.from, recorded.firstRunMs() ?? to),
    schedule: frame.schedule,
    runs: recorded.runs(frame.from, to),
    market: recorded.market(pair.pairId, frame.from, to),
    exceptions: windows.filter((window) => window.kind === 'exception').map(interval),
    stressed: windows.filter((window) => window.kind === 'stressed').map(interval),
    quotes: recorded.spans(pair.pairId, frame.from, to),
    rules,
  });
}

function complianceOf(obligations: ObligationsConfig, measured: Measured): Compliance {
  return {
    target: obligations.presenceTarget / 100,
    presence: measured.ratio,
    presentMs: measured.presentMs,
    continuousMs: measured.continuousMs,
    downMs: measured.downMs,
    haltedMs: measured.haltedMs,
    exceptionMs: measured.exceptionMs,
    closedMs: measured.closedMs,
    met: measured.ratio === null ? null : measured.ratio >= obligations.presenceTarget / 100,
    maxSpread:
      obligations.maxSpreadBps !== undefined ? `${obligations.maxSpreadBps} bp` : `${obligations.maxSpread} quote`,
    minSize: obligations.minSize !== undefined ? `${obligations.minSize} base` : `${obligations.minValue} quote value`,
    maxSizeRatio: obligations.maxSizeRatio,
    guard: obligations.guard,
  };
}

function fillRows(store: Store, pair: ReportPair, scales: PairScales, from: number, to: number): FillRow[] {
  return store.orders
    .fills({ pairId: pair.pairId, wallet: pair.wallet })
    .filter((fill) => fill.atMs >= from && fill.atMs < to)
    .map((fill) => ({
      atMs: fill.atMs,
      side: fill.side,
      role: fill.role,
      quantity: quantityFromRaw(fill.quantity, scales).toFixed(),
      price: priceFromRaw(fill.price, scales).toFixed(),
      fee: quoteFromNative(fill.fee, scales).toFixed(),
      txHash: fill.txHash,
    }));
}

/** The pair's orders created in `[from, to)` by what became of them. */
function orderCounts(store: Store, pair: ReportPair, from: number, to: number): PairDay['orders'] {
  const counts = store.db
    .prepare(
      `SELECT COUNT(*) AS placed,
              SUM(CASE WHEN status IN ('resting', 'partiallyFilled', 'filled', 'cancelled', 'cancelRequested') THEN 1 ELSE 0 END) AS rested,
              SUM(CASE WHEN status = 'filled' THEN 1 ELSE 0 END) AS filled,
              SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END) AS cancelled,
              SUM(CASE WHEN status = 'rejected' THEN 1 ELSE 0 END) AS rejected
         FROM orders WHERE pair_id = ? AND wallet = ? AND created_ms >= ? AND created_ms < ? AND status <> 'intended'`,
    )
    .get(pair.pairId, pair.wallet, from, to) as Record<string, number | null>;
  return {
    placed: Number(counts.placed ?? 0),
    rested: Number(counts.rested ?? 0),
    filled: Number(counts.filled ?? 0),
    cancelled: Number(counts.cancelled ?? 0),
    rejected: Number(counts.rejected ?? 0),
  };
}

/** The pair's rejected orders of `[from, to)` by reason, the most frequent first. */
function rejectionsOf(store: Store, pair: ReportPair, from: number, to: number): PairDay['rejections'] {
  return (
    store.db
      .prepare(
        `SELECT COALESCE(rejection_code, rejection_reason, 'unknown') AS reason, COUNT(*) AS n FROM orders
          WHERE pair_id = ? AND wallet = ? AND status = 'rejected' AND created_ms >= ? AND created_ms < ? GROUP BY 1 ORDER BY n DESC, reason`,
      )
      .all(pair.pairId, pair.wallet, from, to) as Array<{ reason: string; n: number }>
  ).map((row) => ({ reason: row.reason, count: Number(row.n) }));
}

function pairDay(store: Store, pair: ReportPair, frame: DayFrame, to: number, chainFeeRate: ChainFeeRate): PairDay {
  const scales = scalesOf(pair);
  const parsed = pair.obligations === null ? null : obligationsSchema.safeParse(pair.obligations);
  const obligations = parsed?.success === true ? parsed.data : null;
  const rules = new ObligationRules(obligations === null ? NO_TERMS : obligationTerms(obligations), scales);
  const measured = measuredDay(store, pair, frame, to, rules);
  const samples = store.obligations.samples(pair.pairId, frame.from, to);
  return {
    pairId: pair.pairId,
    symbol: pair.symbol,
    chain: pair.chain,
    wallet: pair.wallet,
    obligations,
    compliance: obligations === null ? null : complianceOf(obligations, measured),
    segments:
      obligations === null ? measured.segments.map((segment) => ({ ...segment, present: false })) : measured.segments,
    samples,
    fairValues: store.fairValues.samples(pair.pairId, frame.from, to),
    fills: fillRows(store, pair, scales, frame.from, to),
    breaches: store.obligations.breaches(frame.from, to, pair.pairId),
    orders: orderCounts(store, pair, frame.from, to),
    rejections: rejectionsOf(store, pair, frame.from, to),
    start: samples[0] ?? null,
    end: samples.at(-1) ?? null,
    evaluation: evaluationDay(store, pair, scales, { from: frame.from, to }, samples, chainFeeRate),
  };
}

/** The report of `day` (YYYY-MM-DD, venue local) as of `nowMs`. */
export function buildDayReport(
  store: Store,
  day: string,
  nowMs: number,
  fallback: CalendarUse,
  chainFeeRate: ChainFeeRate = { evm: new Decimal(0), wasm: new Decimal(0) },
): DayReport {
  const pairs = store.obligations.pairs();
  const calendar = calendarOf(pairs, fallback);
  const frame = dayFrame(day, calendar);
  const to = Math.min(frame.to, nowMs);
  const days = pairs.map((p) => pairDay(store, p, frame, to, chainFeeRate));
  return {
    day,
    timeZone: 'Europe/Berlin',
    from: frame.from,
    to,
    generatedMs: nowMs,
    calendar: { enabled: calendar.enabled, ...calendar.config },
    pairs: days,
    transactions: transactionGroups(store, frame.from, to),
    rejections: days.flatMap((d) => d.rejections.map((r) => ({ pairId: d.pairId, ...r }))),
    windows: store.obligations.windows(frame.from, to),
    runs: store.obligations.runs(frame.from, to),
  };
}
