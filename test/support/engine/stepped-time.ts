/**
 * One test clock for an order engine and its real chain A adapter on a local node: a clock that moves only when
 * told, sleeps that wake when it passes them, and a JSON-RPC transport that counts the requests in flight.
 * `settled()` resolves once no request is in flight and none started over several turns of the event loop:
 * every loop is then parked in a sleep or waits for something only the test (or more time) can cause. Each
 * `advance` moves the clock, wakes what fell due and waits for that; nothing waits on the wall clock's pace.
 */
import { httpTransport, type RpcTransport } from '../../../src/chains/evm/json-rpc.ts';
import type { Sleep } from '../../../src/core/clock.ts';
import { TestClock } from '../clock.ts';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class SteppedTime {
  #inFlight = new Set<Promise<unknown>>();
  #started = 0;

  /** The clock of everything under test: its sleeps are its timers. */
  readonly clock: TestClock;
  readonly sleep: Sleep;

  constructor(start = Date.UTC(2026, 2, 2, 9, 0, 0)) {
    this.clock = new TestClock(start);
    this.sleep = this.clock.sleep;
  }

  /** A transport to `url` whose requests `settled()` waits for. */
  transport(url: string): RpcTransport {
    const real = httpTransport(url, { timeoutMs: 30_000 });
    return (method, params) => {
      this.#started += 1;
      const p = real(method, params);
      this.#inFlight.add(p);
      const done = () => this.#inFlight.delete(p);
      p.then(done, done);
      return p;
    };
  }

  get now(): number {
    return this.clock.now();
  }

  /** Resolves once nothing is in flight and nothing new started over a few turns of the event loop. */
  async settled(): Promise<void> {
    for (;;) {
      const before = this.#started;
      while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
      for (let i = 0; i < 5; i++) await turn();
      if (this.#inFlight.size === 0 && this.#started === before) return;
    }
  }

  /** Moves the clock by `ms`, wakes every sleep that fell due (earliest first) and waits until all is settled. */
  async advance(ms: number): Promise<void> {
    await this.settled();
    this.clock.advance(ms);
    await this.settled();
  }

  /** Advances in steps of `ms` until `done()` holds; fails after `max` steps. */
  async until(done: () => boolean, ms = 1_000, max = 60, what = 'the condition'): Promise<void> {
    await this.settled();
    for (let i = 0; i < max && !done(); i++) await this.advance(ms);
    if (!done()) throw new Error(`${what} did not hold after ${max} steps of ${ms} ms`);
  }

  /** Awaits `work` while advancing the clock in steps of `ms` (at most `max` steps). */
  async drive<T>(work: Promise<T>, ms = 1_000, max = 120): Promise<T> {
    const state = { done: false };
    const result = work.finally(() => {
      state.done = true;
    });
    result.catch(() => undefined);
    await this.settled();
    for (let i = 0; i < max && !state.done; i++) await this.advance(ms);
    if (!state.done) throw new Error(`work not done after ${max} steps of ${ms} ms`);
    return result;
  }
}
