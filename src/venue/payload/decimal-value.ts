/**
 * Money values as the venue sends them: decimal strings (REST, per the specification) or JSON numbers (the
 * WebSocket levels, per the specification). A number becomes a Decimal through its shortest text, which
 * `parseVenueJson` guarantees is its source value; a `JsonNumberText` carries the exact source of a longer
 * literal. Exponent forms (`1e-7`) are accepted because JSON numbers may use them.
 */
import { z } from 'zod';
import { Decimal, DECIMAL_STRING_MAX_LENGTH, DECIMAL_STRING_PATTERN } from '../../core/decimal.ts';
import { JsonNumberText } from './json.ts';

const JSON_NUMBER_TEXT = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** The Decimal for a decimal string, a finite JSON number or a JsonNumberText; undefined for anything else. */
export function toDecimal(value: unknown): Decimal | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? new Decimal(String(value)) : undefined;
  if (typeof value === 'string') {
    if (value.length > DECIMAL_STRING_MAX_LENGTH) return undefined;
    return DECIMAL_STRING_PATTERN.test(value) || JSON_NUMBER_TEXT.test(value) ? new Decimal(value) : undefined;
  }
  if (value instanceof JsonNumberText) return new Decimal(value.source);
  return undefined;
}

/** zod: a decimal string or JSON number, as a Decimal. */
export const decimalValue = z.unknown().transform((value, ctx): Decimal => {
  const d = toDecimal(value);
  if (d === undefined) {
    ctx.addIssue({ code: 'custom', message: 'expected a decimal string or a JSON number' });
    return z.NEVER;
  }
  return d;
});

/** zod: like decimalValue, and not negative. */
export const nonNegativeDecimal = decimalValue.refine((d) => !d.isNegative(), 'must not be negative');
