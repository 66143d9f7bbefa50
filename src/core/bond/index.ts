/**
 * Exact bond arithmetic per 100 nominal of a fixed-coupon bond: the coupon schedule, day counts, accrued
 * interest, price from yield and yield from price (ICMA yield, compounded at the coupon frequency).
 */
export {
  addMonths,
  actualDays,
  compareDates,
  formatPlainDate,
  isLastDayOfMonth,
  parsePlainDate,
  type PlainDate,
} from './dates.ts';
export {
  DAY_COUNTS,
  days30360,
  days30E360,
  parseDayCount,
  yearFraction,
  type DayCount,
  type ReferencePeriod,
} from './day-count.ts';
export {
  FREQUENCIES,
  couponSchedule,
  parseFrequency,
  type CouponPeriod,
  type CouponSchedule,
  type Frequency,
} from './schedule.ts';
export { couponAmount, settle, type BondTerms, type CashFlow, type SettledBond } from './cash-flows.ts';
export { WORKING_DIGITS } from './discount.ts';
export { accruedInterest, priceFromYield, type BondPrice } from './price.ts';
export { MAX_YIELD_ITERATIONS, YIELD_TOLERANCE_PERCENT, yieldFromCleanPrice } from './yield.ts';
