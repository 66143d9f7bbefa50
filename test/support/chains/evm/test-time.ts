/**
 * Time for the chain A adapter under test: a clock that moves only when told and a sleep that parks the
 * adapter's loops (the receipt watcher, followers) until `tick` wakes them. `tick` starts once the loops are
 * parked and returns once every loop it woke has gone back to sleep, so a test runs exactly one round of each
 * loop per tick and never waits on the wall clock for pacing.
 */
import type { Clock, Sleep } from '../../../../src/chains/evm/options.ts';
import { pacedClock } from '../../clock.ts';

interface Sleeper {
  readonly at: number;
  readonly resolve: () => void;
}

export class TestTime {
  #now: number;
  #sleepers: Sleeper[] = [];
  #registrations = 0;
  #onRegister: (() => void) | null = null;

  constructor(start = Date.UTC(2026, 2, 2, 9, 0, 0)) {
    this.#now = start;
  }

  readonly sleep: Sleep = (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const s: Sleeper = { at: this.#now + ms, resolve };
      this.#sleepers.push(s);
      signal?.addEventListener(
        'abort',
        () => {
          this.#sleepers = this.#sleepers.filter((x) => x !== s);
          reject(signal.reason as Error);
        },
        { once: true },
      );
      this.#registrations += 1;
      this.#onRegister?.();
    });

  /** The adapter's clock: this time, and this sleep. */
  readonly clock: Clock = pacedClock(() => this.#now, this.sleep);

  /** Moves the clock without waking anything. */
  advance(ms: number): void {
    this.#now += ms;
  }

  /** Loops currently parked in a sleep. */
  get sleeping(): number {
    return this.#sleepers.length;
  }

  /**
   * Waits until `loops` loops are parked (none is still busy with its last round), moves the clock by `ms`, wakes
   * every sleep that falls due and resolves once as many new sleeps have begun (each woken loop did one round).
   * A loop that does not come back within 20 s fails the test.
   */
  async tick(ms: number, loops = 1): Promise<void> {
    await this.parked(loops);
    this.#now += ms;
    const due = this.#sleepers.filter((s) => s.at <= this.#now);
    this.#sleepers = this.#sleepers.filter((s) => s.at > this.#now);
    const target = this.#registrations + due.length;
    const back = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`only ${this.#registrations - (target - due.length)} of ${due.length} loops went back to sleep`),
          ),
        20_000,
      );
      const check = () => {
        if (this.#registrations >= target) {
          clearTimeout(timer);
          this.#onRegister = null;
          resolve();
        }
      };
      this.#onRegister = check;
      check();
    });
    for (const s of due) s.resolve();
    await back;
  }

  /** Resolves once at least `n` sleeps are parked (the loops finished what they were doing). */
  async parked(n = 1): Promise<void> {
    if (this.#sleepers.length >= n) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fewer than ${n} loops went to sleep`)), 20_000);
      this.#onRegister = () => {
        if (this.#sleepers.length < n) return;
        clearTimeout(timer);
        this.#onRegister = null;
        resolve();
      };
    });
  }

  /** Ticks until `done()` holds (at most `max` ticks); for outcomes that need a few polls. */
  async tickUntil(ms: number, done: () => boolean, max = 20, loops = 1): Promise<void> {
    for (let i = 0; i < max && !done(); i++) await this.tick(ms, loops);
    if (!done()) throw new Error(`condition not met after ${max} ticks`);
  }
}
