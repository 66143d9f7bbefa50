/**
 * A sleep the test steps by hand: `tick()` wakes whoever sleeps and returns once one of them sleeps again,
 * that is, after exactly one more round of a polling loop; `idle()` waits for the first round to end.
 */
import type { Sleep } from '../../../../src/chains/wasm/options.ts';

export class StepTimer {
  #sleepers: Array<() => void> = [];
  #arrivals: Array<() => void> = [];

  readonly sleep: Sleep = (_ms, signal) =>
    new Promise<void>((resolve, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      this.#sleepers.push(resolve);
      for (const arrived of this.#arrivals.splice(0)) arrived();
    });

  idle(): Promise<void> {
    if (this.#sleepers.length > 0) return Promise.resolve();
    return new Promise((resolve) => this.#arrivals.push(resolve));
  }

  async tick(): Promise<void> {
    const sleepers = this.#sleepers.splice(0);
    const next = new Promise<void>((resolve) => this.#arrivals.push(resolve));
    for (const wake of sleepers) wake();
    await next;
  }
}
