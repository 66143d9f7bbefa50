/**
 * The chains' configuration defaults, written once: the schema (`chains-config.ts`) fills them in, and the
 * adapters' options (`options.ts` of `src/chains/evm` and `src/chains/wasm`) and the composition root
 * (`src/cli/bootstrap/adapters.ts`) fall back to the same figures when a value is not given.
 */

export const EVM_DEFAULTS = {
  /** The chain the wallet signs for (Polygon Amoy), checked against `eth_chainId`. */
  chainId: 80002,
  /** Chain A blocks on top of an event's before it is final. */
  confirmations: 2,
  /** First block of the venue's books: a fresh state file reads the wallet's order history from it. */
  historyFromBlock: 0,
  /** Cap on the EIP-1559 max fee per gas, gwei. */
  maxFeePerGasGwei: 500n,
} as const;

export const WASM_DEFAULTS = {
  /** An approval's lifetime in ledgers (a day of 5-second ledgers). */
  approvalLedgers: 17_280,
} as const;
