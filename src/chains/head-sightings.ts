/**
 * The newest block or height a reply of the node named, when it was first seen, and who waits for a newer one.
 * Chain B: every reply names its latest height (`latestLedger` of getEvents, getTransaction, sendTransaction,
 * simulateTransaction, getLedgerEntries; `sequence` of getLatestLedger), so a transaction's outcome poll waits
 * for the follower's next round to show a new height instead of asking the node about the transaction on a
 * timer of its own: every outcome open at that moment is asked in the same turn, which the gathering transport
 * sends as one batch. Chain A: the receipt watcher's polls, which ride on the sends, ask the block number too,
 * so the follower reads a new block as soon as one is seen and asks for the head itself only when nothing
 * named it for a poll interval.
 */
import { WOKEN, type Sleep } from '../core/clock.ts';

export interface HeadSighting {
  /** The highest block or ledger a reply named (0 before the first reply). */
  readonly height: number;
  /** When a reply last named it (clock ms). */
  readonly atMs: number;
  /** When a reply first named it (clock ms): about when it closed, late by the poll that saw it. */
  readonly firstAtMs: number;
}

interface Waiter {
  readonly above: number;
  readonly wake: () => void;
}

export interface NextHeadWait {
  readonly minMs: number;
  readonly closeMs: number;
  readonly nowMs: number;
  readonly sleep: Sleep;
  readonly signal: AbortSignal;
}

/** Intervals kept for the estimate. */
const INTERVALS = 8;
/** Intervals needed before the next height is expected at a time (`nextDueMs`). */
const SURE = 4;

export class HeadSightings {
  #height = 0;
  #atMs = 0;
  #firstAtMs = 0;
  readonly #waiters = new Set<Waiter>();
  /** Recent time per height between first sightings (clock ms). */
  #intervals: number[] = [];

  get last(): HeadSighting {
    return { height: this.#height, atMs: this.#atMs, firstAtMs: this.#firstAtMs };
  }

  /** A reply named `height` at `nowMs`: waiters for anything older are woken. */
  see(height: number, nowMs: number): void {
    if (height < this.#height) return;
    this.#atMs = nowMs;
    if (height === this.#height) return;
    if (this.#height > 0)
      this.#intervals = [
        ...this.#intervals.slice(-(INTERVALS - 1)),
        (nowMs - this.#firstAtMs) / (height - this.#height),
      ];
    this.#height = height;
    this.#firstAtMs = nowMs;
    for (const w of this.#waiters) if (w.above < height) w.wake();
  }

  /**
   * How long a block or ledger takes: the median of the recent times between first sightings, when that is shorter than
   * the configured close time (a network closing faster than configured), else the configured one.
   */
  closeMs(configuredMs: number): number {
    if (this.#intervals.length === 0) return configuredMs;
    const sorted = this.#intervals.toSorted((a, b) => a - b);
    return Math.min(configuredMs, sorted[Math.floor(sorted.length / 2)] as number);
  }

  /**
   * The earliest a height after the last one is to be expected, by the shortest of the recent times between first
   * sightings (at least `SURE` of them), three quarters of it after the last one was first seen; null while fewer
   * are known. A first sighting is late by up to a poll, so a height never closes sooner than that after it.
   */
  nextDueMs(): number | null {
    if (this.#intervals.length < SURE) return null;
    return this.#firstAtMs + 0.75 * Math.min(...this.#intervals);
  }

  /**
   * Waits for a height after `height`: until a reply names one, for at least `minMs` and at most until it should
   * have closed (`closeMs` as configured, see `closeMs`) after `height` was first seen; never rejects.
   */
  async next(height: number, o: NextHeadWait): Promise<void> {
    if (this.#height > height) return;
    const closes = (this.#height === height ? this.#firstAtMs : o.nowMs) + this.closeMs(o.closeMs);
    await this.above(height, Math.max(o.minMs, closes - o.nowMs), o.sleep, o.signal);
  }

  /**
   * Resolves once a reply names a height after `height`, or after `ms` (on the caller's sleep), or when `signal`
   * aborts; never rejects.
   */
  async above(height: number, ms: number, sleep: Sleep, signal: AbortSignal): Promise<void> {
    if (this.#height > height || signal.aborted) return;
    const woken = new AbortController();
    const waiter: Waiter = { above: height, wake: () => woken.abort(WOKEN) };
    this.#waiters.add(waiter);
    try {
      await sleep(ms, AbortSignal.any([signal, woken.signal]));
    } catch {
      // Woken by a newer height, or the caller gave up: either way the wait is over.
    } finally {
      this.#waiters.delete(waiter);
    }
  }
}
