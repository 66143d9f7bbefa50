/**
 * A pair's balances, as its loop sees them: the base and quote token and the native balance out of the
 * wallet's shared read (wallet-balances.ts), which every loop of the wallet consults. Fills and outcomes of
 * the pair change the wallet's balances: the wallet reads them again at once, in the background, so that the
 * next market event of any of its pairs finds them read (or in flight) instead of waiting for a round trip.
 */
import type { Balances, PairBinding } from '../../chains/types.ts';
import { DltError } from '../../core/errors.ts';
import type { WalletBalanceCache } from './wallet-balances.ts';

export interface BalanceCacheOptions {
  /** The wallet's shared balances; the pair's tokens are read with it from now on. */
  readonly wallet: WalletBalanceCache;
  readonly pair: PairBinding;
  /** Balances older than this are read again even without activity. */
  readonly maxAgeMs: number;
}

export class BalanceCache {
  readonly #options: BalanceCacheOptions;
  #stopped = false;

  constructor(options: BalanceCacheOptions) {
    this.#options = options;
    options.wallet.register(options.pair, options.maxAgeMs);
  }

  /**
   * The pair's balances changed: the wallet reads its tokens (and the native balance) again now, unless a read is
   * on the wire (its end reads again).
   */
  changed(): void {
    const { baseToken, quoteToken } = this.#options.pair;
    this.#options.wallet.changed([baseToken, quoteToken]);
  }

  /** This loop asks for nothing more; once every loop of the wallet has stopped, no more reads start. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#options.wallet.release(this.#options.pair);
  }

  /** Balances that reflect every change of the wallet so far and are young enough; read when needed. */
  async current(nowMs: number): Promise<Balances> {
    const { baseToken, quoteToken } = this.#options.pair;
    const w = await this.#options.wallet.current(nowMs, [baseToken, quoteToken]);
    return { base: amountOf(w, baseToken), quote: amountOf(w, quoteToken), native: w.native };
  }
}

function amountOf(w: { tokens: ReadonlyMap<string, bigint>; failed: ReadonlyMap<string, Error> }, token: string) {
  const amount = w.tokens.get(token);
  if (amount !== undefined) return amount;
  throw (
    w.failed.get(token) ??
    new DltError('E_CHAIN_RPC', `the balance of token ${token} was not read`, { details: { token } })
  );
}
