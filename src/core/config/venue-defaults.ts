/**
 * The venue section's defaults, written once: the schema (`bot-config.ts`) fills them in, and a connection to
 * the sandbox (`src/cli/bootstrap/connection.ts`) and a backtest without a venue section use the same figures.
 */
export const VENUE_DEFAULTS = {
  /** Timeout of one REST request. */
  requestTimeoutMs: 10_000,
  /** How often each pair's trade info is read. */
  tradeInfoPollMs: 5_000,
  /** A market without a WebSocket message this long is stale. */
  marketDataStaleMs: 10_000,
} as const;
