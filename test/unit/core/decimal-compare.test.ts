import * as fc from 'fast-check';
import { Decimal as DecimalJs } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.ts';

/** Another constructor of the library: its values compare through the library's own comparison. */
const Library = DecimalJs.clone({ precision: 200 });

const SPECIAL = ['0', '-0', 'NaN', 'Infinity', '-Infinity', '1e-9000000000000001', '1e9000000000000001'];
const value = fc.oneof(
  fc.constantFrom(...SPECIAL),
  fc
    .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 40n }), fc.integer({ min: -60, max: 60 }))
    .map(([negative, digits, exponent]) => `${negative ? '-' : ''}${digits}e${exponent}`),
  fc.constantFrom('1', '1.0', '0.1', '10', '0.30000000000000000001', '-0.3', '99.99', '100'),
);
const both = (a: string, b: string) => {
  const ours = new Decimal(a);
  const theirs = new Library(a);
  return {
    cmp: [ours.cmp(new Decimal(b)), ours.comparedTo(b)],
    order: [ours.gt(new Decimal(b)), ours.gte(new Decimal(b)), ours.lt(b), ours.lte(b), ours.eq(new Decimal(b))],
    expected: {
      cmp: [theirs.cmp(new Library(b)), theirs.comparedTo(b)],
      order: [theirs.gt(b), theirs.gte(b), theirs.lt(b), theirs.lte(b), theirs.eq(b)],
    },
  };
};

describe('comparing Decimals', () => {
  it('answers as the library does for any two values, special ones included', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        const { cmp, order, expected } = both(a, b);
        expect({ cmp, order }).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
  });
  it('orders by sign, exponent, digits and length, whatever the digits array holds', () => {
    const cases = [
      ['1', '1.0000000000000000000000000000001'],
      ['-1', '-1.0000000000000000000000000000001'],
      ['12345678.9', '12345678.90000001'],
      ['0.000001', '0.0000001'],
      ['-5', '3'],
      ['0', '-0.0000001'],
      ['1e-30', '0'],
    ] as const;
    for (const [a, b] of cases) {
      const { cmp, order, expected } = both(a, b);
      expect({ a, b, cmp, order }).toEqual({ a, b, ...expected });
      const back = both(b, a);
      expect({ a: b, b: a, cmp: back.cmp, order: back.order }).toEqual({ a: b, b: a, ...back.expected });
    }
  });
});
