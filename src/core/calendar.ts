/**
 * The trading calendar: 08:00 to 17:00 Europe/Berlin on weekdays that are not configured holidays, following
 * German daylight-saving time. Pure: every function takes the instant it reasons about.
 */
export const VENUE_TIME_ZONE = 'Europe/Berlin';

export interface CalendarConfig {
  /** Local dates `YYYY-MM-DD` (Berlin) with no trading. */
  readonly holidays: readonly string[];
  /** Local opening and closing time, `HH:MM`. */
  readonly open: string;
  readonly close: string;
  /** Minutes after the close at which resting GFD orders are cleared. */
  readonly clearingDelayMinutes: number;
}

/** Whether the trading calendar is followed (a venue that is always open does not), and which. */
export interface CalendarUse {
  readonly enabled: boolean;
  readonly config: CalendarConfig;
}

export const DEFAULT_CALENDAR: CalendarConfig = {
  holidays: [],
  open: '08:00',
  close: '17:00',
  clearingDelayMinutes: 5,
};

export interface LocalDateTime {
  readonly date: string; // YYYY-MM-DD
  readonly weekday: number; // 1 = Monday .. 7 = Sunday
  readonly minutes: number; // minutes since local midnight
}

const formatter = new Intl.DateTimeFormat('en-GB', {
  timeZone: VENUE_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  weekday: 'short',
  hourCycle: 'h23',
});
const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

/** The last minute asked for: the same reading for every instant of it (the venue's offsets are whole minutes). */
let lastMinute: { minute: number; local: LocalDateTime } | null = null;

export function toVenueLocal(instantMs: number): LocalDateTime {
  const minute = Math.floor(instantMs / 60_000);
  if (lastMinute?.minute === minute) return lastMinute.local;
  const parts: Record<string, string> = {};
  for (const p of formatter.formatToParts(new Date(instantMs))) parts[p.type] = p.value;
  const local = {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    weekday: WEEKDAYS[parts.weekday ?? ''] ?? 0,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
  lastMinute = { minute, local };
  return local;
}

/**
 * The venue's wall-clock reading of an instant, expressed as if it were UTC milliseconds (so that a UTC time
 * scale shows venue time).
 */
export function venueWallMs(instantMs: number): number {
  const p: Record<string, string> = {};
  for (const x of formatter.formatToParts(new Date(instantMs))) p[x.type] = x.value;
  const wall = Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
  return wall + (((instantMs % 1000) + 1000) % 1000);
}

function parseHhMm(text: string): number {
  const m = /^([01][0-9]|2[0-3]):([0-5][0-9])$/.exec(text);
  if (!m) throw new RangeError(`time ${JSON.stringify(text)} is not HH:MM`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/** The UTC instant of a Berlin local date and time (for the ambiguous autumn hour, the first occurrence). */
export function venueLocalToInstant(date: string, minutes: number): number {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const naive = Date.UTC(y, mo - 1, d, Math.floor(minutes / 60), minutes % 60);
  // Berlin is UTC+1 or UTC+2: try both offsets, keep the one that maps back.
  for (const offsetHours of [2, 1]) {
    const candidate = naive - offsetHours * 3_600_000;
    const local = toVenueLocal(candidate);
    if (local.date === date && local.minutes === minutes) return candidate;
  }
  // Inside the spring-forward gap: the wall clock skips this time; use the instant just after the gap.
  return naive - 3_600_000;
}

export function isTradingDay(date: string, weekday: number, calendar: CalendarConfig): boolean {
  return weekday >= 1 && weekday <= 5 && !calendar.holidays.includes(date);
}

/** True while the calendar's trading hours are running (the venue's status decides whether orders are accepted). */
export function isWithinTradingHours(instantMs: number, calendar: CalendarConfig = DEFAULT_CALENDAR): boolean {
  const local = toVenueLocal(instantMs);
  return (
    isTradingDay(local.date, local.weekday, calendar) &&
    local.minutes >= parseHhMm(calendar.open) &&
    local.minutes < parseHhMm(calendar.close)
  );
}

function addDays(date: string, days: number): { date: string; weekday: number } {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, mo - 1, d + days));
  const iso = t.toISOString().slice(0, 10);
  const weekday = ((t.getUTCDay() + 6) % 7) + 1;
  return { date: iso, weekday };
}

export interface Session {
  readonly date: string;
  readonly openMs: number;
  readonly closeMs: number;
  readonly clearingMs: number;
}

/** The session running at `instantMs`, or the next one to start after it. */
export function nextSession(instantMs: number, calendar: CalendarConfig = DEFAULT_CALENDAR): Session {
  const today = toVenueLocal(instantMs);
  for (let i = 0; i < 400; i++) {
    const day = i === 0 ? { date: today.date, weekday: today.weekday } : addDays(today.date, i);
    if (!isTradingDay(day.date, day.weekday, calendar)) continue;
    const closeMs = venueLocalToInstant(day.date, parseHhMm(calendar.close));
    if (closeMs <= instantMs) continue;
    return {
      date: day.date,
      openMs: venueLocalToInstant(day.date, parseHhMm(calendar.open)),
      closeMs,
      clearingMs: closeMs + calendar.clearingDelayMinutes * 60_000,
    };
  }
  throw new RangeError('no trading day within 400 days; check the holiday list');
}

/** Milliseconds until the close of the running session; null when the market is outside trading hours. */
export function msUntilClose(instantMs: number, calendar: CalendarConfig = DEFAULT_CALENDAR): number | null {
  if (!isWithinTradingHours(instantMs, calendar)) return null;
  return nextSession(instantMs, calendar).closeMs - instantMs;
}

export type ContractPhase = number | string | null | undefined;

/** Chain A reports the phase as uint8 (1 = open); chain B as a string enum ("OpenForTrading" = open). */
export function isPhaseOpen(chain: 'evm' | 'wasm', phase: ContractPhase): boolean {
  return chain === 'evm' ? phase === 1 : phase === 'OpenForTrading';
}

export interface MarketOpenInput {
  readonly nowMs: number;
  readonly tradingStatus: string | null | undefined;
  readonly chain: 'evm' | 'wasm';
  readonly phase: ContractPhase;
  readonly calendar?: CalendarConfig;
  /** When false, the calendar is not consulted (the venue's status and phase alone decide). */
  readonly useCalendar?: boolean;
}

/**
 * Open means: inside trading hours (unless disabled), `tradingStatus === "CONTINUOUS_TRADING"` exactly, and the
 * contract phase open. Any other value of either means closed.
 */
export function isMarketOpen(input: MarketOpenInput): boolean {
  if ((input.useCalendar ?? true) && !isWithinTradingHours(input.nowMs, input.calendar ?? DEFAULT_CALENDAR))
    return false;
  return input.tradingStatus === 'CONTINUOUS_TRADING' && isPhaseOpen(input.chain, input.phase);
}
