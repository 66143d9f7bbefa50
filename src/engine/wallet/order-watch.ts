/**
 * Waiting for an order to reach a status without polling: whoever applies an event to an order notifies
 * its id, and each waiter re-checks its condition against the store. A deadline comes from the injected
 * sleep, so tests never wait on the wall clock.
 */
import { WOKEN, type Sleep } from '../../core/clock.ts';

export class OrderWatch {
  readonly #waiters = new Map<bigint, Set<() => void>>();
  readonly #sleep: Sleep;

  constructor(sleep: Sleep) {
    this.#sleep = sleep;
  }

  notify(clientOrderId: bigint): void {
    for (const w of [...(this.#waiters.get(clientOrderId) ?? [])]) w();
  }

  notifyAll(): void {
    for (const id of [...this.#waiters.keys()]) this.notify(id);
  }

  /** Calls `listener` on every change of the order until the returned function is called. */
  onChange(clientOrderId: bigint, listener: () => void): () => void {
    const set = this.#waiters.get(clientOrderId) ?? new Set();
    set.add(listener);
    this.#waiters.set(clientOrderId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#waiters.get(clientOrderId) === set) this.#waiters.delete(clientOrderId);
    };
  }

  /** Resolves true once `check()` holds, false at the deadline. */
  async until(clientOrderId: bigint, check: () => boolean, timeoutMs: number): Promise<boolean> {
    if (check()) return true;
    const abort = new AbortController();
    const { promise: result, resolve: done } = Promise.withResolvers<boolean>();
    const waiter = () => {
      if (check()) done(true);
    };
    const set = this.#waiters.get(clientOrderId) ?? new Set();
    set.add(waiter);
    this.#waiters.set(clientOrderId, set);
    this.#sleep(timeoutMs, abort.signal).then(
      () => done(check()),
      () => {},
    );
    try {
      return await result;
    } finally {
      abort.abort(WOKEN);
      set.delete(waiter);
      if (set.size === 0) this.#waiters.delete(clientOrderId);
    }
  }
}
