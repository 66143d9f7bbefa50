/**
 * Per-market staleness: a market with no data for `staleAfterMs` is stale, and becomes fresh with its next
 * message. One timer per market, re-armed only when it fires (a message just records the time), so the
 * watchdog costs nothing per message beyond a map lookup.
 */
import type { Clock, Timer } from '../../core/clock.ts';

export interface StalenessWatchdogOptions {
  readonly staleAfterMs: number;
  readonly clock: Clock;
  /** `lastSeenAt` is when data last arrived, or when watching began if none did. */
  readonly onStale: (symbol: string, lastSeenAt: number, hadData: boolean) => void;
  readonly onFresh: (symbol: string) => void;
}

interface Watch {
  lastSeenAt: number;
  hadData: boolean;
  stale: boolean;
  timer: Timer | undefined;
}

export class StalenessWatchdog {
  readonly #options: StalenessWatchdogOptions;
  readonly #watches = new Map<string, Watch>();

  constructor(options: StalenessWatchdogOptions) {
    this.#options = options;
  }

  /** Starts watching; the market counts as seen now (a fresh subscription gets the full delay). */
  watch(symbol: string): void {
    if (this.#watches.has(symbol)) return;
    const w: Watch = { lastSeenAt: this.#options.clock.now(), hadData: false, stale: false, timer: undefined };
    this.#watches.set(symbol, w);
    this.#arm(symbol, w, this.#options.staleAfterMs);
  }

  /** Data arrived for the market. Unknown markets are ignored. */
  seen(symbol: string): void {
    const w = this.#watches.get(symbol);
    if (w === undefined) return;
    w.lastSeenAt = this.#options.clock.now();
    w.hadData = true;
    if (!w.stale) return;
    w.stale = false;
    this.#arm(symbol, w, this.#options.staleAfterMs);
    this.#options.onFresh(symbol);
  }

  symbols(): string[] {
    return [...this.#watches.keys()];
  }

  isWatched(symbol: string): boolean {
    return this.#watches.has(symbol);
  }

  isStale(symbol: string): boolean {
    return this.#watches.get(symbol)?.stale === true;
  }

  unwatch(symbol: string): void {
    this.#watches.get(symbol)?.timer?.cancel();
    this.#watches.delete(symbol);
  }

  close(): void {
    for (const symbol of [...this.#watches.keys()]) this.unwatch(symbol);
  }

  #arm(symbol: string, w: Watch, ms: number): void {
    w.timer = this.#options.clock.setTimer(() => this.#check(symbol, w), ms);
  }

  #check(symbol: string, w: Watch): void {
    if (this.#watches.get(symbol) !== w) return;
    const quietFor = this.#options.clock.now() - w.lastSeenAt;
    if (quietFor < this.#options.staleAfterMs) return this.#arm(symbol, w, this.#options.staleAfterMs - quietFor);
    w.timer = undefined;
    w.stale = true;
    this.#options.onStale(symbol, w.lastSeenAt, w.hadData);
  }
}
