/**
 * A pair's balances, read from the chain when they may have changed. Fills and outcomes change them: they are
 * read again at once, in the background, so that the next market event finds them read (or in flight) instead
 * of waiting for a round trip on its way to the chain. Changes that arrive while a read is on the wire (a block
 * settles several orders of the pair at once) are covered by one more read when it ends, not by one read each.
 */
import type { Balances } from '../../chains/types.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../telemetry/logger.ts';

export interface BalanceCacheOptions {
  /** One read of the pair's balances from the chain. */
  readonly read: () => Promise<Balances>;
  /** Called with every read that succeeded. */
  readonly onRead: (balances: Balances) => void;
  /** Balances older than this are read again even without activity. */
  readonly maxAgeMs: number;
  readonly clock: Pick<Clock, 'now'>;
  readonly logger: Logger;
  readonly pairId: string;
}

export class BalanceCache {
  readonly #o: BalanceCacheOptions;
  /** The last balances read, and the generation of changes they reflect. */
  #balances: { value: Balances; atMs: number; generation: number } | null = null;
  /** Bumped by every change to the balances (a fill, an outcome): a read from before it is out of date. */
  #generation = 0;
  /** A read in flight, started when the balances changed, so that the next quotes need not wait for it. */
  #reading: { generation: number; startedMs: number; value: Promise<Balances> } | null = null;
  /** Settles when the read on the wire ends (either way); null when none is. One read at a time per pair. */
  #onWire: Promise<void> | null = null;
  #stopped = false;

  constructor(options: BalanceCacheOptions) {
    this.#o = options;
  }

  /** The balances changed: read them again now, unless a read is on the wire (its end reads again). */
  changed(): void {
    this.#generation += 1;
    if (!this.#stopped && this.#onWire === null) this.#startRead(this.#o.clock.now());
  }

  /** No more reads start in the background. */
  stop(): void {
    this.#stopped = true;
  }

  /** Balances that reflect every change so far and are younger than `maxAgeMs`; read when needed. */
  async current(nowMs: number): Promise<Balances> {
    const fresh = (atMs: number) => nowMs - atMs < this.#o.maxAgeMs;
    const cached = this.#balances;
    if (cached !== null && cached.generation === this.#generation && fresh(cached.atMs)) return cached.value;
    const reading = this.#reading;
    if (reading !== null && reading.generation === this.#generation && fresh(reading.startedMs)) return reading.value;
    // A read of an older generation is on the wire: its end starts the read that covers every change.
    const onWire = this.#onWire;
    if (onWire !== null) {
      await onWire;
      return this.current(this.#o.clock.now());
    }
    return this.#startRead(nowMs);
  }

  #startRead(nowMs: number): Promise<Balances> {
    const generation = this.#generation;
    const value = this.#o.read().then((v) => {
      if (this.#balances === null || generation >= this.#balances.generation)
        this.#balances = { value: v, atMs: nowMs, generation };
      this.#o.onRead(v);
      return v;
    });
    const reading = { generation, startedMs: nowMs, value };
    this.#reading = reading;
    // A failed read is forgotten (the next quotes read again); whoever awaits it sees the error.
    const ended = value.then(
      () => undefined,
      (e: unknown) => {
        if (this.#reading === reading) this.#reading = null;
        this.#o.logger.debug({ err: e, pair: this.#o.pairId }, 'balance read failed');
      },
    );
    this.#onWire = ended;
    void ended.then(() => {
      if (this.#onWire === ended) this.#onWire = null;
      if (!this.#stopped && this.#onWire === null && this.#generation > generation)
        this.#startRead(this.#o.clock.now());
    });
    return value;
  }
}
