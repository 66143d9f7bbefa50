import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MODEL_SIGNIFICANT_DIGITS, modelLn, modelSqrt } from '../../../src/core/decimal-math.ts';
import { Decimal } from '../../../src/core/decimal.ts';

/** Positive decimals from 1e-8 to 1e8 with up to 12 significant digits, and ratios of two such numbers. */
const positive = fc
  .tuple(fc.integer({ min: 1, max: 999_999_999_999 }), fc.integer({ min: -20, max: 0 }))
  .map(([digits, exp]) => new Decimal(digits).mul(new Decimal(10).pow(exp)));
const operand = fc.oneof(
  positive,
  fc.tuple(positive, positive).map(([a, b]) => a.div(b)),
);

/** Equal to within one unit of the 34th significant digit of `reference`. */
function within34(value: Decimal, reference: Decimal): boolean {
  if (reference.isZero()) return value.isZero();
  const unit = new Decimal(10).pow(
    reference
      .abs()
      .log(10)
      .floor()
      .sub(MODEL_SIGNIFICANT_DIGITS - 1),
  );
  return value.sub(reference).abs().lte(unit);
}

describe('transcendental functions at model precision', () => {
  it('ln and sqrt agree with the 200-digit results to 34 significant digits', () => {
    fc.assert(
      fc.property(operand, (x) => {
        expect(within34(modelLn(x), x.ln())).toBe(true);
        expect(within34(modelSqrt(x), x.sqrt())).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
  it('returns the project Decimal with at most 34 significant digits', () => {
    const r = modelLn(new Decimal('100.05').div('100.02'));
    expect(r).toBeInstanceOf(Decimal);
    expect(r.precision()).toBeLessThanOrEqual(MODEL_SIGNIFICANT_DIGITS);
    expect(modelLn(new Decimal(1)).isZero()).toBe(true);
    expect(modelSqrt(new Decimal('0.0000000025')).toFixed()).toBe('0.00005');
  });
  it('keeps the decimal.js domain: ln of zero is -Infinity, of a negative number NaN', () => {
    expect(modelLn(new Decimal(0)).toString()).toBe('-Infinity');
    expect(modelLn(new Decimal(-1)).isNaN()).toBe(true);
  });
});
