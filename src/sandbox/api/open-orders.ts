/**
 * The participant and wallet order lists, which on the venue lag the chain by a couple of seconds: every
 * change of a resting order (placed, partly filled, gone) is kept with the time the venue saw it, and a list
 * shows the state as of `now - lag`. The lag runs on the wall clock (the sandbox clock may be frozen or
 * racing ahead in tests); a lag of 0 shows the current state.
 */
import type { RestingOrderView } from './pair-book.ts';

export type OpenOrder = Omit<RestingOrderView, 'remaining'> & {
  readonly remaining: bigint;
  /** Venue time (the sandbox clock) of the change the list shows: placement or the last fill. */
  readonly modifiedAtMs: number;
};

interface Version {
  readonly atMs: number;
  /** Venue time of the change (the sandbox clock). */
  readonly stampMs: number;
  /** null once the order no longer rests. */
  readonly remaining: bigint | null;
}

interface Tracked {
  readonly order: OpenOrder;
  readonly versions: Version[];
}

/** Forgotten this long after the lag has passed the order's end. */
const KEEP_AFTER_CLOSE_MS = 5_000;

export class LaggedOrders {
  readonly #lagMs: number;
  readonly #now: () => number;
  readonly #stamp: () => number;
  readonly #tracked = new Map<string, Tracked>();

  /** `now` runs the lag (wall time); `stamp` dates each change for the records (venue time). */
  constructor(lagMs: number, now: () => number = () => performance.now(), stamp: () => number = Date.now) {
    this.#lagMs = lagMs;
    this.#now = now;
    this.#stamp = stamp;
  }

  get lagMs(): number {
    return this.#lagMs;
  }

  #key(o: { pairId: string; orderId: bigint }): string {
    return `${o.pairId}#${o.orderId}`;
  }

  /** Records the order's current remaining quantity (an order seen for the first time starts here). */
  update(order: RestingOrderView): void {
    const at = this.#now();
    const stampMs = this.#stamp();
    const key = this.#key(order);
    const t = this.#tracked.get(key);
    if (t === undefined) {
      this.#tracked.set(key, {
        order: { ...order, remaining: order.remaining, modifiedAtMs: order.placedAtMs },
        versions: [{ atMs: at, stampMs: order.placedAtMs, remaining: order.remaining }],
      });
    } else {
      t.versions.push({ atMs: at, stampMs, remaining: order.remaining });
    }
    this.#prune(at);
  }

  close(order: { pairId: string; orderId: bigint }): void {
    const t = this.#tracked.get(this.#key(order));
    if (t === undefined) return;
    const at = this.#now();
    t.versions.push({ atMs: at, stampMs: this.#stamp(), remaining: null });
    this.#prune(at);
  }

  /** Open orders as of `now - lag` that pass the filter, in (pair, order id) order. */
  list(filter: (o: OpenOrder) => boolean = () => true): OpenOrder[] {
    const asOf = this.#now() - this.#lagMs;
    const out: OpenOrder[] = [];
    for (const t of this.#tracked.values()) {
      let state: Version | undefined;
      for (const v of t.versions) {
        if (v.atMs > asOf) break;
        state = v;
      }
      if (state === undefined || state.remaining === null || state.remaining === 0n) continue;
      const o = { ...t.order, remaining: state.remaining, modifiedAtMs: state.stampMs };
      if (filter(o)) out.push(o);
    }
    return out.toSorted((a, b) =>
      a.pairId === b.pairId ? (a.orderId < b.orderId ? -1 : 1) : a.pairId < b.pairId ? -1 : 1,
    );
  }

  #prune(at: number): void {
    const before = at - this.#lagMs - KEEP_AFTER_CLOSE_MS;
    for (const [key, t] of this.#tracked) {
      const last = t.versions[t.versions.length - 1] as Version;
      if (last.remaining === null && last.atMs < before) this.#tracked.delete(key);
      else if (t.versions.length > 8) {
        // Older versions than the one in force at the lag horizon are never read again.
        const horizon = at - this.#lagMs;
        let keepFrom = 0;
        for (let i = 0; i < t.versions.length; i++) if ((t.versions[i] as Version).atMs <= horizon) keepFrom = i;
        if (keepFrom > 0) t.versions.splice(0, keepFrom);
      }
    }
  }
}
