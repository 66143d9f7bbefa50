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
import { dayFrame, type CalendarUse, type DayFrame } from '../../engine/obligations/day-frame.ts';
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

function scalesOf(p: ReportPair): PairScales {
  return {
    baseInternal: BigInt(p.scales.baseInternal),
    quoteInternal: BigInt(p.scales.quoteInternal),
    baseNative: BigInt(p.scales.baseNative),
    quoteNative: BigInt(p.scales.quoteNative),
  };
}

function calendarOf(pairs: readonly ReportPair[], fallback: CalendarUse): CalendarUse {
  const c = pairs[0]?.calendar as ({ enabled?: boolean } & Partial<CalendarConfig>) | undefined;
  if (c === undefined || typeof c.enabled !== 'boolean') return fallback;
  return { enabled: c.enabled, config: { ...DEFAULT_CALENDAR, ...c } };
}

/** Terms that nothing meets: for the market states of a pair without obligations. */
const NO_TERMS = {
  maxSpread: { unit: 'bps' as const, value: new Decimal(0) },
  minSize: { unit: 'base' as const, value: new Decimal('1e30') },
  target: 1,
  maxSizeRatio: 0,
  stressedSpreadMultiplier: new Decimal(1),
};

const interval = (w: ObligationWindow): Interval => ({ from: w.fromMs, to: w.toMs ?? Number.MAX_SAFE_INTEGER });

function pairDay(store: Store, p: ReportPair, frame: DayFrame, to: number, chainFeeRate: ChainFeeRate): PairDay {
  const o = store.obligations;
  const scales = scalesOf(p);
  const parsed = p.obligations === null ? null : obligationsSchema.safeParse(p.obligations);
  const obligations = parsed?.success === true ? parsed.data : null;
  const rules = new ObligationRules(obligations === null ? NO_TERMS : obligationTerms(obligations), scales);
  const windows = o.windows(frame.from, to, p.pairId);
  const measured = measurePresence({
    from: frame.from,
    to,
    observedFrom: Math.max(frame.from, o.firstRunMs() ?? to),
    schedule: frame.schedule,
    runs: o.runs(frame.from, to),
    market: o.market(p.pairId, frame.from, to),
    exceptions: windows.filter((w) => w.kind === 'exception').map(interval),
    stressed: windows.filter((w) => w.kind === 'stressed').map(interval),
    quotes: o.spans(p.pairId, frame.from, to),
    rules,
  });
  const compliance: Compliance | null =
    obligations === null
      ? null
      : {
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
            obligations.maxSpreadBps !== undefined
              ? `${obligations.maxSpreadBps} bp`
              : `${obligations.maxSpread} quote`,
          minSize:
            obligations.minSize !== undefined ? `${obligations.minSize} base` : `${obligations.minValue} quote value`,
          maxSizeRatio: obligations.maxSizeRatio,
          guard: obligations.guard,
        };
  const segments = obligations === null ? measured.segments.map((s) => ({ ...s, present: false })) : measured.segments;
  const fills = store.orders
    .fills({ pairId: p.pairId, wallet: p.wallet })
    .filter((f) => f.atMs >= frame.from && f.atMs < to)
    .map((f) => ({
      atMs: f.atMs,
      side: f.side,
      role: f.role,
      quantity: quantityFromRaw(f.quantity, scales).toFixed(),
      price: priceFromRaw(f.price, scales).toFixed(),
      fee: quoteFromNative(f.fee, scales).toFixed(),
      txHash: f.txHash,
    }));
  const counts = store.db
    .prepare(
      `SELECT COUNT(*) AS placed,
              SUM(CASE WHEN status IN ('resting', 'partiallyFilled', 'filled', 'cancelled', 'cancelRequested') THEN 1 ELSE 0 END) AS rested,
              SUM(CASE WHEN status = 'filled' THEN 1 ELSE 0 END) AS filled,
              SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END) AS cancelled,
              SUM(CASE WHEN status = 'rejected' THEN 1 ELSE 0 END) AS rejected
         FROM orders WHERE pair_id = ? AND wallet = ? AND created_ms >= ? AND created_ms < ? AND status <> 'intended'`,
    )
    .get(p.pairId, p.wallet, frame.from, to) as Record<string, number | null>;
  const rejections = (
    store.db
      .prepare(
        `SELECT COALESCE(rejection_code, rejection_reason, 'unknown') AS reason, COUNT(*) AS n FROM orders
          WHERE pair_id = ? AND wallet = ? AND status = 'rejected' AND created_ms >= ? AND created_ms < ? GROUP BY 1 ORDER BY n DESC, reason`,
      )
      .all(p.pairId, p.wallet, frame.from, to) as Array<{ reason: string; n: number }>
  ).map((r) => ({ reason: r.reason, count: Number(r.n) }));
  const samples = o.samples(p.pairId, frame.from, to);
  return {
    pairId: p.pairId,
    symbol: p.symbol,
    chain: p.chain,
    wallet: p.wallet,
    obligations,
    compliance,
    segments,
    samples,
    fairValues: store.fairValues.samples(p.pairId, frame.from, to),
    fills,
    breaches: o.breaches(frame.from, to, p.pairId),
    orders: {
      placed: Number(counts.placed ?? 0),
      rested: Number(counts.rested ?? 0),
      filled: Number(counts.filled ?? 0),
      cancelled: Number(counts.cancelled ?? 0),
      rejected: Number(counts.rejected ?? 0),
    },
    rejections,
    start: samples[0] ?? null,
    end: samples.at(-1) ?? null,
    evaluation: evaluationDay(store, p, scales, { from: frame.from, to }, samples, chainFeeRate),
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
