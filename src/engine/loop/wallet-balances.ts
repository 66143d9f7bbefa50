/**
 * The balances of one wallet, read for all the loops of its pairs together: every token the pairs trade and
 * the native fee balance in one read (one request where the adapter can, `readWalletBalances`), shared by
 * every pair that asks while it is young, and read again when it may have changed. Fills and outcomes of ANY
 * pair of the wallet change it (the quote token and the fee balance are common to all of them): each bumps the
 * wallet's generation, and a read that started before a change never answers a request made after it. A
 * change starts a read at once, in the background, so that the next market event of every pair finds it read
 * (or in flight); changes that arrive while a read is on the wire (a block settles orders of several pairs)
 * are covered by one more read when it ends, not by one read each. One read is on the wire at a time.
 */
import type { ChainAdapter, PairBinding, WalletBalances } from '../../chains/types.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../telemetry/logger.ts';

export interface WalletBalanceOptions {
  readonly adapter: Pick<ChainAdapter, 'readBalances' | 'readWalletBalances'>;
  /** Called with every read whose native balance was read. */
  readonly onRead: (balances: WalletBalances) => void;
  /** Balances older than this are read again even without activity. */
  readonly maxAgeMs: number;
  readonly clock: Pick<Clock, 'now'>;
  readonly logger: Logger;
  readonly wallet: string;
}

/** A read in flight; `sameTurn` until the microtasks of the turn that started it have run. */
type Read = {
  generation: number;
  sameTurn: boolean;
  readonly startedMs: number;
  readonly value: Promise<WalletBalances>;
};

export class WalletBalanceCache {
  readonly #options: WalletBalanceOptions;
  /** The pairs whose tokens every read covers, by pair id; each counted once per loop that uses it. */
  readonly #pairs = new Map<string, { pair: PairBinding; users: number }>();
  #maxAgeMs: number;
  /** The last read, and the generation of changes it reflects. */
  #balances: { value: WalletBalances; atMs: number; generation: number } | null = null;
  /** Bumped by every change to the balances (a fill, an outcome) and by a new token: older reads are out of date. */
  #generation = 0;
  /** A read in flight, started when the balances changed, so that the next quotes need not wait for it. */
  #reading: Read | null = null;
  /** Settles when the read on the wire ends (either way); null when none is. */
  #onWire: Promise<void> | null = null;
  #stopped = false;

  constructor(options: WalletBalanceOptions) {
    this.#options = options;
    this.#maxAgeMs = options.maxAgeMs;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** A loop of this pair reads through the cache: its tokens are read from now on. */
  register(pair: PairBinding, maxAgeMs: number): void {
    const known = this.#pairs.get(pair.pairId);
    if (known !== undefined) known.users += 1;
    else {
      const tokens = this.#tokens();
      this.#pairs.set(pair.pairId, { pair, users: 1 });
      if (!tokens.has(pair.baseToken) || !tokens.has(pair.quoteToken)) this.#generation += 1;
    }
    this.#maxAgeMs = Math.min(this.#maxAgeMs, maxAgeMs);
  }

  /** A loop stopped: once every loop has, no more reads start in the background. */
  release(pair: PairBinding): void {
    const known = this.#pairs.get(pair.pairId);
    if (known !== undefined) known.users -= 1;
    if ([...this.#pairs.values()].every((p) => p.users <= 0)) this.#stopped = true;
  }

  /**
   * The balances changed: read them again now, unless a read is on the wire (its end reads again). A read that
   * started in this same turn covers the change: what the change was learnt from arrived before the turn began,
   * and the read reaches the node after it (one notice of a block, the activity of several pairs, is one read).
   */
  changed(): void {
    this.#generation += 1;
    if (this.#reading?.sameTurn === true) this.#reading.generation = this.#generation;
    else if (!this.#stopped && this.#onWire === null) this.#startRead(this.#options.clock.now());
  }

  /**
   * Balances that reflect every change so far and are younger than the longest age; read when needed, and when
   * the last read failed for one of the tokens `needed`.
   */
  async current(nowMs: number, needed: readonly string[] = []): Promise<WalletBalances> {
    const fresh = (atMs: number) => nowMs - atMs < this.#maxAgeMs;
    const cached = this.#balances;
    if (
      cached !== null &&
      cached.generation === this.#generation &&
      fresh(cached.atMs) &&
      needed.every((t) => cached.value.tokens.has(t))
    )
      return cached.value;
    const reading = this.#reading;
    if (reading !== null && reading.generation === this.#generation && fresh(reading.startedMs)) return reading.value;
    // A read of an older generation is on the wire: its end starts the read that covers every change.
    const onWire = this.#onWire;
    if (onWire !== null) {
      await onWire;
      return this.current(this.#options.clock.now(), needed);
    }
    return this.#startRead(nowMs);
  }

  #tokens(): Set<string> {
    return new Set([...this.#pairs.values()].flatMap((p) => [p.pair.baseToken, p.pair.quoteToken]));
  }

  #read(): Promise<WalletBalances> {
    const adapter = this.#options.adapter;
    if (adapter.readWalletBalances !== undefined) return adapter.readWalletBalances([...this.#tokens()]);
    return readPairByPair(
      adapter,
      [...this.#pairs.values()].map((p) => p.pair),
    );
  }

  #startRead(nowMs: number): Promise<WalletBalances> {
    const value = this.#read().then((v) => {
      const generation = reading.generation;
      if (this.#balances === null || generation >= this.#balances.generation)
        this.#balances = { value: v, atMs: nowMs, generation };
      this.#options.onRead(v);
      return v;
    });
    const reading: Read = { generation: this.#generation, sameTurn: true, startedMs: nowMs, value };
    this.#reading = reading;
    queueMicrotask(() => (reading.sameTurn = false));
    // Once it ends, a read that succeeded is what `#balances` holds, and a failed one is forgotten (the next
    // quotes read again); whoever awaits it sees the error.
    const ended = value.then(
      () => {
        if (this.#reading === reading) this.#reading = null;
      },
      (e: unknown) => {
        if (this.#reading === reading) this.#reading = null;
        this.#options.logger.debug({ err: e, wallet: this.#options.wallet }, 'balance read failed');
      },
    );
    this.#onWire = ended;
    void ended.then(() => {
      if (this.#onWire === ended) this.#onWire = null;
      if (!this.#stopped && this.#onWire === null && this.#generation > reading.generation)
        this.#startRead(this.#options.clock.now());
    });
    return value;
  }
}

/** An adapter that reads only pair by pair: every pair's balances at once, gathered by token. */
async function readPairByPair(
  adapter: Pick<ChainAdapter, 'readBalances'>,
  pairs: readonly PairBinding[],
): Promise<WalletBalances> {
  const reads = await Promise.allSettled(pairs.map((p) => adapter.readBalances(p)));
  const tokens = new Map<string, bigint>();
  const failed = new Map<string, Error>();
  let native: bigint | null = null;
  let firstError: unknown = null;
  for (const [i, r] of reads.entries()) {
    const pair = pairs[i] as PairBinding;
    if (r.status === 'fulfilled') {
      tokens.set(pair.baseToken, r.value.base);
      tokens.set(pair.quoteToken, r.value.quote);
      native ??= r.value.native;
      continue;
    }
    firstError ??= r.reason;
    const error = r.reason instanceof Error ? r.reason : new Error(String(r.reason));
    for (const t of [pair.baseToken, pair.quoteToken]) if (!tokens.has(t)) failed.set(t, error);
  }
  if (native === null) throw firstError;
  for (const t of tokens.keys()) failed.delete(t);
  return { tokens, failed, native };
}
