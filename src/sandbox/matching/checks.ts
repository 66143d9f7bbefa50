/** Pre-trade checks of an incoming order, in the order of rules.md; the first failure throws. */
import { DltError, type ErrorCode } from '../../core/errors.ts';
import type { Side } from '../../core/order-terms.ts';
import { abs, compareValue } from './amounts.ts';
import type { Book, BookContext, ClientInfo, IncomingOrder, TickRow } from './types.ts';

export function fail(code: ErrorCode, message: string, details: Record<string, unknown> = {}): never {
  throw new DltError(code, message, { details });
}

/** Checks 1 and 2: the book is open and the wallet may trade this side. */
export function checkAccess(book: Book, ctx: BookContext, wallet: string, side: Side): ClientInfo {
  if (book.phase !== 'open') fail('E_VENUE_MARKET_CLOSED', `order book is ${book.phase}`, { phase: book.phase });
  const client = ctx.client(wallet);
  if (client === undefined) fail('E_VENUE_CLIENT_NOT_FOUND', `${wallet} is not in the client registry`, { wallet });
  if (side === 'buy' && !client.canBuy) fail('E_VENUE_NOT_ALLOWED_TO_BUY', `${wallet} may not buy`, { wallet });
  if (side === 'sell' && !client.canSell) fail('E_VENUE_NOT_ALLOWED_TO_SELL', `${wallet} may not sell`, { wallet });
  return client;
}

export function tickAtRaw(price: bigint, table: readonly TickRow[]): bigint {
  let tick = table[0]?.tick ?? 1n;
  for (const row of table) {
    if (price >= row.from) tick = row.tick;
    else break;
  }
  return tick;
}

/** Checks 3 (amounts) to 8: size, tick, collar, value limits. Market orders skip the price checks. */
export function checkOrder(book: Book, order: IncomingOrder): void {
  const p = book.params;
  if (order.quantity <= 0n || (order.type === 'limit' && order.price <= 0n)) {
    fail('E_VENUE_INVALID_ORDER_DATA', 'quantity and limit price must be positive', {
      quantity: order.quantity,
      price: order.price,
    });
  }
  if (order.quantity < p.minimumSize || (order.quantity - p.minimumSize) % p.sizeIncrement !== 0n) {
    fail(
      'E_VENUE_VOLUME_BELOW_MIN_RANGE',
      `size ${order.quantity} is not ${p.minimumSize} plus a multiple of ${p.sizeIncrement}`,
      {
        quantity: order.quantity,
      },
    );
  }
  if (order.type === 'market') return;
  const tick = tickAtRaw(order.price, p.tickTable);
  if (order.price % tick !== 0n)
    fail('E_VENUE_OFF_TICK', `price ${order.price} is not a multiple of tick ${tick}`, { price: order.price, tick });
  const ref = book.staticReferencePrice;
  if (p.priceCollarBps > 0 && abs(order.price - ref) * 10_000n > ref * BigInt(p.priceCollarBps)) {
    if (order.price > ref)
      fail('E_VENUE_PRICE_ABOVE_MAX_RANGE', `price ${order.price} above the collar around ${ref}`, {
        price: order.price,
      });
    fail('E_VENUE_PRICE_BELOW_MIN_RANGE', `price ${order.price} below the collar around ${ref}`, {
      price: order.price,
    });
  }
  if (compareValue(order.price, order.quantity, p.minimumOrderValue, p.scales) <= 0) {
    fail('E_VENUE_VALUE_BELOW_MIN_RANGE', 'order value does not exceed minimumOrderValue', {
      price: order.price,
      quantity: order.quantity,
    });
  }
  if (compareValue(order.price, order.quantity, p.maximumOrderValue, p.scales) > 0) {
    fail('E_VENUE_VALUE_ABOVE_MAX_RANGE', 'order value above maximumOrderValue', {
      price: order.price,
      quantity: order.quantity,
    });
  }
}

/** Volatility rejection reason for an execution price, or 0 when it is inside both ranges. */
export function volatilityReason(book: Book, price: bigint): number {
  const p = book.params;
  const ref = book.staticReferencePrice;
  if (p.staticThresholdBps > 0 && abs(price - ref) * 10_000n > ref * BigInt(p.staticThresholdBps))
    return price > ref ? 3 : 4;
  const last = book.lastPrice;
  if (p.dynamicThresholdBps > 0 && abs(price - last) * 10_000n > last * BigInt(p.dynamicThresholdBps))
    return price > last ? 5 : 6;
  return 0;
}
