/**
 * What the bot can read from an open-order record of the REST API. The specification names only
 * `externalOrderId`; the pair, side, price and remaining quantity are read by the venue SDK's names
 * (`tradingPairId`, `orderKind`, `priceLimit`, `remainingQuantity`) or the names venues commonly use, and are
 * null when absent. The cross identifier (the venue SDK's `crossIdentifier`, as the decoder read it) may be
 * missing, which is why our orders are recognised by the order id the store holds, and adopted from chain
 * events, not from this list.
 */
import { Decimal, isDecimalString } from '../../../core/decimal.ts';
import type { Side } from '../../../core/order-terms.ts';
import type { VenueOrder } from '../../../venue/payload/orders.ts';

export interface VenueOrderView {
  readonly orderId: bigint;
  readonly pairId: string | null;
  readonly side: Side | null;
  readonly price: Decimal | null;
  /** Human base quantity still open. */
  readonly remaining: Decimal | null;
  readonly crossId: bigint | null;
  readonly raw: Readonly<Record<string, unknown>>;
}

function first(raw: Readonly<Record<string, unknown>>, names: readonly string[]): unknown {
  for (const n of names) if (raw[n] !== undefined && raw[n] !== null) return raw[n];
  return undefined;
}

function decimal(v: unknown): Decimal | null {
  if (typeof v === 'string' && isDecimalString(v)) return new Decimal(v);
  if (typeof v === 'number' && Number.isFinite(v)) return new Decimal(String(v));
  return null;
}

function sideOf(v: unknown): Side | null {
  const s = typeof v === 'string' ? v.toLowerCase() : v;
  if (s === 'buy' || s === 1 || s === '1') return 'buy';
  if (s === 'sell' || s === 2 || s === '2') return 'sell';
  return null;
}

export function readVenueOrder(order: VenueOrder): VenueOrderView {
  const r = order.raw;
  const pair = first(r, ['tradingPairId', 'pairId', 'tradingPair']);
  const cross = first(r, ['crossIdentifier', 'crossId']);
  return {
    orderId: order.externalOrderId,
    pairId: typeof pair === 'string' ? pair : null,
    side: sideOf(first(r, ['orderKind', 'side', 'orderSide'])),
    price: decimal(first(r, ['priceLimit', 'price', 'limit', 'limitPrice'])),
    remaining: decimal(first(r, ['remainingQuantity', 'openQuantity', 'quantity'])),
    crossId:
      order.crossIdentifier ??
      (typeof cross === 'number' && Number.isSafeInteger(cross)
        ? BigInt(cross)
        : typeof cross === 'string' && /^[0-9]{1,10}$/.test(cross)
          ? BigInt(cross)
          : null),
    raw: r,
  };
}
