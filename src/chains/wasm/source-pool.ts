/**
 * The transaction sources: channel accounts (or the trading account alone), each with its own sequence
 * number. The network holds one pending transaction per source, so a source is busy from the moment a
 * transaction is built on it until that transaction is included or known never to apply; callers take
 * sources in the order they ask. A sequence number is kept only while it is known: after a transaction
 * that did not apply, or whose fate is unknown, it is reloaded from the node before the source is used again,
 * and a source whose last transaction's fate is unknown rests until that transaction's time bound has passed,
 * so a number whose fate is unknown is never built upon. Cancellations come first: they are served before
 * other waiters, and one usable source (with two or more in the pool) is kept for them, so an urgent cancel
 * goes out in the next ledger even while placements wait for sources.
 */
import type { Keypair } from '@stellar/stellar-sdk';
import type { Clock, Sleep } from './options.ts';
import { Ed25519Signer } from './signer.ts';

export interface Source {
  readonly signer: Ed25519Signer;
  readonly address: string;
  /** The account's sequence number as last known; null: reload from the node before use. */
  sequence: bigint | null;
  /** Not before this time (epoch ms): the fate of its last transaction is unknown until then. */
  restUntilMs: number;
}

export type Release =
  /** Nothing was sent: the sequence number stands as it was. */
  | { readonly kind: 'unused' }
  /** Included (succeeded or failed): its sequence number is spent. */
  | { readonly kind: 'included'; readonly sequence: bigint }
  /** Never applied (refused, or expired): the sequence number stands where it was, but reload it to be sure. */
  | { readonly kind: 'notApplied' }
  /** Fate unknown: rest until the transaction can no longer apply, then reload. */
  | { readonly kind: 'unknown'; readonly restUntilMs: number };

export interface AcquireOptions {
  readonly signal?: AbortSignal;
  /** A cancellation: served before every other waiter, and may take the source kept free for it. */
  readonly urgent?: boolean;
}

interface Waiter {
  readonly urgent: boolean;
  readonly resolve: (s: Source) => void;
  readonly reject: (e: unknown) => void;
}

export class SourcePool {
  readonly sources: readonly Source[];
  readonly #free: Source[];
  readonly #clock: Pick<Clock, 'now'>;
  readonly #sleep: Sleep;
  /** Usable sources that only an urgent caller may take: a cancel never waits for a placement's ledger. */
  readonly #reserve: number;
  readonly #waiters: Waiter[] = [];
  /** The wait for the first resting source to become usable, while someone waits. */
  #timer: AbortController | null = null;

  constructor(
    keys: readonly Keypair[],
    clock: Pick<Clock, 'now'>,
    sleep: Sleep,
    options: { reserveForUrgent?: number } = {},
  ) {
    this.sources = keys.map((key) => ({
      signer: new Ed25519Signer(key),
      address: key.publicKey(),
      sequence: null,
      restUntilMs: 0,
    }));
    this.#free = [...this.sources];
    this.#clock = clock;
    this.#sleep = sleep;
    this.#reserve = Math.min(options.reserveForUrgent ?? (keys.length >= 2 ? 1 : 0), Math.max(0, keys.length - 1));
  }

  get size(): number {
    return this.sources.length;
  }

  get freeCount(): number {
    return this.#free.length;
  }

  /**
   * The next usable source. Urgent callers are served first, in the order they asked, and may take the last
   * usable source; the others are served in the order they asked while more than the reserve is usable.
   */
  acquire(options: AcquireOptions = {}): Promise<Source> {
    const { signal, urgent = false } = options;
    return new Promise<Source>((resolve, reject) => {
      if (signal?.aborted === true) return reject(signal.reason as Error);
      const waiter: Waiter = {
        urgent,
        resolve: (s) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(s);
        },
        reject,
      };
      const onAbort = () => {
        const i = this.#waiters.indexOf(waiter);
        if (i < 0) return;
        this.#waiters.splice(i, 1);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      // Urgent waiters go after the urgent ones already waiting, ahead of every other.
      const at = urgent ? this.#waiters.findIndex((w) => !w.urgent) : -1;
      if (at < 0) this.#waiters.push(waiter);
      else this.#waiters.splice(at, 0, waiter);
      this.#dispatch();
    });
  }

  #dispatch(): void {
    const now = this.#clock.now();
    for (;;) {
      const next = this.#waiters[0];
      if (next === undefined) break;
      const usable = this.#free.filter((s) => s.restUntilMs <= now);
      if (usable.length === 0 || (!next.urgent && usable.length <= this.#reserve)) break;
      this.#waiters.shift();
      const source = usable[0] as Source;
      this.#free.splice(this.#free.indexOf(source), 1);
      next.resolve(source);
    }
    this.#wakeForResting(now);
  }

  /** Someone waits and a free source rests: look again when the first one may be used. */
  #wakeForResting(now: number): void {
    this.#timer?.abort();
    this.#timer = null;
    const resting = this.#free.filter((s) => s.restUntilMs > now).map((s) => s.restUntilMs);
    if (this.#waiters.length === 0 || resting.length === 0) return;
    const timer = new AbortController();
    this.#timer = timer;
    this.#sleep(Math.max(0, Math.min(...resting) - now), timer.signal).then(
      () => {
        if (this.#timer === timer) this.#timer = null;
        this.#dispatch();
      },
      () => undefined,
    );
  }

  release(source: Source, how: Release): void {
    if (how.kind === 'included') source.sequence = how.sequence;
    else if (how.kind !== 'unused') source.sequence = null;
    source.restUntilMs = how.kind === 'unknown' ? how.restUntilMs : 0;
    this.#free.push(source);
    this.#dispatch();
  }
}
