/**
 * How the obligations of a pair look from outside: the market state a status shows, a pair's snapshot (for
 * the board, the control endpoint and the report), and its gauges on /metrics.
 */
import { isMarketOpen } from '../../core/calendar.ts';
import type { MarketState, Shortfall } from '../../core/obligations.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import type { PairStatus } from '../loop/venue-status.ts';
import type { CalendarUse } from './day-frame.ts';

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

/** The obligation gauges of every pair, read from the snapshots at every scrape. */
export function registerObligationGauges(m: Metrics, snapshots: () => ObligationSnapshot[]): void {
  const each = (f: (s: ObligationSnapshot) => number | null) => () =>
    snapshots().flatMap((s) => {
      const v = f(s);
      return v === null || !Number.isFinite(v) ? [] : [{ labels: { pair: s.pairId }, value: v }];
    });
  m.derivedGauge(
    {
      name: 'obligation_presence_ratio',
      help: "Share of today's continuous trading time our quotes met the market-making obligations",
      labelNames: ['pair'],
    },
    each((s) => s.presence),
  );
  m.derivedGauge(
    { name: 'obligation_target_ratio', help: 'Presence target of the market-making obligations', labelNames: ['pair'] },
    each((s) => s.target),
  );
  m.derivedGauge(
    {
      name: 'obligation_compliant',
      help: '1 while our resting quotes meet the market-making obligations',
      labelNames: ['pair'],
    },
    each((s) => (s.compliantNow ? 1 : 0)),
  );
  m.derivedGauge(
    {
      name: 'obligation_spread_bps',
      help: 'Spread of our best bid and ask, bp of their midpoint',
      labelNames: ['pair'],
    },
    each((s) => s.spreadBps),
  );
  m.derivedGauge(
    { name: 'obligation_max_spread_bps', help: 'Maximum spread of the obligations in force, bp', labelNames: ['pair'] },
    each((s) => s.maxSpreadBps),
  );
  m.derivedGauge(
    {
      name: 'obligation_min_size',
      help: 'Minimum size of each side (base units, or quote value with unit=quote)',
      labelNames: ['pair', 'unit'],
    },
    () => snapshots().map((s) => ({ labels: { pair: s.pairId, unit: s.sizeUnit }, value: Number(s.minSize) })),
  );
  m.derivedGauge(
    {
      name: 'obligation_size',
      help: 'Size of our best bid and ask in the unit of the minimum',
      labelNames: ['pair', 'side', 'unit'],
    },
    () =>
      snapshots().flatMap((s) => [
        ...(s.bidSize === null
          ? []
          : [{ labels: { pair: s.pairId, side: 'buy', unit: s.sizeUnit }, value: Number(s.bidSize) }]),
        ...(s.askSize === null
          ? []
          : [{ labels: { pair: s.pairId, side: 'sell', unit: s.sizeUnit }, value: Number(s.askSize) }]),
      ]),
  );
  m.derivedGauge(
    {
      name: 'obligation_absence_left_seconds',
      help: 'Absence the day can still take before its presence target is out of reach',
      labelNames: ['pair'],
    },
    each((s) => s.absenceLeftMs / 1000),
  );
  m.derivedGauge(
    { name: 'obligation_continuous_seconds', help: 'Continuous trading time counted today', labelNames: ['pair'] },
    each((s) => s.continuousMs / 1000),
  );
  m.derivedGauge(
    {
      name: 'obligation_present_seconds',
      help: 'Of the continuous trading time today, seconds our quotes met the obligations',
      labelNames: ['pair'],
    },
    each((s) => s.presentMs / 1000),
  );
}

export type PresenceAlert = 'ok' | 'at-risk' | 'unreachable';

/**
 * Whether the day's presence target is within reach (`margin` ms of absence left, or more): a change of state is
 * logged once, at the level it deserves. Returns the state now.
 */
export function presenceAlert(
  logger: Logger,
  was: PresenceAlert,
  s: ObligationSnapshot,
  margin: number,
): PresenceAlert {
  const state = s.absenceLeftMs < 0 ? 'unreachable' : s.absenceLeftMs < margin ? 'at-risk' : 'ok';
  if (state === was) return state;
  const fields = {
    pair: s.pairId,
    presence: s.presence,
    target: s.target,
    absenceLeftMinutes: Math.round(s.absenceLeftMs / 600) / 100,
    day: s.day,
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
