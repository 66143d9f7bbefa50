/**
 * Self-trade prevention across our own wallets. Several configured wallets may quote one pair; the venue's
 * contracts only stop an order meeting another order of the same client, so an order of one of our wallets
 * that would meet an order of another of ours (resting, or on its way and not refused yet) is refused before
 * it is signed. Every wallet of the process shares the store, where an order is recorded before anything is
 * signed: two wallets deciding at the same moment cannot both pass.
 */
import { DltError } from '../../../core/errors.ts';
import type { Side } from '../../../core/order-terms.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import type { WalletContext } from '../wallet-context.ts';

/** An order of another of our wallets on the pair that an order of `side` at raw `price` would meet. */
export function ownOrderInTheWay(
  ctx: Pick<WalletContext, 'wallet' | 'repos'>,
  pairId: string,
  side: Side,
  price: bigint,
): StoredOrder | undefined {
  return ctx.repos.orders
    .live({ pairId })
    .find((o) => o.wallet !== ctx.wallet && o.side !== side && (side === 'buy' ? o.price <= price : o.price >= price));
}

/** Refuses an order that would trade with another of our wallets, naming the order in the way. */
export function refuseSelfTrade(
  ctx: Pick<WalletContext, 'wallet' | 'repos'>,
  pairId: string,
  side: Side,
  price: bigint,
): void {
  const other = ownOrderInTheWay(ctx, pairId, side, price);
  if (other === undefined) return;
  throw new DltError(
    'E_OWN_WALLETS_WOULD_TRADE',
    `a ${side} at ${price} on ${pairId} would meet the ${other.side} at ${other.price} of our wallet ${other.wallet} (order ${other.clientOrderId}, ${other.status})`,
    { details: { pairId, wallet: other.wallet, clientOrderId: other.clientOrderId.toString() } },
  );
}
