/**
 * A fixed-coupon bond per 100 nominal: its coupons, the interest accrued at settlement and the cash flows still
 * to come, each with its distance from settlement in coupon periods. Exact: day-count fractions are ratios of day
 * counts at the project's 200 digits.
 */
import { Decimal } from '../decimal.ts';
import { bondInputError, compareDates, formatPlainDate, type PlainDate } from './dates.ts';
import { yearFraction, type DayCount } from './day-count.ts';
import { couponSchedule, type CouponPeriod, type Frequency } from './schedule.ts';

export interface BondTerms {
  /** Coupon in percent of nominal a year; 0 for a zero-coupon bond. */
  readonly couponPercent: Decimal;
  readonly issue: PlainDate;
  readonly maturity: PlainDate;
  readonly frequency: Frequency;
  readonly dayCount: DayCount;
}

export interface CashFlow {
  readonly date: PlainDate;
  /** Per 100 nominal: the coupon, and at maturity the coupon plus the 100 redeemed. */
  readonly amount: Decimal;
  /** Coupon periods from settlement to the payment: what the yield compounds over. */
  readonly periods: Decimal;
}

export interface SettledBond {
  /** Per 100 nominal, at settlement. */
  readonly accruedInterest: Decimal;
  /** The payments after settlement, in date order (a coupon paid on the settlement date is not among them). */
  readonly flows: readonly CashFlow[];
}

const REDEMPTION = new Decimal(100);

/**
 * The coupon of a period per 100 nominal: coupon rate × the day count's fraction of the period. Under
 * ACT/ACT-ICMA a regular period pays exactly coupon/frequency and a short first period that share of it which its
 * days are of its reference period's; under the other day counts the fraction is the period's own (an ACT/360
 * half-year of 181 days pays coupon × 181/360), as QuantLib's FixedRateBond computes it.
 */
export function couponAmount(terms: BondTerms, period: CouponPeriod): Decimal {
  return terms.couponPercent.mul(
    yearFraction(terms.dayCount, period.start, period.end, period.reference, terms.frequency),
  );
}

function checkTerms(terms: BondTerms, settlement: PlainDate): void {
  if (terms.couponPercent.lt(0) || !terms.couponPercent.isFinite())
    throw bondInputError(`coupon ${terms.couponPercent.toString()} is not a percentage of zero or more`);
  if (compareDates(settlement, terms.issue) < 0)
    throw bondInputError(
      `settlement ${formatPlainDate(settlement)} is before the issue date ${formatPlainDate(terms.issue)}`,
    );
  if (compareDates(settlement, terms.maturity) >= 0)
    throw bondInputError(
      `settlement ${formatPlainDate(settlement)} is not before maturity ${formatPlainDate(terms.maturity)}`,
    );
}

/**
 * The bond as of `settlement` (on or after the issue date, before maturity). Accrued interest runs from the start
 * of the current period to settlement (zero on a coupon date). The first remaining payment is
 * frequency × (fraction of the current period − fraction accrued) periods away, each later one frequency × its
 * period's fraction further: under ACT/ACT-ICMA that is the part of the current period still to run plus whole
 * periods, as QuantLib's CashFlows::npv counts it with the bond's own day count.
 */
export function settle(terms: BondTerms, settlement: PlainDate): SettledBond {
  checkTerms(terms, settlement);
  const { periods } = couponSchedule(terms.issue, terms.maturity, terms.frequency);
  const current = periods.findIndex((p) => compareDates(p.end, settlement) > 0);
  const period = periods[current] as CouponPeriod;
  const f = new Decimal(terms.frequency);
  const accruedFraction = yearFraction(terms.dayCount, period.start, settlement, period.reference, terms.frequency);
  let distance = new Decimal(0).sub(f.mul(accruedFraction));
  const flows: CashFlow[] = [];
  for (const p of periods.slice(current)) {
    distance = distance.add(f.mul(yearFraction(terms.dayCount, p.start, p.end, p.reference, terms.frequency)));
    const coupon = couponAmount(terms, p);
    const amount = compareDates(p.end, terms.maturity) === 0 ? coupon.add(REDEMPTION) : coupon;
    flows.push({ date: p.end, amount, periods: distance });
  }
  return { accruedInterest: terms.couponPercent.mul(accruedFraction), flows };
}
