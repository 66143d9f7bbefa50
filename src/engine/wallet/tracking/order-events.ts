/**
 * Applying one event to one of our orders: through the store (and so the core transition table), with the
 * fill's inventory change in the same transaction, a log line and a count for every refusal, and the order's
 * waiters told once the surrounding transaction has committed. Changes made `within` a chain transaction's
 * source are recorded with it, so that they can be withdrawn if its block is reorganised away.
 */
import type { OrderEvent } from '../../../core/order-state.ts';
import type { ChangeSource, FillRecord, StoredOrder } from '../../../store/order-store.ts';
import { pairOf, type WalletContext } from '../wallet-context.ts';

export class OrderEvents {
  readonly #ctx: WalletContext;
  readonly #touched = new Set<bigint>();
  #source: ChangeSource | null = null;

  constructor(ctx: WalletContext) {
    this.#ctx = ctx;
  }

  /** Runs `fn` with every change it applies recorded as derived from `source` (null: from no chain transaction). */
  within<T>(source: ChangeSource | null, fn: () => T): T {
    const before = this.#source;
    this.#source = source;
    try {
      return fn();
    } finally {
      this.#source = before;
    }
  }

  /** The chain transaction the changes being applied come from, if any. */
  get source(): ChangeSource | null {
    return this.#source;
  }

  /** Tells the waiters of one order (after a change made outside `apply`). */
  touched(clientOrderId: bigint): void {
    this.#touched.add(clientOrderId);
  }

  /** Applies `event`; returns the updated order, or null when the table refused it (logged and counted). */
  apply(order: StoredOrder, event: OrderEvent, fill?: FillRecord): StoredOrder | null {
    const ctx = this.#ctx;
    const result = ctx.repos.atomically(() => {
      const r = ctx.repos.orders.apply(ctx.wallet, order.clientOrderId, event, fill, this.#source);
      if (r.ok && fill !== undefined) {
        const b = pairOf(ctx, order.pairId).binding;
        ctx.repos.inventory.add(ctx.chain, ctx.wallet, b.baseToken, fill.baseDelta);
        ctx.repos.inventory.add(ctx.chain, ctx.wallet, b.quoteToken, fill.quoteDelta);
      }
      return r;
    });
    if (!result.ok) {
      ctx.metrics.eventsRefused.inc({ chain: ctx.chain, event: event.type });
      ctx.logger.warn(
        { clientOrderId: order.clientOrderId, status: order.status, event, reason: result.reason },
        'order event refused; nothing changed',
      );
      return null;
    }
    ctx.metrics.eventsApplied.inc({ chain: ctx.chain, event: event.type });
    if (fill !== undefined) ctx.metrics.fills.inc({ chain: ctx.chain, pair: order.pairId, role: fill.role });
    this.#touched.add(order.clientOrderId);
    return ctx.repos.orders.get(ctx.wallet, order.clientOrderId) ?? null;
  }

  /** Tells the waiters of every order changed since the last flush; call after the transaction commits. */
  flush(): void {
    const ids = [...this.#touched];
    this.#touched.clear();
    for (const id of ids) this.#ctx.watch.notify(id);
  }

  /** Forgets changes that were rolled back. */
  discard(): void {
    this.#touched.clear();
  }
}
