/**
 * Price from yield, ICMA convention: the yield is compounded at the coupon frequency and each remaining payment
 * is discounted by (1 + y/f)^(−t), t its distance from settlement in coupon periods (see `settle`). Prices are
 * per 100 nominal; the clean price is the dirty price less accrued interest.
 */
import type { Decimal } from '../decimal.ts';
import type { PlainDate } from './dates.ts';
import { settle, type BondTerms } from './cash-flows.ts';
import { valueAtYield } from './discount.ts';

export interface BondPrice {
  /** Per 100 nominal. */
  readonly cleanPrice: Decimal;
  readonly accruedInterest: Decimal;
  readonly dirtyPrice: Decimal;
  /** Percent a year, compounded at the coupon frequency. */
  readonly yieldPercent: Decimal;
}

/** Interest accrued at `settlement` per 100 nominal (zero on a coupon date and on the issue date). */
export function accruedInterest(terms: BondTerms, settlement: PlainDate): Decimal {
  return settle(terms, settlement).accruedInterest;
}

/** Clean, accrued and dirty price at `settlement` for a yield in percent (negative yields above −100%·f too). */
export function priceFromYield(terms: BondTerms, settlement: PlainDate, yieldPercent: Decimal): BondPrice {
  const bond = settle(terms, settlement);
  const { dirtyPrice } = valueAtYield(bond.flows, terms.frequency, yieldPercent);
  return {
    cleanPrice: dirtyPrice.sub(bond.accruedInterest),
    accruedInterest: bond.accruedInterest,
    dirtyPrice,
    yieldPercent,
  };
}
