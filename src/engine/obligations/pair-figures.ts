/**
 * A pair's figures of the day (see tracker.ts): the part of the day older than a few minutes is measured once
 * and kept (settled-day.ts), the rest measured at each evaluation; with the quotes resting now and the windows
 * in force they make the pair's snapshot, and the presence alert follows it.
 */
import {
  absenceLeftMs,
  assessQuotes,
  measurePresence,
  type Interval,
  type ObligationRules,
} from '../../core/obligations.ts';
import type { ObligationStore, ObligationWindow, WindowKind } from '../../store/obligation-store.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { CalendarUse } from '../../core/calendar.ts';
import { dayOf, scheduledAfter, type DayFrame } from './day-frame.ts';
import { presenceAlert } from './obligation-view.ts';
import { SettledDay } from './settled-day.ts';
import type { Tracked } from './tracked-pair.ts';

/** Stretches older than this are measured once and kept. */
const SETTLE_AFTER_MS = 45_000;
/** What stays open (an event landing before it goes back to a checkpoint: see settled-day.ts). */
const KEEP_OPEN_MS = 30_000;

export interface FiguresContext {
  readonly store: ObligationStore;
  readonly calendar: CalendarUse;
  readonly logger: Logger;
}

function interval(window: ObligationWindow): Interval {
  return { from: window.fromMs, to: window.toMs ?? Number.MAX_SAFE_INTEGER };
}

/** Whether a window of this kind covers the pair at `atMs`. */
export function windowAt(store: ObligationStore, pairId: string, atMs: number, kind: WindowKind): boolean {
  return store.windows(atMs, atMs + 1, pairId).some((window) => window.kind === kind);
}

/** The pair's presence from `from` to `to` of the day, from what the store holds. */
function measure(store: ObligationStore, tracked: Tracked, frame: DayFrame, from: number, to: number) {
  const pairId = tracked.pair.binding.pairId;
  const first = store.firstRunMs() ?? to;
  const windows = store.windows(from, to, pairId);
  return measurePresence({
    from,
    to,
    observedFrom: Math.max(frame.from, first),
    schedule: frame.schedule,
    runs: store.runs(from, to),
    market: store.market(pairId, from, to),
    exceptions: windows.filter((window) => window.kind === 'exception').map(interval),
    stressed: windows.filter((window) => window.kind === 'stressed').map(interval),
    quotes: store.spans(pairId, from, to),
    rules: tracked.rules as ObligationRules,
  });
}

/** Works out the pair's snapshot as of `now` (a pair without obligations has none) and its presence alert. */
export function evaluatePair(tracked: Tracked, now: number, context: FiguresContext): void {
  tracked.evaluatedMs = now;
  if (tracked.rules === null || tracked.pair.obligations === null) return;
  const { store, calendar } = context;
  const pairId = tracked.pair.binding.pairId;
  const frame = dayOf(now, calendar);
  if (tracked.settled === null || tracked.settled.day !== frame.date)
    tracked.settled = new SettledDay(frame.date, frame.from);
  const settled = tracked.settled;
  if (now - settled.upTo > SETTLE_AFTER_MS)
    settled.extend(now - KEEP_OPEN_MS, measure(store, tracked, frame, settled.upTo, now - KEEP_OPEN_MS));
  const recent = measure(store, tracked, frame, settled.upTo, now);
  const continuousMs = settled.continuousMs + recent.continuousMs;
  const presentMs = settled.presentMs + recent.presentMs;
  // The windows covering the pair now, read once for both kinds.
  const windowsNow = store.windows(now, now + 1, pairId);
  const stressed = windowsNow.some((window) => window.kind === 'stressed');
  const live = assessQuotes(store.spans(pairId, now, now + 1), tracked.rules, stressed);
  const exception = windowsNow.some((window) => window.kind === 'exception');
  const target = tracked.rules.terms.target;
  const left = absenceLeftMs(presentMs, continuousMs, scheduledAfter(frame, now), target);
  const config = tracked.pair.obligations;
  const breach = tracked.breach;
  tracked.snapshot = {
    pairId,
    symbol: tracked.pair.binding.symbol,
    day: frame.date,
    atMs: now,
    target,
    presence: continuousMs > 0 ? presentMs / continuousMs : null,
    presentMs,
    continuousMs,
    compliantNow: live.compliant,
    shortfall: live.shortfall,
    market: exception ? 'exception' : (tracked.market?.state ?? 'closed'),
    stressed,
    spreadBps: live.spreadBps,
    maxSpreadBps: live.maxSpreadBps,
    bidSize: live.bidSize?.toFixed() ?? null,
    askSize: live.askSize?.toFixed() ?? null,
    minSize: tracked.rules.terms.minSize.value.toFixed(),
    sizeUnit: tracked.rules.terms.minSize.unit,
    absenceLeftMs: left,
    targetReachable: left >= 0,
    guard: config.guard,
    breach: breach === null ? null : { limit: breach.limit, detail: breach.detail, sinceMs: breach.sinceMs },
  };
  tracked.alert = presenceAlert(context.logger, tracked.alert, tracked.snapshot, config.alertMarginMs ?? 0);
}
