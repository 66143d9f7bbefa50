/** The chain events of our wallet's orders, and our order an event names (see tx-applier.ts). */
import type { ChainEvent } from '../../../chains/types.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import { sameAddress } from '../fills/flows.ts';
import type { WalletContext } from '../wallet-context.ts';

/** The chain event of one type. */
export type EventOf<T extends ChainEvent['type']> = Extract<ChainEvent, { type: T }>;

/** An order event (no transfer) of our wallet on one of its pairs. */
export function isMine(ctx: WalletContext, event: ChainEvent): event is Exclude<ChainEvent, EventOf<'Transfer'>> {
  return event.type !== 'Transfer' && sameAddress(event.client, ctx.wallet) && ctx.pairs.has(event.pairId);
}

/** Our order with this venue order id on the pair, if the store has it. */
export function byVenueId(ctx: WalletContext, pairId: string, orderId: bigint): StoredOrder | undefined {
  return ctx.repos.orders.byVenueId(ctx.chain, pairId, orderId);
}
