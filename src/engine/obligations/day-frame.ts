/**
 * The trading day an instant belongs to (the venue's local date, Europe/Berlin) and its scheduled trading
 * hours: the calendar's session when the calendar is on, the whole day on an always-open venue.
 */
import { isTradingDay, toVenueLocal, venueLocalToInstant, type CalendarUse } from '../../core/calendar.ts';
import type { Interval } from '../../core/obligations.ts';

export interface DayFrame {
  /** YYYY-MM-DD, venue local. */
  readonly date: string;
  readonly from: number;
  readonly to: number;
  readonly schedule: readonly Interval[];
}

function nextDate(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
}

export function isDate(text: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}$/.test(text) &&
    !Number.isNaN(Date.parse(`${text}T12:00:00Z`)) &&
    new Date(`${text}T12:00:00Z`).toISOString().startsWith(text)
  );
}

export function dayFrame(date: string, calendar: CalendarUse): DayFrame {
  const from = venueLocalToInstant(date, 0);
  const to = venueLocalToInstant(nextDate(date), 0);
  if (!calendar.enabled) return { date, from, to, schedule: [{ from, to }] };
  const weekday = toVenueLocal(venueLocalToInstant(date, 720)).weekday;
  if (!isTradingDay(date, weekday, calendar.config)) return { date, from, to, schedule: [] };
  return {
    date,
    from,
    to,
    schedule: [
      {
        from: venueLocalToInstant(date, minutesOf(calendar.config.open)),
        to: venueLocalToInstant(date, minutesOf(calendar.config.close)),
      },
    ],
  };
}

/** Each calendar's last frame, with what it was worked out from: asked for at every figure of every pair. */
const lastFrames = new WeakMap<CalendarUse, { enabled: boolean; config: CalendarUse['config']; frame: DayFrame }>();

export function dayOf(nowMs: number, calendar: CalendarUse): DayFrame {
  const date = toVenueLocal(nowMs).date;
  const last = lastFrames.get(calendar);
  if (
    last !== undefined &&
    last.frame.date === date &&
    last.enabled === calendar.enabled &&
    last.config === calendar.config
  )
    return last.frame;
  const frame = dayFrame(date, calendar);
  lastFrames.set(calendar, { enabled: calendar.enabled, config: calendar.config, frame });
  return frame;
}

/** Scheduled time of the frame still to come after `nowMs`. */
export function scheduledAfter(frame: DayFrame, nowMs: number): number {
  return frame.schedule.reduce((n, s) => n + Math.max(0, s.to - Math.max(s.from, nowMs)), 0);
}
