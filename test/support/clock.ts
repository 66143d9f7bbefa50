/**
 * The test clock: time moves only when told, timers fire in due order, and sleeps are timers, so whatever
 * is driven by it never waits on the wall clock.
 */
import type { Clock, Sleep, Timer } from '../../src/core/clock.ts';
import { sleepOn } from '../../src/core/clock.ts';

interface Scheduled {
  at: number;
  readonly seq: number;
  readonly fn: () => void;
  /** Repeats every `every` ms when set. */
  readonly every: number | null;
  cancelled: boolean;
}

export const T0 = Date.UTC(2026, 2, 2, 9, 0, 0);

export class TestClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: Scheduled[] = [];

  constructor(start = T0) {
    this.#now = start;
  }

  /** Bound, so that it can be handed out on its own. */
  readonly now = (): number => this.#now;

  setTimer(fn: () => void, ms: number): Timer {
    return this.#schedule(fn, ms, null);
  }

  setRepeating(fn: () => void, ms: number): Timer {
    return this.#schedule(fn, ms, Math.max(1, ms));
  }

  readonly sleep: Sleep = sleepOn((fn, ms) => this.setTimer(fn, ms));

  #schedule(fn: () => void, ms: number, every: number | null): Timer {
    const t: Scheduled = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn, every, cancelled: false };
    this.#timers.push(t);
    return {
      cancel: () => {
        t.cancelled = true;
      },
    };
  }

  /** Moves time forward, firing every timer that falls due on the way (including ones they schedule). */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      const due = this.#timers
        .filter((t) => !t.cancelled && t.at <= target)
        .toSorted((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (due === undefined) break;
      this.#now = Math.max(this.#now, due.at);
      if (due.every === null) this.#timers = this.#timers.filter((t) => t !== due);
      else due.at += due.every;
      due.fn();
    }
    this.#now = target;
  }

  /** Delays (from now) of the timers still pending, soonest first. */
  pendingDelays(): number[] {
    return this.#timers
      .filter((t) => !t.cancelled)
      .map((t) => t.at - this.#now)
      .toSorted((a, b) => a - b);
  }

  /** This clock's time and timers with another way to sleep (one that records, or that a test steps by hand). */
  withSleep(sleep: Sleep): Clock {
    return {
      now: () => this.now(),
      setTimer: (fn, ms) => this.setTimer(fn, ms),
      setRepeating: (fn, ms) => this.setRepeating(fn, ms),
      sleep,
    };
  }
}

/** A sleep that returns at once and remembers each requested delay. */
export function recordingSleep(): { readonly sleep: Sleep; readonly delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    sleep: (ms, signal) => {
      delays.push(ms);
      signal?.throwIfAborted();
      return Promise.resolve();
    },
  };
}

/** A random source that returns the given values in turn, then repeats the last. */
export function randomSequence(...values: number[]): () => number {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)] as number;
}

/**
 * A clock read from `now` whose waits are `sleep`'s, for a test that paces a loop by hand (one round per step)
 * rather than by the time it asks to sleep. Its timers are such sleeps too.
 */
export function pacedClock(now: () => number, sleep: Sleep): Clock {
  const setTimer = (fn: () => void, ms: number): Timer => {
    const abort = new AbortController();
    sleep(ms, abort.signal).then(fn, () => undefined);
    return { cancel: () => abort.abort() };
  };
  return {
    now,
    sleep,
    setTimer,
    setRepeating(fn, ms) {
      let current: Timer;
      const again = () => {
        current = setTimer(() => {
          again();
          fn();
        }, ms);
      };
      again();
      return { cancel: () => current.cancel() };
    },
  };
}
