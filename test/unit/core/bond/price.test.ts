import { describe, expect, it } from 'vitest';
import { accruedInterest, formatPlainDate, priceFromYield, settle } from '../../../../src/core/bond/index.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { bond, date } from '../../../support/bond/terms.ts';
import { thrown } from '../../../support/errors.ts';

/** How far apart two figures are, as a number for the assertion's message. */
const gap = (value: Decimal, expected: Decimal) => value.sub(expected).abs().toNumber();
const ratio = (a: number, b: number) => new Decimal(a).div(b);

// 5% semi-annual, issued 10 March 2020 (a short first period to 15 June 2020), maturing 15 June 2030.
const fivePercent = bond('5', '2020-03-10', '2030-06-15', 2);

describe('accrued interest', () => {
  it('is the period coupon times the day count’s fraction from the last coupon date to settlement', () => {
    // 15 June to 4 November 2024: 142 actual days of 183, 139 days in 30/360.
    const settlement = date('2024-11-04');
    expect(accruedInterest(fivePercent, settlement)).toEqual(ratio(2.5 * 142, 183));
    expect(accruedInterest({ ...fivePercent, dayCount: '30/360' }, settlement)).toEqual(ratio(5 * 139, 360));
    expect(accruedInterest({ ...fivePercent, dayCount: '30E/360' }, settlement)).toEqual(ratio(5 * 139, 360));
    expect(accruedInterest({ ...fivePercent, dayCount: 'ACT/360' }, settlement)).toEqual(ratio(5 * 142, 360));
    expect(accruedInterest({ ...fivePercent, dayCount: 'ACT/365F' }, settlement)).toEqual(ratio(5 * 142, 365));
  });

  it('runs from the issue date in a short first period, against its reference period', () => {
    // Reference period 15 September 2024 to 15 March 2025 (181 days); 34 days from 1 October to 4 November.
    const stub = bond('5.5', '2024-10-01', '2031-09-15', 2);
    expect(accruedInterest(stub, date('2024-11-04'))).toEqual(ratio(2.75 * 34, 181));
    expect(accruedInterest(stub, date('2024-10-01')).isZero()).toBe(true);
  });

  it('is zero on a coupon date', () => {
    expect(accruedInterest(fivePercent, date('2024-12-15')).isZero()).toBe(true);
    expect(accruedInterest({ ...fivePercent, dayCount: 'ACT/360' }, date('2024-12-15')).isZero()).toBe(true);
  });
});

describe('price from yield', () => {
  it('a bond yielding its coupon is at par on a coupon date', () => {
    const p = priceFromYield(fivePercent, date('2024-12-15'), new Decimal(5));
    expect(gap(p.cleanPrice, new Decimal(100))).toBeLessThan(1e-30);
    expect(p.accruedInterest.isZero()).toBe(true);
    expect(gap(p.dirtyPrice, new Decimal(100))).toBeLessThan(1e-30);
    expect(p.yieldPercent).toEqual(new Decimal(5));
  });

  it('between coupon dates its dirty price grows at the yield for the part of the period run', () => {
    // Worth 100 on 15 June 2024, then compounded for 142/183 of a period at 2.5% a period.
    const p = priceFromYield(fivePercent, date('2024-11-04'), new Decimal(5));
    expect(gap(p.dirtyPrice, new Decimal(100).mul(new Decimal('1.025').pow(ratio(142, 183))))).toBeLessThan(1e-30);
    expect(gap(p.cleanPrice, p.dirtyPrice.sub(p.accruedInterest))).toBeLessThan(1e-30);
  });

  it('a zero coupon discounts its redemption over whole periods, negative yields too', () => {
    const zero = bond('0', '2020-06-15', '2030-06-15', 1);
    expect(
      gap(
        priceFromYield(zero, date('2025-06-15'), new Decimal('-0.5')).cleanPrice,
        new Decimal(100).div(new Decimal('0.995').pow(5)),
      ),
    ).toBeLessThan(1e-30);
    expect(
      gap(
        priceFromYield(zero, date('2025-06-15'), new Decimal('3')).cleanPrice,
        new Decimal(100).div(new Decimal('1.03').pow(5)),
      ),
    ).toBeLessThan(1e-30);
  });

  it('ACT/360 counts a period as frequency × its days / 360 periods, as QuantLib does', () => {
    // One half-year of 182 days left: 2 × 182/360 periods.
    const zero = bond('0', '2029-12-15', '2030-06-15', 2, 'ACT/360');
    const p = priceFromYield(zero, date('2029-12-15'), new Decimal(4));
    expect(gap(p.dirtyPrice, new Decimal(100).div(new Decimal('1.02').pow(ratio(2 * 182, 360))))).toBeLessThan(1e-30);
  });

  it('leaves out the coupon paid on the settlement date, and counts the rest from there', () => {
    const onDate = settle(fivePercent, date('2024-12-15'));
    expect(formatPlainDate(onDate.flows[0]!.date)).toBe('2025-06-15');
    expect(onDate.flows[0]!.periods).toEqual(new Decimal(1));
    expect(onDate.flows).toHaveLength(11);
    const dayBefore = settle(fivePercent, date('2024-12-14'));
    expect(formatPlainDate(dayBefore.flows[0]!.date)).toBe('2024-12-15');
    expect(gap(dayBefore.flows[0]!.periods, ratio(1, 183))).toBeLessThan(1e-30);
    expect(dayBefore.flows.at(-1)!.amount).toEqual(new Decimal('102.5'));
  });

  it('refuses a settlement before issue or not before maturity, a negative coupon, a yield at or below -100% a period', () => {
    const y = new Decimal(4);
    expect(thrown(() => priceFromYield(fivePercent, date('2020-03-09'), y)).message).toMatch(/before the issue date/);
    expect(thrown(() => priceFromYield(fivePercent, date('2030-06-15'), y)).message).toMatch(/not before maturity/);
    expect(thrown(() => priceFromYield(fivePercent, date('2031-01-01'), y)).code).toBe('E_BOND_INPUT');
    expect(thrown(() => priceFromYield(bond('-1', '2020-03-10', '2030-06-15', 2), date('2024-01-01'), y)).code).toBe(
      'E_BOND_INPUT',
    );
    expect(thrown(() => priceFromYield(fivePercent, date('2024-01-01'), new Decimal(-200))).message).toMatch(/-200%/);
    expect(thrown(() => priceFromYield(fivePercent, date('2024-01-01'), new Decimal(-250))).code).toBe('E_BOND_INPUT');
    expect(priceFromYield(fivePercent, date('2024-01-01'), new Decimal(-199)).cleanPrice.gt(1e6)).toBe(true);
  });
});
