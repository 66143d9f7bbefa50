/**
 * Withdrawing placements not signed yet (see order-manager.ts): one abort signal per pair, shared by its
 * placements until it is aborted (the next placement gets a fresh one), and the placements withdrawn while the
 * adapter had them, which stay as they are in the store until the adapter answers (they may be past signing).
 */
import { DltError, isDltError } from '../../../core/errors.ts';
import type { StoredOrder } from '../../../store/order-store.ts';

export class Withdrawals {
  /** Per pair: aborted to withdraw the placements queued for it (and not signed yet). */
  readonly #controllers = new Map<string, AbortController>();
  /** Placements withdrawn while the adapter had them, until they settle. */
  readonly #inAdapter = new Set<bigint>();

  /** The signal the pair's placements are withdrawn by. */
  signal(pairId: string): AbortSignal {
    let controller = this.#controllers.get(pairId);
    if (controller === undefined) {
      controller = new AbortController();
      this.#controllers.set(pairId, controller);
    }
    return controller.signal;
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

  settled(clientOrderId: bigint): void {
    this.#inAdapter.delete(clientOrderId);
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
