/**
 * An `OrderReceived` of our wallet (see tx-applier.ts): an order the bot did not place is recorded as foreign
 * and alerted once; one of ours the store does not know is adopted; one that reached the book twice, was
 * recorded as never placed, or carries other terms than recorded is alerted; otherwise the order is accepted.
 */
import { newOrder } from '../../../core/order-state.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import { raiseAlert } from '../alerts.ts';
import { makerRateOf } from '../pair-runtime.ts';
import { pairOf, type WalletContext } from '../wallet-context.ts';
import type { OrderEvents } from './order-events.ts';
import type { EventOf } from './own-events.ts';

type Received = EventOf<'OrderReceived'>;

/** An order of our wallet that this bot did not place: recorded, and alerted the first time it is seen. */
function foreignOrder(ctx: WalletContext, received: Received): void {
  const first = ctx.repos.foreign.seen({
    chain: ctx.chain,
    wallet: ctx.wallet,
    pairId: received.pairId,
    orderId: received.orderId,
    crossId: received.crossIdentifier,
    side: received.side,
    quantity: received.quantity,
    price: received.price,
    source: 'events',
  });
  if (first)
    raiseAlert(
      ctx,
      received.pairId,
      'foreign-order',
      `order ${received.orderId} of our wallet was not placed by this bot (cross identifier ${received.crossIdentifier})`,
      { orderId: received.orderId, crossId: received.crossIdentifier, txHash: received.txHash },
      false,
    );
}

/** Ours by its cross identifier, but not in the store (a lost or replaced state file): adopted. */
function adoptOrder(ctx: WalletContext, received: Received): StoredOrder {
  const pair = pairOf(ctx, received.pairId);
  ctx.ids.adopt(received.crossIdentifier);
  const order = ctx.repos.orders.create(
    newOrder({
      clientOrderId: received.crossIdentifier,
      pairId: received.pairId,
      side: received.side,
      quantity: received.quantity,
      price: received.price,
    }),
    {
      wallet: ctx.wallet,
      chain: ctx.chain,
      adopted: true,
      lockRateBps: makerRateOf(pair, ctx.marketMaker),
      prefunded: pair.prefunded,
    },
  );
  ctx.logger.warn(
    { clientOrderId: received.crossIdentifier, orderId: received.orderId, txHash: received.txHash },
    'adopted an order of ours that the store did not know',
  );
  return order;
}

/**
 * Alerts what the event says is wrong with the order; true when the order is not to be accepted (it reached
 * the book twice, or was recorded as never placed). Other terms than recorded are alerted and accepted.
 */
function refused(ctx: WalletContext, order: StoredOrder, received: Received): boolean {
  const { pairId, orderId, txHash } = received;
  if (order.orderId !== null && order.orderId !== orderId) {
    raiseAlert(
      ctx,
      pairId,
      'duplicate-placement',
      `client order id ${order.clientOrderId} reached the book twice (orders ${order.orderId} and ${orderId})`,
      { clientOrderId: order.clientOrderId, orderIds: [order.orderId, orderId], txHash },
    );
    return true;
  }
  if (order.status === 'rejected') {
    raiseAlert(
      ctx,
      pairId,
      'order-resurrected',
      `order ${order.clientOrderId}, recorded as never placed, is on the book as ${orderId}`,
      { clientOrderId: order.clientOrderId, orderId, rejection: order.rejection },
    );
    return true;
  }
  if (order.side !== received.side || order.quantity !== received.quantity || order.price !== received.price) {
    raiseAlert(
      ctx,
      pairId,
      'terms-mismatch',
      `order ${order.clientOrderId} reached the book with other terms than recorded`,
      {
        recorded: { side: order.side, quantity: order.quantity, price: order.price },
        onChain: { side: received.side, quantity: received.quantity, price: received.price },
      },
    );
  }
  return false;
}

/** Applies an `OrderReceived`; true when it is done with (applied, or nothing of ours to apply it to). */
export function applyReceived(ctx: WalletContext, events: OrderEvents, received: Received): boolean {
  if (!ctx.ids.isOurs(received.crossIdentifier)) {
    foreignOrder(ctx, received);
    return true;
  }
  let order = ctx.repos.orders.get(ctx.wallet, received.crossIdentifier) ?? adoptOrder(ctx, received);
  if (refused(ctx, order, received)) return true;
  if (order.status === 'intended')
    order = events.apply(order, { type: 'SubmissionSent', txHash: received.txHash }) ?? order;
  return events.apply(order, { type: 'Accepted', orderId: received.orderId }) !== null;
}
