/**
 * The REST order book snapshots: `pricelevels` (one entry per price) and `orderbook` (one entry per order).
 * A book is all or nothing: a book with a hole (one bad level dropped) would show a wrong best price or
 * depth to the quoting, so one bad level makes the whole snapshot malformed.
 */
import { fieldError } from './problems.ts';
import { decodeSide, type PriceLevel } from './price-level.ts';

export interface OrderBookSnapshot {
  readonly tradingPairId: string;
  /** Best (highest) first. */
  readonly buy: readonly PriceLevel[];
  /** Best (lowest) first. */
  readonly sell: readonly PriceLevel[];
}

/** Decodes a snapshot and checks it is the book that was asked for. */
export function parseOrderBookSnapshot(body: unknown, source: string, expectedPairId: string): OrderBookSnapshot {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw fieldError(source, '(root)', body, 'expected an object');
  const raw = body as Record<string, unknown>;
  if (typeof raw.tradingPairId !== 'string')
    throw fieldError(source, 'tradingPairId', raw.tradingPairId, 'expected a string');
  if (raw.tradingPairId !== expectedPairId) {
    throw fieldError(source, 'tradingPairId', raw.tradingPairId, `expected the book of ${expectedPairId}`);
  }
  return {
    tradingPairId: raw.tradingPairId,
    buy: decodeSide(raw.buy, 'buy', source, 'buy'),
    sell: decodeSide(raw.sell, 'sell', source, 'sell'),
  };
}
