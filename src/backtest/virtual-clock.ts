/**
 * The backtest's clock: time moves only when the replay moves it, to the next recorded event or the next
 * timer, whichever is first. Timers fire in due order (ties in the order they were set), each at its own
 * time, so every part of the bot that waits, polls or times out does so in event time. A heap keeps the
 * timers: a day of one-second ticks on 64 pairs stays cheap.
 */
import { sleepOn, type Clock, type Sleep, type Timer } from '../core/clock.ts';

interface Scheduled {
  at: number;
  seq: number;
  readonly fn: () => void;
  readonly every: number | null;
  cancelled: boolean;
}

const before = (a: Scheduled, b: Scheduled) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

export class VirtualClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #heap: Scheduled[] = [];

  constructor(startMs: number) {
    this.#now = startMs;
  }

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
    this.#push(t);
    return {
      cancel: () => {
        t.cancelled = true;
      },
    };
  }

  /** When the next timer falls due; null when none is set. */
  nextDue(): number | null {
    this.#dropCancelled();
    return this.#heap[0]?.at ?? null;
  }

  /**
   * Fires the first timer due at or before `limit`, moving time to its moment; false when none is due (time
   * is then moved to `limit`). The caller lets the work it started run before firing the next.
   */
  fireNext(limit: number): boolean {
    this.#dropCancelled();
    const t = this.#heap[0];
    if (t === undefined || t.at > limit) {
      this.#now = Math.max(this.#now, limit);
      return false;
    }
    this.#pop();
    this.#now = Math.max(this.#now, t.at);
    if (t.every !== null) {
      t.at += t.every;
      t.seq = this.#seq++;
      this.#push(t);
    }
    t.fn();
    return true;
  }

  #dropCancelled(): void {
    while (this.#heap[0]?.cancelled === true) this.#pop();
  }

  #push(t: Scheduled): void {
    const h = this.#heap;
    h.push(t);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i] as Scheduled, h[p] as Scheduled)) break;
      [h[i], h[p]] = [h[p] as Scheduled, h[i] as Scheduled];
      i = p;
    }
  }

  #pop(): void {
    const h = this.#heap;
    const last = h.pop() as Scheduled;
    if (h.length === 0) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && before(h[l] as Scheduled, h[m] as Scheduled)) m = l;
      if (r < h.length && before(h[r] as Scheduled, h[m] as Scheduled)) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m] as Scheduled, h[i] as Scheduled];
      i = m;
    }
  }
}
