/**
 * Calendar dates of the bond arithmetic: a plain year-month-day (proleptic Gregorian, no time, no zone).
 * Day numbers come from integer arithmetic, so nothing here reads a clock or depends on the machine's zone.
 */
import { DltError } from '../errors.ts';

export interface PlainDate {
  readonly year: number;
  /** 1 = January .. 12 = December. */
  readonly month: number;
  readonly day: number;
}

/** The error of every bad input to the bond arithmetic. */
export function bondInputError(message: string, details: Readonly<Record<string, unknown>> = {}): DltError {
  return new DltError('E_BOND_INPUT', message, { details });
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Parses `YYYY-MM-DD` (years 0001 to 9999); anything else, or a day the month does not have, is an error. */
export function parsePlainDate(text: string, field: string): PlainDate {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(text);
  const [year, month, day] = m === null ? [0, 0, 0] : [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
    throw bondInputError(`${field}: ${JSON.stringify(text)} is not a date YYYY-MM-DD`, { field, value: text });
  return { year, month, day };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

export function formatPlainDate(date: PlainDate): string {
  return `${pad(date.year, 4)}-${pad(date.month, 2)}-${pad(date.day, 2)}`;
}

/** Days since 1970-01-01 (negative before it): the civil-from-days algorithm run backwards. */
export function dayNumber(date: PlainDate): number {
  const y = date.month <= 2 ? date.year - 1 : date.year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (date.month + (date.month > 2 ? -3 : 9)) + 2) / 5) + date.day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** Actual days from `from` to `to` (negative when `to` is earlier). */
export function actualDays(from: PlainDate, to: PlainDate): number {
  return dayNumber(to) - dayNumber(from);
}

/** Negative, zero or positive as `a` is before, on or after `b`. */
export function compareDates(a: PlainDate, b: PlainDate): number {
  return dayNumber(a) - dayNumber(b);
}

export function isLastDayOfMonth(date: PlainDate): boolean {
  return date.day === daysInMonth(date.year, date.month);
}

/**
 * The date `months` months from `date`. A day the target month lacks becomes its last day (31 January + 1
 * month = 28 or 29 February); with `endOfMonth`, a last day of a month stays a last day (28 February + 6 months =
 * 31 August).
 */
export function addMonths(date: PlainDate, months: number, endOfMonth: boolean): PlainDate {
  const index = date.year * 12 + (date.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  const last = daysInMonth(year, month);
  const day = endOfMonth && isLastDayOfMonth(date) ? last : Math.min(date.day, last);
  return { year, month, day };
}
