import { describe, expect, it } from 'vitest';
import {
  FREQUENCIES,
  couponSchedule,
  formatPlainDate,
  parseFrequency,
  parsePlainDate,
  type Frequency,
} from '../../../../src/core/bond/index.ts';
import { thrown } from '../../../support/errors.ts';

const d = (text: string) => parsePlainDate(text, 'date');

/** The schedule as text: every period `start..end`, with its reference period when that differs. */
function periods(issue: string, maturity: string, frequency: Frequency): string[] {
  return couponSchedule(d(issue), d(maturity), frequency).periods.map((p) => {
    const own = `${formatPlainDate(p.start)}..${formatPlainDate(p.end)}`;
    return p.regular ? own : `${own} short, ref ${formatPlainDate(p.reference.start)}`;
  });
}

describe('coupon schedule', () => {
  it('runs backward from maturity; an issue date off the schedule makes a short first period', () => {
    expect(periods('2028-03-10', '2030-06-15', 2)).toEqual([
      '2028-03-10..2028-06-15 short, ref 2027-12-15',
      '2028-06-15..2028-12-15',
      '2028-12-15..2029-06-15',
      '2029-06-15..2029-12-15',
      '2029-12-15..2030-06-15',
    ]);
  });

  it('an issue date on the schedule starts a regular period', () => {
    expect(periods('2028-06-15', '2030-06-15', 1)).toEqual(['2028-06-15..2029-06-15', '2029-06-15..2030-06-15']);
    expect(periods('2030-03-15', '2030-06-15', 12)).toEqual([
      '2030-03-15..2030-04-15',
      '2030-04-15..2030-05-15',
      '2030-05-15..2030-06-15',
    ]);
  });

  it('end-of-month rule: a maturity on the last day of a month puts every coupon on a last day', () => {
    const schedule = couponSchedule(d('2027-11-02'), d('2030-02-28'), 2);
    expect(schedule.endOfMonth).toBe(true);
    expect(schedule.periods.map((p) => formatPlainDate(p.end))).toEqual([
      '2028-02-29',
      '2028-08-31',
      '2029-02-28',
      '2029-08-31',
      '2030-02-28',
    ]);
    expect(formatPlainDate(schedule.periods[0]!.reference.start)).toBe('2027-08-31');
    expect(periods('2029-10-20', '2030-04-30', 4)).toEqual([
      '2029-10-20..2029-10-31 short, ref 2029-07-31',
      '2029-10-31..2030-01-31',
      '2030-01-31..2030-04-30',
    ]);
  });

  it('without the rule a coupon keeps the maturity day, or the last day of a shorter month', () => {
    expect(couponSchedule(d('2028-08-30'), d('2030-08-30'), 2).endOfMonth).toBe(false);
    expect(periods('2028-08-30', '2030-08-30', 2)).toEqual([
      '2028-08-30..2029-02-28',
      '2029-02-28..2029-08-30',
      '2029-08-30..2030-02-28',
      '2030-02-28..2030-08-30',
    ]);
    // A short period ending on such a date: its reference period starts on the regular date before it.
    expect(periods('2029-12-01', '2030-08-30', 2)).toEqual([
      '2029-12-01..2030-02-28 short, ref 2029-08-30',
      '2030-02-28..2030-08-30',
    ]);
  });

  it('a first period shorter than the frequency’s step, down to one day', () => {
    expect(periods('2030-06-14', '2030-06-15', 12)).toEqual(['2030-06-14..2030-06-15 short, ref 2030-05-15']);
    expect(periods('2029-06-16', '2030-06-15', 1)).toEqual(['2029-06-16..2030-06-15 short, ref 2029-06-15']);
  });

  it('frequencies are 1, 2, 4 and 12 coupons a year', () => {
    expect(FREQUENCIES.map((f) => parseFrequency(String(f)))).toEqual([1, 2, 4, 12]);
    for (const text of ['3', '6', '0', '02', 'semiannual', ''])
      expect(thrown(() => parseFrequency(text)).code).toBe('E_BOND_INPUT');
    for (const f of FREQUENCIES)
      expect(couponSchedule(d('2020-01-01'), d('2030-01-01'), f).periods).toHaveLength(10 * f);
  });

  it('refuses an issue date on or after maturity', () => {
    expect(thrown(() => couponSchedule(d('2030-01-01'), d('2030-01-01'), 2)).message).toMatch(/not before maturity/);
    expect(thrown(() => couponSchedule(d('2031-01-01'), d('2030-01-01'), 2)).code).toBe('E_BOND_INPUT');
  });
});
