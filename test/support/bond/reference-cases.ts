/**
 * Bond cases for the QuantLib comparison (test/unit/core/bond/quantlib.test.ts), and the call of the reference
 * script. Only inputs live here: every expected figure comes from QuantLib when the test runs.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  DAY_COUNTS,
  FREQUENCIES,
  parsePlainDate,
  type BondTerms,
  type PlainDate,
} from '../../../src/core/bond/index.ts';
import { Decimal } from '../../../src/core/decimal.ts';

export interface ReferenceCase {
  readonly name: string;
  readonly coupon: string;
  readonly issue: string;
  readonly maturity: string;
  readonly settlement: string;
  readonly frequency: (typeof FREQUENCIES)[number];
  readonly dayCount: (typeof DAY_COUNTS)[number];
  /** Percent: QuantLib prices the bond at this yield. */
  readonly yield?: string;
  /** Per 100: QuantLib solves the yield of this clean price. */
  readonly cleanPrice?: string;
}

/** QuantLib's figures of one case, as decimal strings. */
export interface ReferenceFigures {
  readonly schedule: readonly string[];
  readonly coupons: readonly string[];
  readonly cleanPrice: string;
  readonly accruedInterest: string;
  readonly dirtyPrice: string;
  readonly yield: string;
}

type Bond = Omit<ReferenceCase, 'frequency' | 'dayCount'>;
type DayCount = ReferenceCase['dayCount'];
type Frequency = ReferenceCase['frequency'];

/** A bond with the yield (percent) to price it at. */
function atYield(name: string, coupon: string, issue: string, maturity: string, settlement: string, y: string): Bond {
  return { name, coupon, issue, maturity, settlement, yield: y };
}

/** A bond with the clean price to solve the yield of, under one day count and frequency. */
function atPrice(
  bond: Bond,
  name: string,
  cleanPrice: string,
  frequency: Frequency,
  dayCount: DayCount,
): ReferenceCase {
  const { yield: _, ...rest } = bond;
  return { ...rest, name, cleanPrice, frequency, dayCount };
}

/** Bonds of different shapes, spread over the day count × frequency grid below. */
const BONDS = [
  // Issued off the schedule: a short first period at every frequency; settlement after it.
  atYield('short first period', '4.25', '2021-03-17', '2031-09-15', '2024-11-04', '3.8'),
  // End-of-month rule: maturity on 28 February, coupons on the last day of each month.
  atYield('end of month', '6.5', '2023-02-28', '2033-02-28', '2025-05-30', '7.125'),
  atYield('zero coupon, negative yield', '0', '2022-01-10', '2029-07-31', '2026-02-13', '-0.35'),
  // Paying on the 30th: February coupon dates are the 28th or 29th.
  atYield('negative yield, day 30', '2.875', '2024-08-30', '2034-08-30', '2027-02-26', '-0.75'),
  // 15 March 2026 is a coupon date at every frequency.
  atYield('settlement on a coupon date', '3', '2025-01-15', '2027-03-15', '2026-03-15', '3'),
  atYield('last period, high yield', '8', '2019-06-01', '2026-12-01', '2026-10-20', '12'),
  // Quarterly and half-yearly, issued 1 October 2024 inside a short first period that runs to 15 December or March.
  atYield('settlement in a short first period', '5.5', '2024-10-01', '2031-09-15', '2024-11-04', '4.9'),
] as const;
const [shortFirst, endOfMonth, zeroCoupon, , onCouponDate, , inShortFirst] = BONDS;

/** Every day count with every frequency, each on another bond. */
const GRID: readonly ReferenceCase[] = DAY_COUNTS.flatMap((dayCount, i) =>
  FREQUENCIES.map((frequency, j) => ({ ...(BONDS[(i + j) % BONDS.length] as Bond), frequency, dayCount })),
);

const SPECIAL: readonly ReferenceCase[] = [
  ...DAY_COUNTS.map((dayCount) => ({ ...onCouponDate, frequency: 2 as const, dayCount })),
  { ...zeroCoupon, frequency: 1, dayCount: 'ACT/ACT-ICMA' },
  { ...inShortFirst, frequency: 2, dayCount: 'ACT/ACT-ICMA' },
  { ...inShortFirst, name: 'settlement on the issue date', settlement: '2024-10-01', frequency: 4, dayCount: '30/360' },
  // Where 30/360 and 30E/360 part: a period or an accrual ending on a 31st that starts before the 30th.
  { ...endOfMonth, frequency: 2, dayCount: '30/360' },
  ...(['30/360', '30E/360'] as const).map((dayCount) => ({
    ...shortFirst,
    name: 'settlement on a 31st',
    settlement: '2025-05-31',
    frequency: 2 as const,
    dayCount,
  })),
];

/** Yield from a clean price, under every day count. */
const YIELDS: readonly ReferenceCase[] = [
  atPrice(shortFirst, 'yield of a discount bond', '96.375', 2, 'ACT/ACT-ICMA'),
  atPrice(endOfMonth, 'yield of a premium bond', '104.8125', 12, '30E/360'),
  atPrice(inShortFirst, 'yield in a short first period', '99.01', 4, '30/360'),
  atPrice(zeroCoupon, 'negative yield of a zero coupon', '101.25', 1, 'ACT/360'),
  atPrice(onCouponDate, 'yield on a coupon date', '99.5', 2, 'ACT/365F'),
];

export const REFERENCE_CASES: readonly ReferenceCase[] = [...GRID, ...SPECIAL, ...YIELDS];

const script = fileURLToPath(new URL('./quantlib-reference.py', import.meta.url));

/** Runs the QuantLib reference script on the cases; its figures, in the same order. */
export function quantlibFigures(cases: readonly ReferenceCase[]): { version: string; results: ReferenceFigures[] } {
  const out = execFileSync('/usr/bin/python3', [script], { input: JSON.stringify({ cases }), encoding: 'utf8' });
  const parsed = JSON.parse(out) as { quantlib: string; results: ReferenceFigures[] };
  return { version: parsed.quantlib, results: parsed.results };
}

export function termsOf(c: ReferenceCase): { terms: BondTerms; settlement: PlainDate } {
  return {
    terms: {
      couponPercent: new Decimal(c.coupon),
      issue: parsePlainDate(c.issue, 'issue'),
      maturity: parsePlainDate(c.maturity, 'maturity'),
      frequency: c.frequency,
      dayCount: c.dayCount,
    },
    settlement: parsePlainDate(c.settlement, 'settlement'),
  };
}
