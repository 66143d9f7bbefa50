/**
 * A quantity that is only rounded down to the size grid may come from a quotient cut to the digits the grid needs: the grid
 * size is then the one the exact quotient gives, for any size, price and grid of the venue's scales.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal, quotientDown } from '../../../src/core/decimal.ts';
import { roundSizeDown } from '../../../src/strategy/sizing.ts';

/** A positive decimal of at most 18 fraction digits and 22 integer digits, as the venue's scales write them. */
const scaled = (maxExponent: number) =>
  fc
    .tuple(fc.bigInt({ min: 1n, max: 10n ** BigInt(maxExponent + 18) }), fc.integer({ min: 0, max: 18 }))
    .map(([units, decimals]) => new Decimal(units.toString()).div(new Decimal(10).pow(decimals)));

describe('sizes from a quotient cut to the digits of the grid', () => {
  it('round down to the grid size of the exact quotient', () => {
    fc.assert(
      fc.property(scaled(22), scaled(8), scaled(4), scaled(2), (value, price, minimumSize, sizeIncrement) => {
        const rules = { minimumSize, sizeIncrement };
        const exact = roundSizeDown(value.div(price), rules);
        const cut = roundSizeDown(quotientDown(value, price), rules);
        expect(cut === null ? null : cut.toFixed()).toBe(exact === null ? null : exact.toFixed());
      }),
      { numRuns: 2_000 },
    );
  });

  it('leave the precision and rounding of every other division as they were', () => {
    const before = { precision: Decimal.precision, rounding: Decimal.rounding };
    quotientDown(new Decimal(1), new Decimal(3));
    expect({ precision: Decimal.precision, rounding: Decimal.rounding }).toEqual(before);
    expect(new Decimal(2).div(3).toFixed().length).toBeGreaterThan(150);
  });

  it('cut toward zero', () => {
    expect(quotientDown(new Decimal(2), new Decimal(3)).toFixed()).toBe(`0.${'6'.repeat(24)}`);
  });
});
