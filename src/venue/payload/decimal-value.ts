/**
 * Money values as the venue sends them: decimal strings (REST, per the specification) or JSON numbers (the
 * WebSocket levels, per the specification). A number becomes a Decimal through its shortest text, which
 * `parseVenueJson` guarantees is its source value; a `JsonNumberText` carries the exact source of a longer
 * literal. Exponent forms (`1e-7`) are accepted because JSON numbers may use them.
 *
 * Decimals are immutable, and a book's prices and quantities repeat from one update to the next, so the
 * Decimal of each recent text is kept and shared: parsing a decimal costs about 1 us, a map lookup a
 * few tens of ns (see test/bench/market-data.bench.ts). The cache is bounded and simply emptied when full.
 */
import { z } from 'zod';
import { Decimal, DECIMAL_STRING_MAX_LENGTH, DECIMAL_STRING_PATTERN } from '../../core/decimal.ts';
import { JsonNumberText } from './json.ts';
import { BoundedMemo } from '../../core/bounded-memo.ts';

const JSON_NUMBER_TEXT = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
const CACHE_LIMIT = 10_000;
const cache = new BoundedMemo<string, Decimal>(CACHE_LIMIT);
// Keyed by the number itself: turning a double into its shortest text costs more than the lookup.
const numberCache = new BoundedMemo<number, Decimal>(CACHE_LIMIT);

const decimalOfText = (text: string): Decimal => new Decimal(text);
// -0 and 0 share a key; both are the Decimal 0 for a price or a quantity.
const decimalOfNumber = (value: number): Decimal => new Decimal(String(value));

/** The Decimal of a text already known to be a valid number. */
function cached(text: string): Decimal {
  return cache.of(text, decimalOfText);
}

function cachedNumber(value: number): Decimal {
  return numberCache.of(value, decimalOfNumber);
}

/** The Decimal for a decimal string, a finite JSON number or a JsonNumberText; undefined for anything else. */
export function toDecimal(value: unknown): Decimal | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? cachedNumber(value) : undefined;
  if (typeof value === 'string') {
    if (value.length > DECIMAL_STRING_MAX_LENGTH) return undefined;
    const known = cache.get(value);
    if (known !== undefined) return known;
    return DECIMAL_STRING_PATTERN.test(value) || JSON_NUMBER_TEXT.test(value) ? cached(value) : undefined;
  }
  if (value instanceof JsonNumberText) return cached(value.source);
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
