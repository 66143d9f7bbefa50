/** A clock that moves only when told, with timers that fire in due order; and a sleep that records. */
import type { Clock, Sleep, Timer } from '../../../src/venue/clock.ts';

interface Scheduled {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
  cancelled: boolean;
}

export const T0 = Date.UTC(2026, 2, 2, 9, 0, 0);

export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: Scheduled[] = [];

  constructor(start = T0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(fn: () => void, ms: number): Timer {
    const t: Scheduled = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn, cancelled: false };
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
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#now = Math.max(this.#now, due.at);
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
