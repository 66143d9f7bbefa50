/**
 * The JSON the REST API answers, built from the venue state. Every price, quantity and value is a human
 * decimal string (never a scaled integer); scales are strings, as in the specification.
 */
import { Decimal, formatDecimal } from '../../core/decimal.ts';
import { priceFromRaw, quantityFromRaw } from '../../core/units.ts';
import type { OpenOrder } from './open-orders.ts';
import type { Candle } from './trades.ts';
import { REASON_TEXT, type VenuePair } from './venue-state.ts';

const DAY_MS = 86_400_000;

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function price(p: VenuePair, raw: bigint): string {
  return formatDecimal(priceFromRaw(raw, p.scales));
}

export function quantity(p: VenuePair, raw: bigint): string {
  return formatDecimal(quantityFromRaw(raw, p.scales));
}

/** The TradingPair with its current status fields. */
export function pairRecord(p: VenuePair): Record<string, unknown> {
  const s = p.status;
  return {
    ...p.record,
    modificationDate: iso(s.changedAtMs),
    staticReferencePrice: formatDecimal(s.staticReferencePrice),
    tradingStatus: s.tradingStatus,
    statusChangeReason: s.statusChangeReason,
    statusChangeReasonText: REASON_TEXT[s.statusChangeReason],
  };
}

/**
 * Trade information. `priceChange24h` is in percent against the last trade at or before 24 h ago, or the
 * reference price when there was none, rounded to 4 decimals; `lastPrice` is null before the first trade.
 */
export function tradeInfo(p: VenuePair, nowMs: number): Record<string, unknown> {
  const trades = p.market.trades;
  const last = trades.last();
  const reference = p.status.staticReferencePrice;
  let change = new Decimal(0);
  if (last !== undefined) {
    const before = trades.lastAtOrBefore(nowMs - DAY_MS);
    const base = before === undefined ? reference : priceFromRaw(before.price, p.scales);
    if (!base.isZero()) change = priceFromRaw(last.price, p.scales).sub(base).div(base).mul(100).toDecimalPlaces(4);
  }
  return {
    lastPrice: last === undefined ? null : price(p, last.price),
    referencePrice: formatDecimal(reference),
    priceChange24h: formatDecimal(change),
    tradeVolume24h: quantity(p, trades.volume(nowMs - DAY_MS, nowMs)),
    liquidityBand: p.record.liquidityBand ?? 0,
    tradingStatus: p.status.tradingStatus,
    statusChangeReason: p.status.statusChangeReason,
    tradingHaltCounter: p.status.tradingHaltCounter,
  };
}

/** `pricelevels`: one `{quantity, limit, orderCount}` per price, best first, at most `limit` per side. */
export function priceLevels(p: VenuePair, limit?: number): Record<string, unknown> {
  const side = (s: 'buy' | 'sell') =>
    p.market.book.levels(s, limit).map((l) => ({ quantity: quantity(p, l.quantity), limit: price(p, l.price), orderCount: l.orderCount }));
  return { tradingPairId: p.id, buy: side('buy'), sell: side('sell') };
}

/** `orderbook`: one `{quantity, limit}` per resting order in priority order, at most `limit` per side. */
export function orderBook(p: VenuePair, limit?: number): Record<string, unknown> {
  const side = (s: 'buy' | 'sell') =>
    p.market.book
      .side(s)
      .slice(0, limit)
      .map((o) => ({ quantity: quantity(p, o.remaining), limit: price(p, o.price) }));
  return { tradingPairId: p.id, buy: side('buy'), sell: side('sell') };
}

/** One open order of the participant and wallet endpoints (the record's fields are the sandbox's choice). */
export function orderRecord(p: VenuePair, o: OpenOrder): Record<string, unknown> {
  return {
    externalOrderId: Number(o.orderId),
    walletAddress: o.wallet,
    tradingPairId: p.id,
    symbol: p.symbol,
    blockChain: p.record.blockChain,
    side: o.side.toUpperCase(),
    orderType: o.orderType.toUpperCase(),
    executionCondition: o.condition.toUpperCase(),
    price: price(p, o.price),
    quantity: quantity(p, o.quantity),
    remainingQuantity: quantity(p, o.remaining),
    filledQuantity: quantity(p, o.quantity - o.remaining),
    status: o.remaining === o.quantity ? 'OPEN' : 'PARTIALLY_FILLED',
    timestamp: iso(o.placedAtMs),
  };
}

/** OHLC point: `x` the interval start in epoch milliseconds, `o` `h` `l` `c` prices and `v` the volume, as decimal strings. */
export function ohlcPoint(p: VenuePair, c: Candle): Record<string, unknown> {
  return { x: c.startMs, o: price(p, c.open), h: price(p, c.high), l: price(p, c.low), c: price(p, c.close), v: quantity(p, c.volume) };
}
