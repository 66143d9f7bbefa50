/**
 * When a fund publishes its NAV, on the sandbox clock: once per trading day. In always-open mode at each
 * day boundary (midnight Europe/Berlin), dated the day that ended; in calendar mode at the close of each
 * trading day, dated that day. Pure: the latest publication at or before an instant.
 */
import { isTradingDay, toVenueLocal, venueLocalToInstant, type CalendarConfig } from '../../core/calendar.ts';
import { DltError } from '../../core/errors.ts';

export interface NavPublication {
  /** Sandbox instant of the publication, epoch ms. */
  readonly atMs: number;
  /** The valuation date, `YYYY-MM-DD`. */
  readonly date: string;
}

export type NavSchedule = (sandboxMs: number) => NavPublication;

const DAY_MS = 86_400_000;
const NOON = 12 * 60;

function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
}

/** The Berlin date `days` days before `date` (stepping from noon, so daylight saving never skips a date). */
function daysBefore(date: string, days: number): { date: string; weekday: number } {
  const local = toVenueLocal(venueLocalToInstant(date, NOON) - days * DAY_MS);
  return { date: local.date, weekday: local.weekday };
}

/** Always-open mode: the last midnight at or before the instant, dated the day before it. */
export function dailyNav(sandboxMs: number): NavPublication {
  const today = toVenueLocal(sandboxMs).date;
  return { atMs: venueLocalToInstant(today, 0), date: daysBefore(today, 1).date };
}

/** Calendar mode: the last close of a trading day at or before the instant, dated that day. */
export function closingNav(calendar: CalendarConfig): NavSchedule {
  const close = minutesOf(calendar.close);
  return (sandboxMs) => {
    const today = toVenueLocal(sandboxMs).date;
    for (let i = 0; i < 400; i++) {
      const day = daysBefore(today, i);
      if (!isTradingDay(day.date, day.weekday, calendar)) continue;
      const atMs = venueLocalToInstant(day.date, close);
      if (atMs <= sandboxMs) return { atMs, date: day.date };
    }
    throw new DltError('E_SANDBOX', 'no trading day in the 400 days before the sandbox time', {
      details: { part: 'nav', sandboxMs },
    });
  };
}
