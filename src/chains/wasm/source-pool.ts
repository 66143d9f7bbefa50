/**
 * The transaction sources: channel accounts (or the trading account alone), each with its own sequence
 * number. The network holds one pending transaction per source, so a source is busy from the moment a
 * transaction is built on it until that transaction is included or known never to apply; callers take
 * sources in the order they ask. A sequence number is kept only while it is known: after a transaction
 * that did not apply, or whose fate is unknown, it is reloaded from the node before the source is used again,
 * and a source whose last transaction's fate is unknown rests until that transaction's time bound has passed,
 * so a number whose fate is unknown is never built upon.
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

export class SourcePool {
  readonly sources: readonly Source[];
  readonly #free: Source[];
  readonly #clock: Clock;
  readonly #sleep: Sleep;
  #wake: (() => void) | null = null;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(keys: readonly Keypair[], clock: Clock, sleep: Sleep) {
    this.sources = keys.map((key) => ({ signer: new Ed25519Signer(key), address: key.publicKey(), sequence: null, restUntilMs: 0 }));
    this.#free = [...this.sources];
    this.#clock = clock;
    this.#sleep = sleep;
  }

  get size(): number {
    return this.sources.length;
  }

  get freeCount(): number {
    return this.#free.length;
  }

  /** The next usable source; callers are served in the order they ask. */
  acquire(signal?: AbortSignal): Promise<Source> {
    const turn = this.#queue.then(() => this.#take(signal));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  async #take(signal?: AbortSignal): Promise<Source> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.#clock.now();
      const i = this.#free.findIndex((s) => s.restUntilMs <= now);
      if (i >= 0) return this.#free.splice(i, 1)[0] as Source;
      const resting = this.#free.map((s) => s.restUntilMs);
      const released = new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      // The wait ends on a release, when the first resting source may be used, or when the caller gives up.
      const timer = new AbortController();
      const waits: Promise<unknown>[] = [released];
      if (resting.length > 0) waits.push(this.#sleep(Math.max(0, Math.min(...resting) - now), timer.signal).catch(() => undefined));
      if (signal !== undefined) {
        waits.push(new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true, signal: timer.signal })));
      }
      try {
        await Promise.race(waits);
      } finally {
        timer.abort();
      }
    }
  }

  release(source: Source, how: Release): void {
    if (how.kind === 'included') source.sequence = how.sequence;
    else if (how.kind !== 'unused') source.sequence = null;
    source.restUntilMs = how.kind === 'unknown' ? how.restUntilMs : 0;
    this.#free.push(source);
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}
