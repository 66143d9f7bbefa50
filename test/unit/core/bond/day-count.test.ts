import { describe, expect, it } from 'vitest';
import {
  DAY_COUNTS,
  days30360,
  days30E360,
  parseDayCount,
  parsePlainDate,
  yearFraction,
  type DayCount,
} from '../../../../src/core/bond/index.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { thrown } from '../../../support/errors.ts';

const d = (text: string) => parsePlainDate(text, 'date');
const fraction = (dc: DayCount, from: string, to: string, ref: [string, string], f: number) =>
  yearFraction(dc, d(from), d(to), { start: d(ref[0]), end: d(ref[1]) }, f);
const exactly = (numerator: number, denominator: number) => new Decimal(numerator).div(denominator);

describe('day counts', () => {
  it('30/360 bond basis: D1 31 is 30; D2 31 is 30 only when D1 is 30 or 31 (ISDA 2006 4.16(f))', () => {
    expect(days30360(d('2020-01-31'), d('2020-03-31'))).toBe(60);
    expect(days30360(d('2020-01-30'), d('2020-03-31'))).toBe(60);
    expect(days30360(d('2020-01-29'), d('2020-03-31'))).toBe(62);
    expect(days30360(d('2020-02-29'), d('2020-08-31'))).toBe(182);
    expect(days30360(d('2019-08-31'), d('2020-02-29'))).toBe(179);
  });

  it('30E/360: a 31st is the 30th at either end, February as it is', () => {
    expect(days30E360(d('2020-01-29'), d('2020-03-31'))).toBe(61);
    expect(days30E360(d('2020-02-29'), d('2020-08-31'))).toBe(181);
    expect(days30E360(d('2020-01-31'), d('2020-02-29'))).toBe(29);
    expect(days30E360(d('2021-02-28'), d('2021-03-31'))).toBe(32);
  });

  it('ACT/360 and ACT/365F divide actual days by a fixed year, ignoring the reference period', () => {
    const ref: [string, string] = ['1999-01-01', '1999-02-01'];
    expect(fraction('ACT/360', '2020-01-01', '2020-07-01', ref, 2)).toEqual(exactly(182, 360));
    expect(fraction('ACT/365F', '2020-01-01', '2021-01-01', ref, 2)).toEqual(exactly(366, 365));
    expect(fraction('30/360', '2020-01-29', '2020-03-31', ref, 4)).toEqual(exactly(62, 360));
    expect(fraction('30E/360', '2020-01-29', '2020-03-31', ref, 4)).toEqual(exactly(61, 360));
  });

  it('ACT/ACT-ICMA: actual days over the reference period’s actual days times the frequency', () => {
    const ref: [string, string] = ['2020-01-15', '2020-07-15'];
    expect(fraction('ACT/ACT-ICMA', '2020-01-15', '2020-07-15', ref, 2)).toEqual(new Decimal('0.5'));
    expect(fraction('ACT/ACT-ICMA', '2020-01-15', '2020-03-01', ref, 2)).toEqual(exactly(46, 182 * 2));
    expect(fraction('ACT/ACT-ICMA', '2020-03-01', '2020-07-15', ref, 2)).toEqual(exactly(136, 364));
    expect(fraction('ACT/ACT-ICMA', '2021-03-10', '2021-06-15', ['2020-06-15', '2021-06-15'], 1)).toEqual(
      exactly(97, 365),
    );
  });

  it('knows its five names and refuses others', () => {
    expect(DAY_COUNTS.map((name) => parseDayCount(name))).toEqual([
      'ACT/ACT-ICMA',
      '30E/360',
      '30/360',
      'ACT/360',
      'ACT/365F',
    ]);
    for (const name of ['ACT/ACT', 'act/360', '30/360 US', ''])
      expect(thrown(() => parseDayCount(name)).code).toBe('E_BOND_INPUT');
  });
});
