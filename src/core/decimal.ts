/**
 * The project's one Decimal constructor. Human money values are Decimal (never a JavaScript number);
 * scaled on-chain values are bigint. Use this export everywhere so `instanceof` holds across modules.
 */
import { Decimal as DecimalJs } from 'decimal.js';
import { DltError } from './errors.ts';

export const Decimal = DecimalJs.clone({
  precision: 200,
  rounding: DecimalJs.ROUND_HALF_EVEN,
  toExpNeg: -9e15,
  toExpPos: 9e15,
});
export type Decimal = InstanceType<typeof Decimal>;

interface Comparable {
  comparedTo(y: DecimalJs.Value): number;
  cmp(y: DecimalJs.Value): number;
}
const prototype = DecimalJs.prototype as unknown as Comparable;
const libraryCompare = prototype.cmp;

/**
 * decimal.js's comparison, without the copy of the other operand it starts with (`new x.constructor(y)`):
 * comparisons are the commonest operation of a round (millions in a session's backtest), and a copy of a
 * Decimal has its sign, exponent and digits, so comparing with the operand itself gives the same answer. Only
 * for two finite Decimals of this constructor within its exponent limits (where the copy is exact); anything
 * else goes to the library's comparison. The steps below are the library's, in its order. Every gt/gte/lt/lte/eq
 * compares through it.
 */
function compare(this: Decimal, y: DecimalJs.Value): number {
  const xd = this.d;
  if (!(y instanceof Decimal) || this.constructor !== Decimal || xd === null) return libraryCompare.call(this, y);
  const yd = y.d;
  if (yd === null || y.e > Decimal.maxE || y.e < Decimal.minE) return libraryCompare.call(this, y);
  const xs = this.s;
  const ys = y.s;
  if (Number.isNaN(xs) || Number.isNaN(ys)) return Number.NaN;
  // Either zero?
  if (!xd[0] || !yd[0]) return xd[0] ? xs : yd[0] ? -ys : 0;
  if (xs !== ys) return xs;
  if (this.e !== y.e) return this.e > y.e !== xs < 0 ? 1 : -1;
  const xdL = xd.length;
  const ydL = yd.length;
  for (let i = 0, j = xdL < ydL ? xdL : ydL; i < j; ++i) {
    if (xd[i] !== yd[i]) return (xd[i] as number) > (yd[i] as number) !== xs < 0 ? 1 : -1;
  }
  return xdL === ydL ? 0 : xdL > ydL !== xs < 0 ? 1 : -1;
}
prototype.cmp = compare;
prototype.comparedTo = compare;

/**
 * `a / b` cut toward zero to the digits a grid of 18 decimals needs at the quotient's size (its integer digits,
 * 18 fraction digits and a margin), for a quotient that is then rounded down to such a grid (a quantity to the
 * size grid). The cut never moves a value below a grid point (a grid point at or below `a / b` has no more
 * digits than are kept, so it is at or below the cut quotient too), so the rounded result is the exact
 * quotient's, for a fraction of the cost of a 200-digit division. Never for a value that is kept as it is.
 */
export function quotientDown(a: Decimal, b: Decimal): Decimal {
  const { precision, rounding } = Decimal;
  Decimal.set({ precision: Math.min(precision, Math.max(1, a.e - b.e + 2) + 18 + 4), rounding: Decimal.ROUND_DOWN });
  try {
    return a.div(b);
  } finally {
    Decimal.set({ precision, rounding });
  }
}

/**
 * `a / b` to `digits` significant digits (half-even): for a ratio that is only ever turned into a JavaScript
 * number (a metric's value), where the 200 digits of an exact-as-possible division would all be thrown away.
 * Never for money.
 */
export function approxQuotient(a: Decimal, b: Decimal, digits = 34): Decimal {
  const { precision } = Decimal;
  Decimal.set({ precision: Math.min(precision, digits) });
  try {
    return a.div(b);
  } finally {
    Decimal.set({ precision });
  }
}

/** The specification's DecimalString, with the decimal point taken literally. */
export const DECIMAL_STRING_PATTERN = /^-?[0-9]+(?:\.[0-9]{1,18})?$/;
export const DECIMAL_STRING_MAX_LENGTH = 255;

export function isDecimalString(value: unknown): value is string {
  return typeof value === 'string' && value.length <= DECIMAL_STRING_MAX_LENGTH && DECIMAL_STRING_PATTERN.test(value);
}

/** Parses a DecimalString; anything else (numbers included) is an error naming the field. */
export function parseDecimalString(value: unknown, field: string): Decimal {
  if (!isDecimalString(value)) {
    throw new DltError('E_DECIMAL_FORMAT', `${field}: ${JSON.stringify(value)} is not a decimal string`, {
      details: { field, value },
    });
  }
  return new Decimal(value);
}

/**
 * Parses human input that may use more than 18 fraction digits (command line, config). Still a plain
 * decimal: no exponent, no spaces, no thousands separators.
 */
export function parseHumanDecimal(value: unknown, field: string): Decimal {
  if (value instanceof Decimal) return value;
  if (typeof value !== 'string' || !/^-?[0-9]+(?:\.[0-9]+)?$/.test(value) || value.length > DECIMAL_STRING_MAX_LENGTH) {
    throw new DltError('E_DECIMAL_FORMAT', `${field}: ${JSON.stringify(value)} is not a plain decimal number`, {
      details: { field, value },
    });
  }
  return new Decimal(value);
}

/** Canonical text of a Decimal: no exponent, no trailing zeros. */
export function formatDecimal(value: Decimal): string {
  return value.toFixed();
}
