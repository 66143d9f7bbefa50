/**
 * Withdrawing placements not signed yet (see order-manager.ts): one abort signal per pair, shared by its
 * placements until it is aborted (the next placement gets a fresh one), one per placement (a newer decision
 * withdraws those it does not keep), and the placements withdrawn while the adapter had them, which stay as
 * they are in the store until the adapter answers (they may be past signing).
 */
import { DltError, isDltError } from '../../../core/errors.ts';
import type { StoredOrder } from '../../../store/order-store.ts';

export class Withdrawals {
  /** Per pair: aborted to withdraw the placements queued for it (and not signed yet). */
  readonly #controllers = new Map<string, AbortController>();
  /** Per pair: each placement not settled yet, with what withdraws it alone. */
  readonly #placements = new Map<string, Map<bigint, AbortController>>();
  /** Placements withdrawn while the adapter had them, until they settle. */
  readonly #inAdapter = new Set<bigint>();

  /** The signal a placement is withdrawn by: its pair's, or its own. */
  signal(pairId: string, clientOrderId: bigint): AbortSignal {
    let controller = this.#controllers.get(pairId);
    if (controller === undefined) {
      controller = new AbortController();
      this.#controllers.set(pairId, controller);
    }
    const own = new AbortController();
    const placements = this.#placements.get(pairId) ?? new Map<bigint, AbortController>();
    placements.set(clientOrderId, own);
    this.#placements.set(pairId, placements);
    return AbortSignal.any([controller.signal, own.signal]);
  }

  /** A newer decision of the pair: its placements not settled yet are withdrawn, but for those it keeps. */
  supersede(pairId: string, keep: ReadonlySet<bigint>): void {
    const details = { pairId, superseded: true };
    for (const [cid, own] of this.#placements.get(pairId) ?? []) {
      if (keep.has(cid)) continue;
      own.abort(new DltError('E_ORDER_WITHDRAWN', 'placement withdrawn: superseded by a newer decision', { details }));
      this.#placements.get(pairId)?.delete(cid);
    }
  }

  /** Withdraws the placements of a pair (or of every pair); `superseded`: by a newer decision of the pair. */
  withdraw(reason: string, pairId?: string, superseded = false): void {
    const pairs = pairId === undefined ? [...this.#controllers.keys()] : [pairId];
    for (const pair of pairs) {
      const details = superseded ? { pairId: pair, superseded: true } : { pairId: pair };
      this.#controllers
        .get(pair)
        ?.abort(new DltError('E_ORDER_WITHDRAWN', `placement withdrawn: ${reason}`, { details }));
      this.#controllers.delete(pair);
    }
  }

  /** A placement withdrawn while the adapter had it, until `settled`. */
  inAdapter(clientOrderId: bigint): void {
    this.#inAdapter.add(clientOrderId);
  }

  /** The placement settled (or never left): nothing to withdraw any more. */
  settled(pairId: string, clientOrderId: bigint): void {
    this.#inAdapter.delete(clientOrderId);
    this.#placements.get(pairId)?.delete(clientOrderId);
  }

  /** Withdrawn while the adapter had it and still intended: no decision counts it as quoting. */
  pending(order: StoredOrder): boolean {
    return order.status === 'intended' && this.#inAdapter.has(order.clientOrderId);
  }
}

/** Whether a signal was aborted by a newer decision of the pair. */
export function superseded(signal: AbortSignal): boolean {
  return signal.aborted && isDltError(signal.reason) && signal.reason.details.superseded === true;
}
