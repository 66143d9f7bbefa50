/** Cancellations: by the owner or the admin, by the contract at the end of the day, and of an unfunded match. */
import type { Side } from '../../core/order-terms.ts';
import { baseNative, lockFor } from './amounts.ts';
import { removeResting, sideOf } from './book.ts';
import { fail } from './checks.ts';
import type { Book, BookContext, BookEvent, CancelBy, RestingOrder } from './types.ts';

const CANCEL_CODE: Record<CancelBy, 0 | 1 | 2> = { ByParticipant: 0, ByAdmin: 1, ByContract: 2 };

/** Removes a resting order, returns its lock to the owner and describes the cancellation. */
export function cancelResting(book: Book, ctx: BookContext, order: RestingOrder, by: CancelBy): BookEvent {
  removeResting(book, order.side, order.id);
  const p = book.params;
  const token = order.side === 'buy' ? 'quote' : 'base';
  if (p.prefunded) {
    const amount =
      order.side === 'buy'
        ? lockFor(order.price, order.remaining, order.lockRateBps, p.scales)
        : baseNative(order.remaining, p.scales);
    if (amount > 0n) ctx.ledger.transfer(token, p.self, order.wallet, amount);
  }
  return {
    type: 'CancelOrder',
    client: order.wallet,
    orderId: order.id,
    quantity: order.remaining,
    price: order.price,
    cancellationType: CANCEL_CODE[by],
    token,
    toAddress: order.wallet,
  };
}

export function cancelOrder(
  book: Book,
  ctx: BookContext,
  caller: string,
  side: Side,
  orderId: bigint,
  by: 'ByParticipant' | 'ByAdmin',
): BookEvent[] {
  if (by === 'ByParticipant') {
    const client = ctx.client(caller);
    if (client === undefined) fail('E_VENUE_CLIENT_NOT_FOUND', `${caller} is not in the client registry`, { caller });
    if (!client.canCancel) fail('E_VENUE_NOT_ALLOWED_TO_CANCEL', `${caller} may not cancel`, { caller });
  }
  const order = sideOf(book, side).find((o) => o.id === orderId);
  if (order === undefined) fail('E_VENUE_ORDER_NOT_FOUND', `no resting ${side} order ${orderId}`, { orderId, side });
  if (by === 'ByParticipant' && order.wallet !== caller)
    fail('E_VENUE_NOT_ALLOWED_TO_CANCEL', `order ${orderId} belongs to another wallet`, { orderId });
  return [cancelResting(book, ctx, order, by)];
}

/** End-of-day clearing: every GFD order and every expired GTD order, in order id order, `ByContract`. */
export function clearOrders(book: Book, ctx: BookContext): BookEvent[] {
  const due = [...book.buys, ...book.sells]
    .filter((o) => o.validity === 'gfd' || (o.expiresAt !== null && o.expiresAt <= ctx.nowSeconds))
    .toSorted((a, b) => (a.id < b.id ? -1 : 1));
  return due.map((o) => cancelResting(book, ctx, o, 'ByContract'));
}
