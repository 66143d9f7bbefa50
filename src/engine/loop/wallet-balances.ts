/**
 * The balances of one wallet, read for all the loops of its pairs together: every token the pairs trade and
 * the native fee balance in one read (one request where the adapter can, `readWalletBalances`), shared by
 * every pair that asks while it is young, and read again when it may have changed. Fills and outcomes of ANY
 * pair of the wallet change it (the quote token and the fee balance are common to all of them): each bumps the
 * wallet's generation, and a read that started before a change never answers a request made after it. A
 * change starts a read at once, in the background, so that the next market event of every pair finds it read
 * (or in flight); changes that arrive while a read is on the wire (a block settles orders of several pairs)
 * are covered by one more read when it ends, not by one read each. One read is on the wire at a time.
 *
 * A change names the tokens it touched (a pair's base and quote): the read it starts asks for those, the native
 * balance and any token the last read lacks, and keeps the rest of what was read, so a fill on one of forty pairs
 * costs three balances, not forty-two. Every token is read again once the last read of all of them is older than
 * the longest age, and after a read that failed.
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
  /** The age of what it answers: when it started if it reads every token, else that of the read it completes. */
  readonly atMs: number;
  /** The tokens it asks for; null: every token. */
  readonly tokens: ReadonlySet<string> | null;
  readonly value: Promise<WalletBalances>;
};

export class WalletBalanceCache {
  readonly #options: WalletBalanceOptions;
  /** The pairs whose tokens every read covers, by pair id; each counted once per loop that uses it. */
  readonly #pairs = new Map<string, { pair: PairBinding; users: number }>();
  #maxAgeMs: number;
  /** What was read, the generation of changes it reflects, and when every token of it was last read. */
  #balances: { value: WalletBalances; atMs: number; generation: number } | null = null;
  /** The tokens changed since the last read started; 'all' after a read failed (and before the first). */
  #stale: Set<string> | 'all' = 'all';
  /** Bumped by every change to the balances (a fill, an outcome) and by a new token: older reads are out of date. */
  #generation = 0;
  /** A read in flight, started when the balances changed, so that the next quotes need not wait for it. */
  #reading: Read | null = null;
  /** Settles when the read on the wire ends (either way); null when none is. */
  #onWire: Promise<void> | null = null;
  #stopped = false;
  /** A read is due to start once the changes of this turn are in. */
  #starting = false;

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
   * The balances changed: read them again, unless a read is on the wire (its end reads again). The read starts
   * once the changes signalled with this one have been (a microtask later), so that one notice of a block, the
   * activity of several pairs, is one read of all their tokens. A read that started in this same turn covers a
   * change of the tokens it asks for: what the change was learnt from arrived before the turn began, and the
   * read reaches the node after it.
   */
  changed(tokens?: readonly string[]): void {
    this.#generation += 1;
    const r = this.#reading;
    if (r?.sameTurn === true && (r.tokens === null || (tokens ?? []).every((t) => r.tokens?.has(t)))) {
      r.generation = this.#generation;
      return;
    }
    if (tokens === undefined) this.#stale = 'all';
    else if (this.#stale !== 'all') for (const t of tokens) this.#stale.add(t);
    if (this.#stopped || this.#onWire !== null || this.#starting) return;
    this.#starting = true;
    queueMicrotask(() => {
      this.#starting = false;
      if (!this.#stopped && this.#onWire === null) this.#startRead(this.#options.clock.now());
    });
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
    if (reading !== null && reading.generation === this.#generation && fresh(reading.atMs)) return reading.value;
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

  #read(tokens: ReadonlySet<string> | null): Promise<WalletBalances> {
    const adapter = this.#options.adapter;
    const all = this.#tokens();
    const asked = tokens === null ? all : new Set([...tokens].filter((t) => all.has(t)));
    if (adapter.readWalletBalances !== undefined) return adapter.readWalletBalances([...asked]);
    return readPairByPair(
      adapter,
      [...this.#pairs.values()].map((p) => p.pair).filter((p) => asked.has(p.baseToken) || asked.has(p.quoteToken)),
    );
  }

  /**
   * The tokens the next read asks for: those changed and those the last read lacks, while that read is young
   * enough for the rest; null (every token) otherwise.
   */
  #scope(nowMs: number): { tokens: ReadonlySet<string> | null; atMs: number } {
    const cached = this.#balances;
    const stale = this.#stale;
    if (cached === null || stale === 'all' || nowMs - cached.atMs >= this.#maxAgeMs)
      return { tokens: null, atMs: nowMs };
    for (const t of this.#tokens()) if (!cached.value.tokens.has(t)) stale.add(t);
    return { tokens: stale, atMs: cached.atMs };
  }

  #startRead(nowMs: number): Promise<WalletBalances> {
    const { tokens, atMs } = this.#scope(nowMs);
    this.#stale = new Set();
    const value = this.#read(tokens).then((v) => {
      const generation = reading.generation;
      const kept = this.#balances;
      const merged = tokens === null || kept === null ? v : completed(kept.value, v, tokens);
      if (kept === null || generation >= kept.generation) this.#balances = { value: merged, atMs, generation };
      this.#options.onRead(merged);
      return merged;
    });
    const reading: Read = { generation: this.#generation, sameTurn: true, atMs, tokens, value };
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
        this.#stale = 'all';
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

/** What was read before, with the tokens of a read of some of them (`asked`) taken from that read. */
function completed(before: WalletBalances, read: WalletBalances, asked: ReadonlySet<string>): WalletBalances {
  const tokens = new Map(before.tokens);
  const failed = new Map(before.failed);
  for (const t of asked) {
    tokens.delete(t);
    failed.delete(t);
  }
  for (const [t, amount] of read.tokens) tokens.set(t, amount);
  for (const [t, error] of read.failed) failed.set(t, error);
  return { tokens, failed, native: read.native };
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
