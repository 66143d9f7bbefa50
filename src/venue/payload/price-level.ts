/**
 * One order book level, from REST (`pricelevels`, `orderbook`) or the WebSocket. The REST per-entry form is
 * not published: a two-element array `[quantity, limit]` (the specification's order of words) and an object
 * with `limit` and `quantity` (or `totalQuantity`, as on the WebSocket) are both accepted. Hand-written
 * rather than zod because the WebSocket decodes tens of thousands of levels a second.
 */
import type { Decimal } from '../../core/decimal.ts';
import { toDecimal } from './decimal-value.ts';
import { fieldError } from './problems.ts';

export interface PriceLevel {
  /** Price per base token. */
  readonly limit: Decimal;
  /** Total base tokens at this price. */
  readonly quantity: Decimal;
  /** Orders at this price, when the venue says. */
  readonly orderCount?: number;
}

function amount(source: string, field: string, value: unknown): Decimal {
  const d = toDecimal(value);
  if (d === undefined) throw fieldError(source, field, value, 'expected a decimal string or a JSON number');
  if (d.isNegative()) throw fieldError(source, field, value, 'must not be negative');
  return d;
}

/** Decodes one level; throws E_PAYLOAD_MALFORMED naming the field and the value. */
export function decodeLevel(raw: unknown, source: string, field: string): PriceLevel {
  if (Array.isArray(raw)) {
    if (raw.length !== 2) throw fieldError(source, field, raw, 'expected [quantity, limit]');
    return { quantity: amount(source, `${field}.0`, raw[0]), limit: amount(source, `${field}.1`, raw[1]) };
  }
  if (raw === null || typeof raw !== 'object')
    throw fieldError(source, field, raw, 'expected a price level object or [quantity, limit]');
  const level = raw as Record<string, unknown>;
  const quantityKey = level.quantity !== undefined ? 'quantity' : 'totalQuantity';
  const limit = amount(source, `${field}.limit`, level.limit);
  const quantity = amount(source, `${field}.${quantityKey}`, level[quantityKey]);
  const count = level.orderCount;
  if (count === undefined || count === null) return { limit, quantity };
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
    throw fieldError(source, `${field}.orderCount`, count, 'expected a non-negative integer');
  }
  return { limit, quantity, orderCount: count };
}

/**
 * Decodes one side. Buy levels come best (highest) first and sell levels lowest first; a side delivered in
 * another order is sorted (stably) rather than refused, so `[0]` is always the best price.
 */
export function decodeSide(raw: unknown, side: 'buy' | 'sell', source: string, field: string): PriceLevel[] {
  if (!Array.isArray(raw)) throw fieldError(source, field, raw, 'expected an array of price levels');
  const levels = raw.map((entry, i) => decodeLevel(entry, source, `${field}.${i}`));
  const outOfOrder = (a: PriceLevel, b: PriceLevel) => (side === 'buy' ? a.limit.lt(b.limit) : a.limit.gt(b.limit));
  for (let i = 1; i < levels.length; i++) {
    if (outOfOrder(levels[i - 1] as PriceLevel, levels[i] as PriceLevel)) {
      return levels.toSorted((a, b) => (side === 'buy' ? b.limit.cmp(a.limit) : a.limit.cmp(b.limit)));
    }
  }
  return levels;
}
