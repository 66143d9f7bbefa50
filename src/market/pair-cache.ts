/**
 * Trading pair metadata, cached as the specification's client discipline asks. Pairs are reloaded when
 * older than `refreshMs` on the next read; concurrent readers share one load. A failed reload keeps
 * serving the last good list (logged) and is not tried again before `retryMs`. An id that is not in the
 * list triggers one early reload (a redeployed order book appears under a new id), at most once per
 * `retryMs`. Resolution by chain, base and quote symbol is the core's `resolvePair`.
 */
import type { Logger } from 'pino';
import { DltError } from '../core/errors.ts';
import { resolvePair, type PairQuery, type TradingPair } from '../core/pair.ts';
import { silentLogger } from '../telemetry/logger.ts';
import type { Clock } from '../core/clock.ts';
import { systemClock } from '../core/system-clock.ts';

export interface PairCacheOptions {
  /** Loads every active pair, e.g. `() => rest.listTradingPairs()`. */
  readonly load: () => Promise<TradingPair[]>;
  /** Default 60 s. */
  readonly refreshMs?: number;
  /** Least time between reload attempts after a failure or for an unknown id. Default 5 s. */
  readonly retryMs?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

export class PairCache {
  readonly #load: () => Promise<TradingPair[]>;
  readonly #refreshMs: number;
  readonly #retryMs: number;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #pairs: readonly TradingPair[] | undefined;
  #byId = new Map<string, TradingPair>();
  #loadedAt = Number.NEGATIVE_INFINITY;
  #attemptedAt = Number.NEGATIVE_INFINITY;
  #failedAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<readonly TradingPair[]> | undefined;

  constructor(options: PairCacheOptions) {
    this.#load = options.load;
    this.#refreshMs = options.refreshMs ?? 60_000;
    this.#retryMs = options.retryMs ?? 5_000;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger();
  }

  /** When the list in use was loaded (clock ms), or undefined before the first load. */
  get loadedAt(): number | undefined {
    return this.#pairs === undefined ? undefined : this.#loadedAt;
  }

  /** Every active pair, reloaded first when the cached list is older than `refreshMs`. */
  async pairs(): Promise<readonly TradingPair[]> {
    const now = this.#clock.now();
    const due = now - this.#loadedAt >= this.#refreshMs && now - this.#failedAt >= this.#retryMs;
    if (this.#pairs === undefined || due) return this.#reload(this.#pairs === undefined);
    return this.#pairs;
  }

  /** Reloads now (shared with a reload already running). */
  refresh(): Promise<readonly TradingPair[]> {
    return this.#reload(true);
  }

  async pair(id: string): Promise<TradingPair> {
    await this.pairs();
    const found = this.#byId.get(id);
    if (found !== undefined) return found;
    if (this.#clock.now() - this.#attemptedAt >= this.#retryMs) await this.#reload(false);
    const again = this.#byId.get(id);
    if (again !== undefined) return again;
    throw new DltError('E_PAIR_NOT_FOUND', `no active trading pair with id ${id}`, { details: { id } });
  }

  /** The one pair of this chain, base symbol and quote symbol (symbols alone are not unique). */
  async resolve(query: PairQuery): Promise<TradingPair> {
    return resolvePair(await this.pairs(), query);
  }

  #reload(mustSucceed: boolean): Promise<readonly TradingPair[]> {
    this.#loading ??= this.#doReload(mustSucceed).finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  async #doReload(mustSucceed: boolean): Promise<readonly TradingPair[]> {
    this.#attemptedAt = this.#clock.now();
    try {
      const pairs = await this.#load();
      this.#pairs = pairs;
      this.#byId = new Map(pairs.map((p) => [p.id, p]));
      this.#loadedAt = this.#clock.now();
      this.#logger.debug({ pairs: pairs.length }, 'trading pairs loaded');
      return pairs;
    } catch (e) {
      this.#failedAt = this.#clock.now();
      if (this.#pairs === undefined || mustSucceed) throw e;
      this.#logger.warn(
        { err: e, ageMs: this.#clock.now() - this.#loadedAt },
        'trading pair reload failed; serving the cached list',
      );
      return this.#pairs;
    }
  }
}
