/**
 * Transcendental functions of model quantities (log returns, risk terms) at 34 significant digits, the
 * precision of IEEE 754 decimal128, instead of the 200 digits of money arithmetic: decimal.js takes 7 to 15
 * times longer for `ln` at 200 digits, and no price or size needs more than 34. The working context is
 * private to this module; every result is the project's Decimal, so `instanceof` still holds everywhere.
 */
import { Decimal as DecimalJs } from 'decimal.js';
import { Decimal } from './decimal.ts';

export const MODEL_SIGNIFICANT_DIGITS = 34;

/** A decimal.js constructor working at `digits` significant digits (half-even, no exponent notation). */
export function workingPrecision(digits: number): typeof DecimalJs {
  return DecimalJs.clone({ precision: digits, rounding: DecimalJs.ROUND_HALF_EVEN, toExpNeg: -9e15, toExpPos: 9e15 });
}

const Model = workingPrecision(MODEL_SIGNIFICANT_DIGITS);

/** Natural logarithm to 34 significant digits (NaN below zero, -Infinity at zero, as decimal.js). */
export function modelLn(x: Decimal): Decimal {
  return new Decimal(new Model(x).ln());
}

/** Square root to 34 significant digits (NaN below zero, as decimal.js). */
export function modelSqrt(x: Decimal): Decimal {
  return new Decimal(new Model(x).sqrt());
}
