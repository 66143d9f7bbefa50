/**
 * The bond arithmetic against an independent implementation: QuantLib (Debian's quantlib-python) computes every
 * expected figure while the test runs (test/support/bond/quantlib-reference.py); nothing expected is written here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DAY_COUNTS,
  FREQUENCIES,
  couponAmount,
  couponSchedule,
  formatPlainDate,
  priceFromYield,
  yieldFromCleanPrice,
  type BondPrice,
} from '../../../../src/core/bond/index.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import {
  REFERENCE_CASES,
  quantlibFigures,
  termsOf,
  type ReferenceCase,
  type ReferenceFigures,
} from '../../../support/bond/reference-cases.ts';

const PRICE_TOLERANCE = new Decimal('1e-6');
const YIELD_TOLERANCE = new Decimal('1e-8');
const COUPON_TOLERANCE = new Decimal('1e-9');

let reference: { version: string; results: ReferenceFigures[] };
let rows: { c: ReferenceCase; ql: ReferenceFigures; ours: BondPrice }[];
beforeAll(() => {
  reference = quantlibFigures(REFERENCE_CASES);
  rows = compared();
});

/** Each case with QuantLib's figures and ours. */
function compared(): { c: ReferenceCase; ql: ReferenceFigures; ours: BondPrice }[] {
  return REFERENCE_CASES.map((c, i) => {
    const { terms, settlement } = termsOf(c);
    const ours =
      c.yield !== undefined
        ? priceFromYield(terms, settlement, new Decimal(c.yield))
        : yieldFromCleanPrice(terms, settlement, new Decimal(c.cleanPrice as string));
    return { c, ql: reference.results[i] as ReferenceFigures, ours };
  });
}

/** The figures of a comparison further apart than `tolerance`, named after their case. */
function apart(name: string, figure: string, ours: Decimal, theirs: string, tolerance: Decimal): string[] {
  const diff = ours.sub(theirs).abs();
  return diff.gt(tolerance)
    ? [`${name}: ${figure} ours ${ours.toFixed(12)}, QuantLib ${theirs} (${diff.toExponential(2)})`]
    : [];
}

function label(c: ReferenceCase): string {
  return `${c.name} (${c.dayCount}, ${c.frequency}/year)`;
}

describe(`bond arithmetic against QuantLib`, () => {
  it('the cases hold every day count with every frequency, and the situations that matter', () => {
    const combinations = new Set(REFERENCE_CASES.map((c) => `${c.dayCount} ${c.frequency}`));
    expect(combinations.size).toBe(DAY_COUNTS.length * FREQUENCIES.length);
    const onCouponDate = REFERENCE_CASES.filter((c) => {
      const { terms, settlement } = termsOf(c);
      const periods = couponSchedule(terms.issue, terms.maturity, terms.frequency).periods;
      return periods.some((p) => formatPlainDate(p.end) === formatPlainDate(settlement));
    });
    const shortFirst = REFERENCE_CASES.filter((c) => {
      const { terms } = termsOf(c);
      return !couponSchedule(terms.issue, terms.maturity, terms.frequency).periods[0]?.regular;
    });
    expect(onCouponDate.length).toBeGreaterThanOrEqual(DAY_COUNTS.length);
    expect(shortFirst.length).toBeGreaterThanOrEqual(DAY_COUNTS.length);
    expect(REFERENCE_CASES.some((c) => c.coupon === '0' && c.yield?.startsWith('-'))).toBe(true);
    expect(new Set(REFERENCE_CASES.filter((c) => c.cleanPrice !== undefined).map((c) => c.dayCount)).size).toBe(
      DAY_COUNTS.length,
    );
    expect(REFERENCE_CASES.length).toBeGreaterThanOrEqual(20);
  });

  it('schedules are the same dates and coupons the same amounts', () => {
    const problems = REFERENCE_CASES.flatMap((c, i) => {
      const ql = reference.results[i] as ReferenceFigures;
      const { terms } = termsOf(c);
      const { periods } = couponSchedule(terms.issue, terms.maturity, terms.frequency);
      const dates = [formatPlainDate(terms.issue), ...periods.map((p) => formatPlainDate(p.end))];
      if (dates.join() !== ql.schedule.join())
        return [`${label(c)}: schedule ${dates.join()} vs ${ql.schedule.join()}`];
      return periods.flatMap((p, k) =>
        apart(label(c), `coupon ${k + 1}`, couponAmount(terms, p), ql.coupons[k] as string, COUPON_TOLERANCE),
      );
    });
    expect(problems).toEqual([]);
  });

  it(`clean price, accrued interest and dirty price agree within ${PRICE_TOLERANCE.toString()} per 100`, () => {
    const problems = rows.flatMap(({ c, ql, ours }) => [
      ...apart(label(c), 'clean price', ours.cleanPrice, ql.cleanPrice, PRICE_TOLERANCE),
      ...apart(label(c), 'accrued interest', ours.accruedInterest, ql.accruedInterest, PRICE_TOLERANCE),
      ...apart(label(c), 'dirty price', ours.dirtyPrice, ql.dirtyPrice, PRICE_TOLERANCE),
    ]);
    expect(problems).toEqual([]);
  });

  it(`yields from clean prices agree within ${YIELD_TOLERANCE.toString()} percent`, () => {
    const solved = rows.filter(({ c }) => c.cleanPrice !== undefined);
    expect(solved.length).toBeGreaterThanOrEqual(DAY_COUNTS.length);
    const problems = solved.flatMap(({ c, ql, ours }) =>
      apart(label(c), 'yield', ours.yieldPercent, ql.yield, YIELD_TOLERANCE),
    );
    expect(problems).toEqual([]);
  });
});
