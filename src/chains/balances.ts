/** What the adapters read of a wallet's holdings: a pair's balances, at one height, and the whole wallet's at once. */

/** Balances in native token units; `native` is the fee token (gas / XLM stroops). */
export interface Balances {
  readonly base: bigint;
  readonly quote: bigint;
  readonly native: bigint;
}

/** Balances as of one block or ledger: what the chain held once every event at or below `height` applied. */
export interface BalancesAt extends Balances {
  /** The block (chain A) or ledger (chain B) the base and quote amounts are of. */
  readonly height: bigint;
}

/**
 * The wallet's balance of each token asked for and its native balance, read together (one request where the
 * chain allows). A token whose read failed is missing from `tokens` and named in `failed` with its error, so
 * that one unreadable token does not cost the pairs of the others their balances.
 */
export interface WalletBalances {
  /** Amounts by the token address as it was asked for. */
  readonly tokens: ReadonlyMap<string, bigint>;
  readonly failed: ReadonlyMap<string, Error>;
  readonly native: bigint;
}
