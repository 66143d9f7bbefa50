/**
 * The newest ledger any reply of the node named (`latestLedger` of getEvents, getTransaction, sendTransaction,
 * simulateTransaction, getLedgerEntries; `sequence` of getLatestLedger), when it was first seen, and who waits
 * for a newer one. The adapter's replies all pass through here, so a transaction's outcome poll waits for the
 * follower's next round to show a new ledger instead of asking the node about the transaction on a timer of
 * its own: every outcome open at that moment is asked in the same turn, which the gathering transport sends as
 * one batch.
 */
import type { Sleep } from './options.ts';

export interface LedgerSighting {
  /** The highest ledger a reply named (0 before the first reply). */
  readonly ledger: number;
  /** When a reply last named it (clock ms). */
  readonly atMs: number;
  /** When a reply first named it (clock ms): about when it closed, late by the poll that saw it. */
  readonly firstAtMs: number;
}

interface Waiter {
  readonly above: number;
  readonly wake: () => void;
}

export interface NextLedgerWait {
  readonly minMs: number;
  readonly closeMs: number;
  readonly nowMs: number;
  readonly sleep: Sleep;
  readonly signal: AbortSignal;
}

/** Ledger intervals kept for the estimate. */
const INTERVALS = 8;

export class LedgerSightings {
  #ledger = 0;
  #atMs = 0;
  #firstAtMs = 0;
  readonly #waiters = new Set<Waiter>();
  /** Recent time per ledger between first sightings (clock ms). */
  #intervals: number[] = [];

  get last(): LedgerSighting {
    return { ledger: this.#ledger, atMs: this.#atMs, firstAtMs: this.#firstAtMs };
  }

  /** A reply named `ledger` at `nowMs`: waiters for anything older are woken. */
  see(ledger: number, nowMs: number): void {
    if (ledger < this.#ledger) return;
    this.#atMs = nowMs;
    if (ledger === this.#ledger) return;
    if (this.#ledger > 0)
      this.#intervals = [
        ...this.#intervals.slice(-(INTERVALS - 1)),
        (nowMs - this.#firstAtMs) / (ledger - this.#ledger),
      ];
    this.#ledger = ledger;
    this.#firstAtMs = nowMs;
    for (const w of this.#waiters) if (w.above < ledger) w.wake();
  }

  /**
   * How long a ledger takes: the median of the recent times between first sightings, when that is shorter than
   * the configured close time (a network closing faster than configured), else the configured one.
   */
  closeMs(configuredMs: number): number {
    if (this.#intervals.length === 0) return configuredMs;
    const sorted = this.#intervals.toSorted((a, b) => a - b);
    return Math.min(configuredMs, sorted[Math.floor(sorted.length / 2)] as number);
  }

  /**
   * Waits for a ledger after `ledger`: until a reply names one, for at least `minMs` and at most until it should
   * have closed (`closeMs` as configured, see `closeMs`) after `ledger` was first seen; never rejects.
   */
  async next(ledger: number, o: NextLedgerWait): Promise<void> {
    if (this.#ledger > ledger) return;
    const closes = (this.#ledger === ledger ? this.#firstAtMs : o.nowMs) + this.closeMs(o.closeMs);
    await this.above(ledger, Math.max(o.minMs, closes - o.nowMs), o.sleep, o.signal);
  }

  /**
   * Resolves once a reply names a ledger after `ledger`, or after `ms` (on the caller's sleep), or when `signal`
   * aborts; never rejects.
   */
  async above(ledger: number, ms: number, sleep: Sleep, signal: AbortSignal): Promise<void> {
    if (this.#ledger > ledger || signal.aborted) return;
    const woken = new AbortController();
    const waiter: Waiter = { above: ledger, wake: () => woken.abort() };
    this.#waiters.add(waiter);
    try {
      await sleep(ms, AbortSignal.any([signal, woken.signal]));
    } catch {
      // Woken by a newer ledger, or the caller gave up: either way the wait is over.
    } finally {
      this.#waiters.delete(waiter);
    }
  }
}
