/**
 * The JSON the REST API answers, built from the venue state. Every price, quantity and value is a human
 * decimal string (never a scaled integer); scales are strings, as in the specification.
 */
import { Decimal, formatDecimal } from '../../core/decimal.ts';
import { decodeEvmReportingData } from '../../core/encoding/evm-order.ts';
import { decodeWasmReportingData } from '../../core/encoding/wasm-order.ts';
import { priceFromRaw, quantityFromRaw } from '../../core/units.ts';
import type { ListedOrder } from './open-orders.ts';
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
/** `tradeinfo`, with the venue documentation's `statusChangeReasonText` and, during a halt, `estimatedTradingHaltEnd`. */
export function tradeInfo(p: VenuePair, nowMs: number, haltEndMs?: number): Record<string, unknown> {
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
    statusChangeReasonText: REASON_TEXT[p.status.statusChangeReason],
    tradingHaltCounter: p.status.tradingHaltCounter,
    ...(haltEndMs === undefined ? {} : { estimatedTradingHaltEnd: iso(haltEndMs) }),
  };
}

/** `pricelevels`: one `{quantity, limit, orderCount}` per price, best first, at most `limit` per side. */
export function priceLevels(p: VenuePair, limit?: number): Record<string, unknown> {
  const side = (s: 'buy' | 'sell') =>
    p.market.book
      .levels(s, limit)
      .map((l) => ({ quantity: quantity(p, l.quantity), limit: price(p, l.price), orderCount: l.orderCount }));
  return { tradingPairId: p.id, buy: side('buy'), sell: side('sell') };
}

/**
 * `orderbook`: one `{orderType, quantity, limit}` per resting order (the venue SDK's entry) in priority order, at
 * most `limit` per side. Every resting order is a limit order: `orderType` is `LIMIT`.
 */
export function orderBook(p: VenuePair, limit?: number): Record<string, unknown> {
  const side = (s: 'buy' | 'sell') =>
    p.market.book
      .side(s)
      .slice(0, limit)
      .map((o) => ({ orderType: 'LIMIT', quantity: quantity(p, o.remaining), limit: price(p, o.price) }));
  return { tradingPairId: p.id, buy: side('buy'), sell: side('sell') };
}

const EXECUTION_CONDITION = { standard: 'NONE', ioc: 'IOC', boc: 'BOC', fok: 'FOK' } as const;

/** The two interpreted reporting values as sent on chain; null when the bytes are not the chain's layout. */
function reportingValues(p: VenuePair, bytes: Uint8Array | null): Record<string, number> | null {
  if (bytes === null) return null;
  try {
    const r = p.chain === 'evm' ? decodeEvmReportingData(bytes) : decodeWasmReportingData(bytes);
    return { ownerReportingId: r.a, decisionReportingId: r.b };
  } catch {
    return null;
  }
}

/**
 * One order of the participant and wallet endpoints, as the venue SDK's model names it. The sandbox's
 * choices where the SDK gives only examples: `id` is `<pair id>:<order id>`; `status` is `OPEN` for a resting
 * order (partly filled ones too: `remainingQuantity` tells), else `FILLED`, `CANCELLED` or `REJECTED`;
 * `statusReason` `N_A`, who cancelled (`BY_PARTICIPANT`, `BY_ADMIN`, `BY_CONTRACT`) or the rejection reason
 * (`PARTIAL_REJECTED`, `SELF_TRADE`, ...); `remainingQuantity` of an ended order is what was left when it ended;
 * `finalityStatus` `NON_FINAL` (the sandbox has no finality notion); `statusChangeTime` the placement, or the
 * end. `ownerReportingData` holds the two reporting values and `crossIdentifier` the cross id as on chain;
 * `validUntil` the end of the order's trading day (null when the sandbox has no trading days: always open);
 * `executionCondition` `NONE` for a standard order; `address` the wallet. `walletAddress` is the
 * specification's "wallet id", beside the SDK's fields.
 */
export function orderRecord(p: VenuePair, order: ListedOrder, validUntilMs?: number): Record<string, unknown> {
  return {
    id: `${p.id}:${order.orderId}`,
    creationDate: iso(order.placedAtMs),
    modificationDate: iso(order.modifiedAtMs),
    externalOrderId: Number(order.orderId),
    tradingPairId: p.id,
    walletAddress: order.wallet,
    address: order.wallet,
    orderKind: order.side.toUpperCase(),
    orderType: order.orderType.toUpperCase(),
    executionCondition: EXECUTION_CONDITION[order.condition],
    initialQuantity: quantity(p, order.quantity),
    remainingQuantity: quantity(p, order.remaining),
    priceLimit: price(p, order.price),
    status: order.status,
    statusReason: order.statusReason,
    statusChangeTime: iso(order.status === 'OPEN' ? order.placedAtMs : order.modifiedAtMs),
    finalityStatus: 'NON_FINAL',
    ownerReportingData: reportingValues(p, order.reportingData),
    crossIdentifier: order.crossId === null ? null : Number(order.crossId),
    validUntil: validUntilMs === undefined ? null : iso(validUntilMs),
  };
}

/** OHLC point: `x` the interval start as a unix timestamp (seconds), `o` `h` `l` `c` prices and `v` the volume, as decimal strings. */
export function ohlcPoint(p: VenuePair, c: Candle): Record<string, unknown> {
  return {
    x: Math.floor(c.startMs / 1000),
    o: price(p, c.open),
    h: price(p, c.high),
    l: price(p, c.low),
    c: price(p, c.close),
    v: quantity(p, c.volume),
  };
}
