/**
 * Our quotes as the chain shows them (see tracker.ts): each confirmed `OrderResting` and `OrderCancelled` of
 * an order of ours is written down at its block or ledger time, and a quote the store shows gone (taken whole
 * by fills, or an event missed) is ended from the store.
 */
import type { ChainEvent } from '../../chains/types.ts';
import type { Store } from '../../store/store.ts';
import { reopen, type Tracked } from './tracked-pair.ts';

function sameAddress(left: string, right: string): boolean {
  return left.toLowerCase() === right.toLowerCase();
}

/**
 * Records the resting and cancelled quotes of `wallet` among `events`, and reopens the figures each of them
 * and each maker fill touches. Returns the ids of the pairs touched.
 */
export function recordQuotes(
  store: Store,
  pairs: ReadonlyMap<string, Tracked>,
  chain: 'evm' | 'wasm',
  wallet: string,
  events: readonly ChainEvent[],
): Set<string> {
  const touched = new Set<string>();
  for (const event of events) {
    if (event.type !== 'OrderResting' && event.type !== 'OrderCancelled') continue;
    const tracked = pairs.get(event.pairId);
    if (
      tracked === undefined ||
      tracked.pair.binding.chain !== chain ||
      !sameAddress(event.client, wallet) ||
      !sameAddress(tracked.pair.wallet, wallet)
    )
      continue;
    // Only orders of this bot: one the store does not know (placed by someone else with our wallet) is no quote of ours.
    if (store.orders.byVenueId(chain, event.pairId, event.orderId) === undefined) continue;
    const quote = { chain, wallet: tracked.pair.wallet, pairId: event.pairId, orderId: event.orderId };
    if (event.type === 'OrderResting')
      store.obligations.rested({
        ...quote,
        side: event.side,
        price: event.price,
        quantity: event.quantity,
        atMs: event.timeMs,
        height: event.height,
      });
    else store.obligations.ended({ ...quote, atMs: event.timeMs, height: event.height, kind: 'cancel' });
    reopen(tracked, event.timeMs);
    touched.add(event.pairId);
  }
  // Maker fills the engine attributed in this batch split our quotes' spans, and may have taken an order whole.
  for (const event of events) {
    const tracked = event.type === 'Transfer' ? pairs.get(event.pairId) : undefined;
    if (tracked === undefined) continue;
    reopen(tracked, event.timeMs);
    touched.add(event.pairId);
  }
  return touched;
}

/** Quotes recorded as resting that the store shows gone (taken whole by fills, or a missed event). */
export function settleFromStore(store: Store, tracked: Tracked, nowMs: number): void {
  for (const quote of store.obligations.open(tracked.pair.binding.pairId)) {
    const order = store.orders.byVenueId(quote.chain, quote.pairId, quote.orderId);
    if (
      order === undefined ||
      (order.status !== 'filled' && order.status !== 'cancelled' && order.status !== 'rejected')
    )
      continue;
    const fills = store.orders.fillsOf(order.wallet, order.clientOrderId).filter((fill) => fill.role === 'maker');
    const last = fills.at(-1);
    const filled = order.status === 'filled' && last !== undefined;
    const end = filled
      ? { atMs: last.atMs, height: last.height, kind: 'filled' as const }
      : { atMs: Math.min(order.updatedMs, nowMs), height: null, kind: 'store' as const };
    store.obligations.ended({
      chain: quote.chain,
      wallet: quote.wallet,
      pairId: quote.pairId,
      orderId: quote.orderId,
      ...end,
    });
    reopen(tracked, end.atMs);
  }
}
