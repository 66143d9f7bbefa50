import { describe, expect, it } from 'vitest';
import {
  DAY_COUNTS,
  FREQUENCIES,
  YIELD_TOLERANCE_PERCENT,
  priceFromYield,
  yieldFromCleanPrice,
} from '../../../../src/core/bond/index.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { bond, date } from '../../../support/bond/terms.ts';
import { thrown } from '../../../support/errors.ts';

describe('yield from clean price', () => {
  it('undoes price from yield under every day count and frequency, for negative, zero and high yields', () => {
    const settlement = date('2024-11-04');
    const misses: string[] = [];
    for (const dayCount of DAY_COUNTS)
      for (const frequency of FREQUENCIES)
        for (const y of ['-1.25', '0', '4.5', '25']) {
          const terms = bond('4.25', '2021-03-17', '2031-09-15', frequency, dayCount);
          const priced = priceFromYield(terms, settlement, new Decimal(y));
          const solved = yieldFromCleanPrice(terms, settlement, priced.cleanPrice);
          if (solved.yieldPercent.sub(y).abs().gt(YIELD_TOLERANCE_PERCENT))
            misses.push(`${dayCount} ${frequency}/year at ${y}%: ${solved.yieldPercent.toString()}`);
        }
    expect(misses).toEqual([]);
  });

  it('returns the clean price given, the accrued interest and their sum', () => {
    const terms = bond('5', '2020-03-10', '2030-06-15', 2);
    const r = yieldFromCleanPrice(terms, date('2024-11-04'), new Decimal('97.5'));
    expect(r.cleanPrice).toEqual(new Decimal('97.5'));
    expect(r.accruedInterest).toEqual(new Decimal(2.5 * 142).div(183));
    expect(r.dirtyPrice).toEqual(r.cleanPrice.add(r.accruedInterest));
    expect(r.yieldPercent.gt(5)).toBe(true);
  });

  it('a bond at par on a coupon date yields its coupon', () => {
    const r = yieldFromCleanPrice(bond('3.75', '2020-06-15', '2030-06-15', 4), date('2025-03-15'), new Decimal(100));
    expect(r.yieldPercent.sub('3.75').abs().lt(YIELD_TOLERANCE_PERCENT)).toBe(true);
  });

  it('a zero coupon above 100 has a negative yield: (100 / price)^(1/periods) − 1', () => {
    const r = yieldFromCleanPrice(bond('0', '2020-06-15', '2030-06-15', 1), date('2025-06-15'), new Decimal(101));
    const expected = new Decimal(100).div(101).pow(new Decimal(1).div(5)).sub(1).mul(100);
    expect(r.yieldPercent.isNegative()).toBe(true);
    expect(r.yieldPercent.sub(expected).abs().lt(YIELD_TOLERANCE_PERCENT)).toBe(true);
  });

  it('refuses a price no yield fits', () => {
    const terms = bond('5', '2020-03-10', '2030-06-15', 2);
    // The dirty price is not above zero.
    expect(thrown(() => yieldFromCleanPrice(terms, date('2024-11-04'), new Decimal(-2))).message).toMatch(
      /no yield fits/,
    );
    expect(thrown(() => yieldFromCleanPrice(terms, date('2024-12-15'), new Decimal(0))).code).toBe('E_BOND_INPUT');
    // A clean price of 0 with interest accrued is a dirty price above zero: a (very high) yield fits.
    expect(yieldFromCleanPrice(terms, date('2024-11-04'), new Decimal(0)).yieldPercent.gt(1000)).toBe(true);
    // A day before maturity, 1000 would need a yield within 2^-200 of -100% a period.
    expect(thrown(() => yieldFromCleanPrice(terms, date('2030-06-14'), new Decimal(1000))).message).toMatch(
      /no yield fits/,
    );
  });

  it('refuses a price below what no yield can discount: a coupon 0 periods away under 30E/360', () => {
    // Settling on 30 December, the coupon of 31 December is 30 − 30 = 0 days (no periods) away: worth 0.5 at any yield.
    const terms = bond('6', '2029-01-31', '2030-01-31', 12, '30E/360');
    expect(thrown(() => yieldFromCleanPrice(terms, date('2029-12-30'), new Decimal('-0.25'))).message).toMatch(
      /no yield fits the dirty price 0\.25: it is below the value even at a yield of/,
    );
    expect(yieldFromCleanPrice(terms, date('2029-12-30'), new Decimal('99')).yieldPercent.gt(0)).toBe(true);
  });

  it('refuses a settlement outside the bond’s life, as pricing does', () => {
    const terms = bond('5', '2020-03-10', '2030-06-15', 2);
    expect(thrown(() => yieldFromCleanPrice(terms, date('2030-06-15'), new Decimal(100))).code).toBe('E_BOND_INPUT');
    expect(thrown(() => yieldFromCleanPrice(terms, date('2019-01-01'), new Decimal(100))).code).toBe('E_BOND_INPUT');
  });
});
