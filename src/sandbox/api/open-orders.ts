/**
 * The participant and wallet order lists, which on the venue lag the chain by a couple of seconds: every
 * change of an order (received, resting, partly filled, ended) is kept with the time the venue saw it, and a
 * list shows the state as of `now - lag`. The lag runs on the wall clock (the sandbox clock may be frozen or
 * racing ahead in tests); a lag of 0 shows the current state. Ended orders (filled, cancelled, rejected) stay
 * listable with `only_open=false`: the most recent `keepClosed` of them are kept, older ones are forgotten.
 */
import type { OrderEnd, ReceivedOrder } from './market.ts';
import type { RestingOrderView } from './pair-book.ts';

export type ListedStatus = 'OPEN' | OrderEnd['status'];

/** One order as a list shows it. */
export type ListedOrder = Omit<RestingOrderView, 'remaining'> & {
  readonly remaining: bigint;
  /** Venue time (the sandbox clock) of the change the list shows: placement, the last fill or the end. */
  readonly modifiedAtMs: number;
  readonly status: ListedStatus;
  readonly statusReason: string;
  /** From `OrderReceived`; null for an order the venue saw only resting. */
  readonly crossId: bigint | null;
  readonly reportingData: Uint8Array | null;
};

type Terms = Omit<ListedOrder, 'remaining' | 'modifiedAtMs' | 'status' | 'statusReason'>;

interface Version {
  readonly atMs: number;
  /** Venue time of the change (the sandbox clock). */
  readonly stampMs: number;
  readonly remaining: bigint;
  readonly status: ListedStatus;
  readonly reason: string;
}

interface Tracked {
  readonly terms: Terms;
  /** Empty while the order is only received (matching has not said what became of it). */
  readonly versions: Version[];
}

const DEFAULT_KEEP_CLOSED = 10_000;

function byPairThenId(a: ListedOrder, b: ListedOrder): number {
  if (a.pairId !== b.pairId) return a.pairId < b.pairId ? -1 : 1;
  return a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0;
}

export class LaggedOrders {
  readonly #lagMs: number;
  readonly #now: () => number;
  readonly #stamp: () => number;
  readonly #keepClosed: number;
  readonly #tracked = new Map<string, Tracked>();
  /** Keys of ended orders, in the order they ended. */
  #closed: string[] = [];

  /** `now` runs the lag (wall time); `stamp` dates each change for the records (venue time). */
  constructor(
    lagMs: number,
    now: () => number = () => performance.now(),
    stamp: () => number = Date.now,
    keepClosed = DEFAULT_KEEP_CLOSED,
  ) {
    this.#lagMs = lagMs;
    this.#now = now;
    this.#stamp = stamp;
    this.#keepClosed = keepClosed;
  }

  get lagMs(): number {
    return this.#lagMs;
  }

  #key(order: { pairId: string; orderId: bigint }): string {
    return `${order.pairId}#${order.orderId}`;
  }

  /** An order arrived: its terms are kept; it is listed once it rests or ends. */
  receive(order: ReceivedOrder): void {
    const key = this.#key(order);
    if (this.#tracked.has(key)) return;
    const { pairId, orderId, wallet, side, price, quantity, orderType, condition, crossId, reportingData } = order;
    const terms = { pairId, orderId, wallet, side, price, quantity, orderType, condition, crossId, reportingData };
    this.#tracked.set(key, { terms: { ...terms, placedAtMs: order.placedAtMs }, versions: [] });
  }

  /** Records the order's current remaining quantity (an order seen for the first time starts here). */
  update(order: RestingOrderView): void {
    const at = this.#now();
    const key = this.#key(order);
    let t = this.#tracked.get(key);
    if (t === undefined) {
      const { pairId, orderId, wallet, side, price, quantity, orderType, condition, placedAtMs } = order;
      const terms = { pairId, orderId, wallet, side, price, quantity, orderType, condition, placedAtMs };
      t = { terms: { ...terms, crossId: null, reportingData: null }, versions: [] };
      this.#tracked.set(key, t);
    }
    const stampMs = t.versions.length === 0 ? t.terms.placedAtMs : this.#stamp();
    t.versions.push({ atMs: at, stampMs, remaining: order.remaining, status: 'OPEN', reason: 'N_A' });
    this.#prune(at, t);
  }

  /** The order ended; an order never received nor seen resting is not the venue's to record. */
  end(e: OrderEnd): void {
    const key = this.#key(e);
    const t = this.#tracked.get(key);
    const last = t?.versions.at(-1);
    if (t === undefined || (last !== undefined && last.status !== 'OPEN')) return;
    const at = this.#now();
    t.versions.push({ atMs: at, stampMs: this.#stamp(), remaining: e.remaining, status: e.status, reason: e.reason });
    this.#closed.push(key);
    this.#prune(at, t);
  }

  /**
   * Orders as of `now - lag` that pass the filter, in (pair, order id) order: the open ones, or with
   * `onlyOpen` false the ended ones too.
   */
  list(filter: (order: ListedOrder) => boolean = () => true, onlyOpen = true): ListedOrder[] {
    const asOf = this.#now() - this.#lagMs;
    const out: ListedOrder[] = [];
    for (const t of this.#tracked.values()) {
      let state: Version | undefined;
      for (const v of t.versions) {
        if (v.atMs > asOf) break;
        state = v;
      }
      if (state === undefined) continue;
      if (state.status === 'OPEN' ? state.remaining === 0n : onlyOpen) continue;
      const order: ListedOrder = {
        ...t.terms,
        remaining: state.remaining,
        modifiedAtMs: state.stampMs,
        status: state.status,
        statusReason: state.reason,
      };
      if (filter(order)) out.push(order);
    }
    return out.toSorted(byPairThenId);
  }

  #prune(at: number, touched: Tracked): void {
    const horizon = at - this.#lagMs;
    // The oldest ended orders beyond the kept number go, once the lists show them ended.
    let drop = 0;
    while (this.#closed.length - drop > this.#keepClosed) {
      const key = this.#closed[drop] as string;
      const last = this.#tracked.get(key)?.versions.at(-1);
      if (last !== undefined && last.atMs > horizon) break;
      this.#tracked.delete(key);
      drop++;
    }
    if (drop > 0) this.#closed = this.#closed.slice(drop);
    const v = touched.versions;
    if (v.length <= 8) return;
    // Older versions than the one in force at the lag horizon are never read again.
    let keepFrom = 0;
    for (let i = 0; i < v.length; i++) if ((v[i] as Version).atMs <= horizon) keepFrom = i;
    if (keepFrom > 0) v.splice(0, keepFrom);
  }
}
