/**
 * Approvals and placements' allowance steps of one allowance (a token and an order book) run one after another,
 * in the order given; those of other allowances (other books, the other token) do not wait for them (an approval
 * waits for its ledger).
 */
import type { PairBinding, TokenRole } from '../types.ts';

export class AllowanceLanes {
  readonly #lanes = new Map<string, Promise<unknown>>();
  readonly #closed: () => Error | null;

  /** `closed` says why no more work starts (the adapter closed), or null while it may. */
  constructor(closed: () => Error | null) {
    this.#closed = closed;
  }

  run<T>(pair: PairBinding, role: TokenRole, work: () => Promise<T>): Promise<T> {
    const key = `${role === 'base' ? pair.baseToken : pair.quoteToken}|${pair.orderBook}`;
    const run = (this.#lanes.get(key) ?? Promise.resolve()).then(() => {
      const closed = this.#closed();
      if (closed !== null) throw closed;
      return work();
    });
    const lane = run.catch(() => undefined);
    this.#lanes.set(key, lane);
    void lane.then(() => {
      if (this.#lanes.get(key) === lane) this.#lanes.delete(key);
    });
    return run;
  }
}
