/**
 * Day-count conventions: the fraction of a year between two dates, exact (a ratio of whole day counts, divided at
 * the project's 200 digits).
 */
import { Decimal } from '../decimal.ts';
import { actualDays, bondInputError, type PlainDate } from './dates.ts';

export const DAY_COUNTS = ['ACT/ACT-ICMA', '30E/360', '30/360', 'ACT/360', 'ACT/365F'] as const;
export type DayCount = (typeof DAY_COUNTS)[number];

export function parseDayCount(text: string): DayCount {
  const found = DAY_COUNTS.find((d) => d === text);
  if (found === undefined)
    throw bondInputError(`day count ${JSON.stringify(text)} is not one of ${DAY_COUNTS.join(', ')}`, { value: text });
  return found;
}

/** A coupon period as the schedule would have it regular: what ACT/ACT-ICMA divides by. */
export interface ReferencePeriod {
  readonly start: PlainDate;
  readonly end: PlainDate;
}

function thirty(d1: PlainDate, d2: PlainDate, day1: number, day2: number): number {
  return 360 * (d2.year - d1.year) + 30 * (d2.month - d1.month) + (day2 - day1);
}

/** 30E/360 (Eurobond basis, ISDA 2006 4.16(g)): a 31st counts as the 30th, at either end. */
export function days30E360(d1: PlainDate, d2: PlainDate): number {
  return thirty(d1, d2, Math.min(d1.day, 30), Math.min(d2.day, 30));
}

/** 30/360 Bond Basis (ISDA 2006 4.16(f)): D1 31 becomes 30; D2 31 becomes 30 when D1 is then 30. */
export function days30360(d1: PlainDate, d2: PlainDate): number {
  const day1 = Math.min(d1.day, 30);
  const day2 = d2.day === 31 && day1 === 30 ? 30 : d2.day;
  return thirty(d1, d2, day1, day2);
}

/**
 * The year fraction from `from` to `to`. ACT/ACT-ICMA needs the reference period that holds both dates and the
 * coupon frequency: actual days / (actual days of the reference period × frequency). The others ignore both.
 */
export function yearFraction(
  dayCount: DayCount,
  from: PlainDate,
  to: PlainDate,
  reference: ReferencePeriod,
  frequency: number,
): Decimal {
  switch (dayCount) {
    case 'ACT/ACT-ICMA':
      return new Decimal(actualDays(from, to)).div(actualDays(reference.start, reference.end) * frequency);
    case '30E/360':
      return new Decimal(days30E360(from, to)).div(360);
    case '30/360':
      return new Decimal(days30360(from, to)).div(360);
    case 'ACT/360':
      return new Decimal(actualDays(from, to)).div(360);
    case 'ACT/365F':
      return new Decimal(actualDays(from, to)).div(365);
  }
}
