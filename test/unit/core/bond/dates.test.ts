import { describe, expect, it } from 'vitest';
import {
  actualDays,
  addMonths,
  compareDates,
  formatPlainDate,
  isLastDayOfMonth,
  parsePlainDate,
} from '../../../../src/core/bond/index.ts';
import { thrown } from '../../../support/errors.ts';

const d = (text: string) => parsePlainDate(text, 'date');

describe('bond dates', () => {
  it('parses YYYY-MM-DD, leap days included, and prints it back', () => {
    expect(d('2024-02-29')).toEqual({ year: 2024, month: 2, day: 29 });
    expect(formatPlainDate(d('0999-12-31'))).toBe('0999-12-31');
    expect(formatPlainDate(d('2000-02-29'))).toBe('2000-02-29');
  });

  it('refuses anything that is not a date of the calendar, naming the field', () => {
    for (const text of [
      '2023-02-29',
      '1900-02-29',
      '2024-04-31',
      '2024-13-01',
      '2024-00-10',
      '2024-01-00',
      '2024-1-01',
      '20240101',
      '',
      '2024-01-01T00:00:00Z',
      '0000-01-01',
    ]) {
      const e = thrown(() => parsePlainDate(text, '--maturity'));
      expect(e.code).toBe('E_BOND_INPUT');
      expect(e.message).toContain('--maturity');
    }
  });

  it('counts actual days as the calendar does, across leap years and centuries', () => {
    expect(actualDays(d('2024-01-01'), d('2025-01-01'))).toBe(366);
    expect(actualDays(d('2023-01-01'), d('2024-01-01'))).toBe(365);
    expect(actualDays(d('1900-02-28'), d('1900-03-01'))).toBe(1);
    expect(actualDays(d('2000-02-28'), d('2000-03-01'))).toBe(2);
    expect(actualDays(d('2030-06-15'), d('2020-03-10'))).toBe(-3749);
    // The same day numbers as the platform's UTC calendar over four centuries.
    for (let year = 1801; year <= 2200; year += 7)
      for (const [month, day] of [
        [1, 1],
        [2, 28],
        [3, 1],
        [12, 31],
      ] as const) {
        const date = { year, month, day };
        const epoch = { year: 1970, month: 1, day: 1 };
        expect(actualDays(epoch, date)).toBe(Date.UTC(year, month - 1, day) / 86_400_000);
      }
  });

  it('orders dates', () => {
    expect(compareDates(d('2024-03-01'), d('2024-02-29'))).toBeGreaterThan(0);
    expect(compareDates(d('2024-02-29'), d('2024-03-01'))).toBeLessThan(0);
    expect(compareDates(d('2024-02-29'), d('2024-02-29'))).toBe(0);
  });

  it('moves by months to the same day, or the last day of a shorter month', () => {
    expect(formatPlainDate(addMonths(d('2024-01-31'), 1, false))).toBe('2024-02-29');
    expect(formatPlainDate(addMonths(d('2030-08-30'), -6, false))).toBe('2030-02-28');
    expect(formatPlainDate(addMonths(d('2030-02-28'), -6, false))).toBe('2029-08-28');
    expect(formatPlainDate(addMonths(d('2030-01-15'), -13, false))).toBe('2028-12-15');
    expect(formatPlainDate(addMonths(d('2030-01-15'), 24, false))).toBe('2032-01-15');
  });

  it('keeps a last day of a month a last day under the end-of-month rule, and only then', () => {
    expect(formatPlainDate(addMonths(d('2030-02-28'), -6, true))).toBe('2029-08-31');
    expect(formatPlainDate(addMonths(d('2030-02-28'), -24, true))).toBe('2028-02-29');
    expect(formatPlainDate(addMonths(d('2030-04-30'), -1, true))).toBe('2030-03-31');
    expect(formatPlainDate(addMonths(d('2030-04-29'), -1, true))).toBe('2030-03-29');
    expect(isLastDayOfMonth(d('2028-02-29'))).toBe(true);
    expect(isLastDayOfMonth(d('2030-02-28'))).toBe(true);
    expect(isLastDayOfMonth(d('2028-02-28'))).toBe(false);
  });
});
