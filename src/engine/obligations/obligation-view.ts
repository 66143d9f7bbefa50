/**
 * How the obligations of a pair look from outside: the market state a status shows, a pair's snapshot (for
 * the board, the control endpoint and the report), and its gauges on /metrics.
 */
import { isMarketOpen } from '../../core/calendar.ts';
import type { MarketState, Shortfall } from '../../core/obligations.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import type { PairStatus } from '../../market/status.ts';
import type { CalendarUse } from '../../core/calendar.ts';

export type MarketNow = MarketState | 'exception';

export interface ObligationSnapshot {
  readonly pairId: string;
  readonly symbol: string;
  /** Trading day (venue local date) the figures are for. */
  readonly day: string;
  readonly atMs: number;
  /** Presence target, 0..1. */
  readonly target: number;
  /** Presence so far today, 0..1; null before any continuous trading time. */
  readonly presence: number | null;
  readonly presentMs: number;
  readonly continuousMs: number;
  /** Our resting quotes meet the terms now (as the chain has shown them). */
  readonly compliantNow: boolean;
  readonly shortfall: Shortfall | null;
  readonly market: MarketNow;
  readonly stressed: boolean;
  /** Spread of our best bid and ask of the minimum size (or of any size), bp of their midpoint. */
  readonly spreadBps: number | null;
  /** The maximum spread in force, bp (an absolute limit converted at our quotes' midpoint). */
  readonly maxSpreadBps: number | null;
  /** Size of each side in the unit of the minimum (base units or quote value), decimal text. */
  readonly bidSize: string | null;
  readonly askSize: string | null;
  readonly minSize: string;
  readonly sizeUnit: 'base' | 'quote';
  /** Absence the day can still take before its target is out of reach, ms; 0 or less: out of reach. */
  readonly absenceLeftMs: number;
  readonly targetReachable: boolean;
  /** Whether the guard keeps the terms (false: measured only). */
  readonly guard: boolean;
  /** The limit forcing a breach now, if any. */
  readonly breach: { readonly limit: string; readonly detail: string; readonly sinceMs: number } | null;
}

const HALTED_PHASES = new Set<number | string>([3, 4, 'ManualHalt', 'AutomaticHalt']);
const AUTOMATIC_PHASES = new Set<number | string>([4, 'AutomaticHalt']);

/** The market a status shows: the order book phase on chain first; the venue's trading status without one. */
export function marketStateOf(
  status: PairStatus,
  chain: 'evm' | 'wasm',
  nowMs: number,
  calendar: CalendarUse,
): { state: MarketState; automaticHalt: boolean } {
  const automaticHalt =
    status.phase !== null ? AUTOMATIC_PHASES.has(status.phase) : status.tradingStatus === 'AUTOMATIC_TRADING_HALT';
  if (status.phase !== null) {
    if (HALTED_PHASES.has(status.phase)) return { state: 'halted', automaticHalt };
    if (
      isMarketOpen({
        nowMs,
        tradingStatus: 'CONTINUOUS_TRADING',
        chain,
        phase: status.phase,
        calendar: calendar.config,
        useCalendar: calendar.enabled,
      })
    )
      return { state: 'continuous', automaticHalt };
    return { state: 'closed', automaticHalt };
  }
  if (status.tradingStatus?.includes('HALT') === true) return { state: 'halted', automaticHalt };
  return { state: status.tradingStatus === 'CONTINUOUS_TRADING' ? 'continuous' : 'closed', automaticHalt };
}

type PairReading = (snapshot: ObligationSnapshot) => number | null;

/** A gauge with one value per pair, read from its snapshot: name, help, reading. */
type PairGauge = readonly [name: string, help: string, read: PairReading];

/** The per-pair gauges of the quotes against the terms, registered before the size gauges. */
const QUOTE_GAUGES: readonly PairGauge[] = [
  [
    'obligation_presence_ratio',
    "Share of today's continuous trading time our quotes met the market-making obligations",
    (snapshot) => snapshot.presence,
  ],
  ['obligation_target_ratio', 'Presence target of the market-making obligations', (snapshot) => snapshot.target],
  [
    'obligation_compliant',
    '1 while our resting quotes meet the market-making obligations',
    (snapshot) => (snapshot.compliantNow ? 1 : 0),
  ],
  ['obligation_spread_bps', 'Spread of our best bid and ask, bp of their midpoint', (snapshot) => snapshot.spreadBps],
  ['obligation_max_spread_bps', 'Maximum spread of the obligations in force, bp', (snapshot) => snapshot.maxSpreadBps],
];

/** The per-pair gauges of the day's time, registered after the size gauges. */
const TIME_GAUGES: readonly PairGauge[] = [
  [
    'obligation_absence_left_seconds',
    'Absence the day can still take before its presence target is out of reach',
    (snapshot) => snapshot.absenceLeftMs / 1000,
  ],
  [
    'obligation_continuous_seconds',
    'Continuous trading time counted today',
    (snapshot) => snapshot.continuousMs / 1000,
  ],
  [
    'obligation_present_seconds',
    'Of the continuous trading time today, seconds our quotes met the obligations',
    (snapshot) => snapshot.presentMs / 1000,
  ],
];

/** Each gauge's value per pair, at every scrape; a pair without a finite value has none. */
function registerPairGauges(
  metrics: Metrics,
  snapshots: () => ObligationSnapshot[],
  gauges: readonly PairGauge[],
): void {
  for (const [name, help, read] of gauges)
    metrics.derivedGauge({ name, help, labelNames: ['pair'] }, () =>
      snapshots().flatMap((snapshot) => {
        const value = read(snapshot);
        return value === null || !Number.isFinite(value) ? [] : [{ labels: { pair: snapshot.pairId }, value }];
      }),
    );
}

/** The minimum size of each pair and the size of our best bid and ask, in the unit of the minimum. */
function registerSizeGauges(metrics: Metrics, snapshots: () => ObligationSnapshot[]): void {
  metrics.derivedGauge(
    {
      name: 'obligation_min_size',
      help: 'Minimum size of each side (base units, or quote value with unit=quote)',
      labelNames: ['pair', 'unit'],
    },
    () =>
      snapshots().map((snapshot) => ({
        labels: { pair: snapshot.pairId, unit: snapshot.sizeUnit },
        value: Number(snapshot.minSize),
      })),
  );
  metrics.derivedGauge(
    {
      name: 'obligation_size',
      help: 'Size of our best bid and ask in the unit of the minimum',
      labelNames: ['pair', 'side', 'unit'],
    },
    () =>
      snapshots().flatMap((snapshot) => [
        ...(snapshot.bidSize === null
          ? []
          : [
              {
                labels: { pair: snapshot.pairId, side: 'buy', unit: snapshot.sizeUnit },
                value: Number(snapshot.bidSize),
              },
            ]),
        ...(snapshot.askSize === null
          ? []
          : [
              {
                labels: { pair: snapshot.pairId, side: 'sell', unit: snapshot.sizeUnit },
                value: Number(snapshot.askSize),
              },
            ]),
      ]),
  );
}

/** The obligation gauges of every pair, read from the snapshots at every scrape. */
export function registerObligationGauges(metrics: Metrics, snapshots: () => ObligationSnapshot[]): void {
  registerPairGauges(metrics, snapshots, QUOTE_GAUGES);
  registerSizeGauges(metrics, snapshots);
  registerPairGauges(metrics, snapshots, TIME_GAUGES);
}

export type PresenceAlert = 'ok' | 'at-risk' | 'unreachable';

/**
 * Whether the day's presence target is within reach (`margin` ms of absence left, or more): a change of state is
 * logged once, at the level it deserves. Returns the state now.
 */
export function presenceAlert(
  logger: Logger,
  was: PresenceAlert,
  snapshot: ObligationSnapshot,
  margin: number,
): PresenceAlert {
  const state = snapshot.absenceLeftMs < 0 ? 'unreachable' : snapshot.absenceLeftMs < margin ? 'at-risk' : 'ok';
  if (state === was) return state;
  const fields = {
    pair: snapshot.pairId,
    presence: snapshot.presence,
    target: snapshot.target,
    absenceLeftMinutes: Math.round(snapshot.absenceLeftMs / 600) / 100,
    day: snapshot.day,
  };
  if (state === 'unreachable') logger.error(fields, 'market-making presence target out of reach for today');
  else if (state === 'at-risk')
    logger.warn(
      fields,
      `market-making presence target at risk: ${fields.absenceLeftMinutes} min of absence left today`,
    );
  else logger.info(fields, 'market-making presence target within reach again');
  return state;
}
