/**
 * A round's actions against the pair's placements still queued from earlier rounds (recorded as intended, not
 * signed yet; the strategy does not count them as quoting): a placement the round decides again (same side,
 * price and quantity) stays in the queue, where it keeps its place, and the action is dropped; the round
 * supersedes the others, which are withdrawn unsigned.
 */
import { priceToRaw, quantityToRaw, type PairScales } from '../../core/units.ts';
import type { StoredOrder } from '../../store/order-store.ts';
import type { QuoteAction } from '../../strategy/types.ts';

export function keepQueued(
  actions: readonly QuoteAction[],
  queued: readonly StoredOrder[],
  scales: PairScales,
): { readonly actions: readonly QuoteAction[]; readonly kept: ReadonlySet<bigint> } {
  const kept = new Set<bigint>();
  if (queued.length === 0) return { actions, kept };
  const rest: QuoteAction[] = [];
  for (const action of actions) {
    if (action.type === 'place' || action.type === 'replace') {
      const price = priceToRaw(action.quote.price, scales);
      const quantity = quantityToRaw(action.quote.quantity, scales);
      const same = queued.find(
        (o) =>
          !kept.has(o.clientOrderId) && o.side === action.quote.side && o.price === price && o.quantity === quantity,
      );
      if (same !== undefined) {
        kept.add(same.clientOrderId);
        continue;
      }
    }
    rest.push(action);
  }
  return { actions: rest, kept };
}
