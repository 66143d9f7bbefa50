/** Bond terms for the unit tests of src/core/bond, from strings. */
import {
  parsePlainDate,
  type BondTerms,
  type DayCount,
  type Frequency,
  type PlainDate,
} from '../../../src/core/bond/index.ts';
import { Decimal } from '../../../src/core/decimal.ts';

export const date = (text: string): PlainDate => parsePlainDate(text, 'date');

export function bond(
  coupon: string,
  issue: string,
  maturity: string,
  frequency: Frequency,
  dayCount: DayCount = 'ACT/ACT-ICMA',
): BondTerms {
  return { couponPercent: new Decimal(coupon), issue: date(issue), maturity: date(maturity), frequency, dayCount };
}
