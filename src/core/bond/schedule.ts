/**
 * The coupon schedule: generated backward from maturity by 12/frequency months, unadjusted (no business-day
 * rule). When maturity is the last day of its month, every coupon date is the last day of its month (end-of-month
 * rule: a bond maturing 28 February 2031 pays on 31 August and on 28 or 29 February). Otherwise each coupon date
 * keeps maturity's day, or the month's last day when the month is shorter (30 August, then 28 February).
 * When the issue date is not on the schedule, the first period runs from the issue date to the first coupon date
 * and is short: its reference period is the regular period that would have ended on that coupon date.
 */
import { addMonths, bondInputError, compareDates, formatPlainDate, isLastDayOfMonth, type PlainDate } from './dates.ts';
import type { ReferencePeriod } from './day-count.ts';

export const FREQUENCIES = [1, 2, 4, 12] as const;
/** Coupons a year. */
export type Frequency = (typeof FREQUENCIES)[number];

export function parseFrequency(text: string): Frequency {
  const found = FREQUENCIES.find((f) => String(f) === text);
  if (found === undefined)
    throw bondInputError(`frequency ${JSON.stringify(text)} is not one of ${FREQUENCIES.join(', ')}`, { value: text });
  return found;
}

export interface CouponPeriod {
  /** Accrual start: the previous coupon date, or the issue date for the first period. */
  readonly start: PlainDate;
  /** Accrual end and payment date. */
  readonly end: PlainDate;
  /** The regular period ending on `end`: the period itself, or for a short first period one that starts earlier. */
  readonly reference: ReferencePeriod;
  readonly regular: boolean;
}

export interface CouponSchedule {
  /** Whether the end-of-month rule applies (maturity is the last day of its month). */
  readonly endOfMonth: boolean;
  /** In date order; the last ends at maturity. */
  readonly periods: readonly CouponPeriod[];
}

/** The schedule of a bond issued on `issue` and maturing on `maturity`, paying `frequency` coupons a year. */
export function couponSchedule(issue: PlainDate, maturity: PlainDate, frequency: Frequency): CouponSchedule {
  if (compareDates(issue, maturity) >= 0)
    throw bondInputError(`issue date ${formatPlainDate(issue)} is not before maturity ${formatPlainDate(maturity)}`);
  const endOfMonth = isLastDayOfMonth(maturity);
  const months = 12 / frequency;
  // Schedule dates from maturity backward while on or after the issue date; `before` is the first one before it.
  const dates: PlainDate[] = [maturity];
  let before = addMonths(maturity, -months, endOfMonth);
  while (compareDates(before, issue) >= 0) {
    dates.unshift(before);
    before = addMonths(maturity, -months * dates.length, endOfMonth);
  }
  const periods: CouponPeriod[] = [];
  const first = dates[0] as PlainDate;
  if (compareDates(first, issue) !== 0)
    periods.push({ start: issue, end: first, reference: { start: before, end: first }, regular: false });
  for (let i = 1; i < dates.length; i++) {
    const start = dates[i - 1] as PlainDate;
    const end = dates[i] as PlainDate;
    periods.push({ start, end, reference: { start, end }, regular: true });
  }
  return { endOfMonth, periods };
}
