/**
 * The orders that are or may be on the book, kept in memory by the process that writes them: every quote
 * round reads its pair's live orders, and every chain event looks its order up, so reading them back from
 * SQLite after each change cost more than the change. The index is loaded from the table once (at its first
 * use) and then follows each write: an order enters when it is created, is replaced by what was written, and
 * leaves when its status is terminal. A rolled-back change empties it, to be loaded again from what stands.
 * Orders that left (filled, cancelled, rejected) are read from the table as before.
 */
import { isTerminal, type OrderRecord } from '../core/order-state.ts';
import type { StoredOrder } from './order-rows.ts';

const keyOf = (wallet: string, clientOrderId: bigint): string => `${wallet}|${clientOrderId}`;
const venueKeyOf = (chain: string, pairId: string, orderId: bigint): string => `${chain}|${pairId}|${orderId}`;

/** Oldest first: created time, then client order id (the order the table's reads give). */
function older(a: StoredOrder, b: StoredOrder): number {
  if (a.createdMs !== b.createdMs) return a.createdMs - b.createdMs;
  return a.clientOrderId < b.clientOrderId ? -1 : a.clientOrderId > b.clientOrderId ? 1 : 0;
}

/** `current` as the table holds it after `record`'s changes were written at `nowMs` (what a read would give). */
export function asWritten(current: StoredOrder, record: OrderRecord, nowMs: number): StoredOrder {
  return {
    ...current,
    status: record.status,
    orderId: record.orderId,
    filled: record.filled,
    fillIds: [...record.fillIds],
    txHash: record.txHash,
    cancelTxHash: record.cancelTxHash,
    rejection:
      record.rejection === null ? null : { code: record.rejection.code ?? null, reason: record.rejection.reason },
    cancelledBy: record.cancelledBy,
    unexplained: record.unexplained,
    updatedMs: nowMs,
  };
}

export class LiveOrderIndex {
  readonly #load: () => readonly StoredOrder[];
  #byKey: Map<string, StoredOrder> | null = null;
  /** The venue's order id of each indexed order that has one. */
  readonly #byVenueId = new Map<string, string>();
  /** The indexed orders of each pair (a round reads its pair's only, among every pair's). */
  readonly #byPair = new Map<string, Map<string, StoredOrder>>();

  /** `load` reads every live order from the table. */
  constructor(load: () => readonly StoredOrder[]) {
    this.#load = load;
  }

  #orders(): Map<string, StoredOrder> {
    if (this.#byKey === null) {
      this.#byKey = new Map();
      for (const order of this.#load()) this.#add(this.#byKey, order);
    }
    return this.#byKey;
  }

  #add(orders: Map<string, StoredOrder>, order: StoredOrder): void {
    const key = keyOf(order.wallet, order.clientOrderId);
    orders.set(key, order);
    const pair = this.#byPair.get(order.pairId) ?? new Map<string, StoredOrder>();
    this.#byPair.set(order.pairId, pair.set(key, order));
    if (order.orderId !== null) this.#byVenueId.set(venueKeyOf(order.chain, order.pairId, order.orderId), key);
  }

  /** The order as last written, when it is live; undefined when it is not (or not known here). */
  get(wallet: string, clientOrderId: bigint): StoredOrder | undefined {
    return this.#orders().get(keyOf(wallet, clientOrderId));
  }

  /** The live order the venue knows by `orderId` on the pair, if any. */
  byVenueId(chain: string, pairId: string, orderId: bigint): StoredOrder | undefined {
    const orders = this.#orders();
    const key = this.#byVenueId.get(venueKeyOf(chain, pairId, orderId));
    return key === undefined ? undefined : orders.get(key);
  }

  /** Live orders (of a wallet, of a pair), oldest first. */
  live(filter: { wallet?: string; pairId?: string }): StoredOrder[] {
    const out: StoredOrder[] = [];
    const orders = this.#orders();
    const among = filter.pairId === undefined ? orders : (this.#byPair.get(filter.pairId) ?? new Map());
    for (const order of among.values()) {
      if (filter.wallet !== undefined && order.wallet !== filter.wallet) continue;
      if (filter.pairId !== undefined && order.pairId !== filter.pairId) continue;
      out.push(order);
    }
    return out.length < 2 ? out : out.toSorted(older);
  }

  /** The order as just written: kept while live, dropped once terminal. */
  written(order: StoredOrder): void {
    if (this.#byKey === null) return;
    const key = keyOf(order.wallet, order.clientOrderId);
    const before = this.#byKey.get(key);
    if (before !== undefined && before.orderId !== null)
      this.#byVenueId.delete(venueKeyOf(before.chain, before.pairId, before.orderId));
    if (isTerminal(order.status)) {
      this.#byKey.delete(key);
      this.#byPair.get(order.pairId)?.delete(key);
    } else this.#add(this.#byKey, order);
  }

  /** Forgets everything (a change was rolled back): the next read loads the table again. */
  clear(): void {
    this.#byKey = null;
    this.#byVenueId.clear();
    this.#byPair.clear();
  }
}
