/**
 * One error base class with a stable code. The catalogue below is the single list of codes; the error table
 * of config/README.md is kept in step with it by a test (test/unit/core/error-catalogue.test.ts).
 */

export interface ErrorSpec {
  /** One line: what happened. */
  readonly summary: string;
  /** Whether trying the same thing again (possibly after the remedy) can succeed. */
  readonly retryable: boolean;
}

export const ERROR_CATALOGUE = {
  // Input values and units
  E_DECIMAL_FORMAT: { summary: 'Value is not a decimal string of the venue format', retryable: false },
  E_SCALE_FORMAT: { summary: 'Scale string is not a positive integer of at most 38 digits', retryable: false },
  E_NOT_EXACT: { summary: 'Value times scale is not an exact integer (never rounded)', retryable: false },
  E_INTEGER_RANGE: { summary: 'Integer outside the range of its on-chain type', retryable: false },

  // Trading pairs
  E_PAIR_INVALID: { summary: 'Trading pair record fails the specification', retryable: false },
  E_PAIR_NOT_FOUND: { summary: 'No trading pair matches chain, base symbol and quote symbol', retryable: false },
  E_PAIR_AMBIGUOUS: { summary: 'More than one trading pair matches; refusing to guess', retryable: false },
  E_PAIR_RULES_MISSING: { summary: 'Trading pair lacks a field the venue rules need', retryable: false },

  // Venue rules checked before signing
  E_RULE_TICK: { summary: 'Price is not on the tick grid of the pair', retryable: false },
  E_RULE_SIZE: { summary: 'Size is not the minimum plus a whole multiple of the size increment', retryable: false },
  E_RULE_VALUE_MIN: { summary: 'Order value below the minimum order value plus safety margin', retryable: false },
  E_RULE_VALUE_MAX: { summary: 'Order value above the maximum order value', retryable: false },
  E_RULE_COLLAR: {
    summary: 'Limit price outside the price collar around the static reference price',
    retryable: false,
  },
  E_RULE_STATIC_THRESHOLD: { summary: 'Price outside the static volatility threshold', retryable: false },
  E_RULE_DYNAMIC_THRESHOLD: { summary: 'Price outside the dynamic volatility threshold', retryable: false },
  E_RULE_LIFETIME: { summary: 'Lifetime outside 0..90 days or given without GTD', retryable: false },
  E_RULE_ORDER_TERMS: { summary: 'Order terms are not a valid combination for this chain', retryable: false },
  E_RULE_PRICE: { summary: 'Price must be positive for a limit order', retryable: false },
  E_RULES_BROKEN: { summary: 'Order breaks one or more venue rules (listed in details)', retryable: false },

  // Encodings
  E_ENCODING_HEX: { summary: 'Not a whole number of bytes in hexadecimal', retryable: false },
  E_ENCODING_WORDS: { summary: 'order_data is not 2 to 6 complete 32-byte words', retryable: false },
  E_ENCODING_FIELD: { summary: 'An encoded field holds a value outside its range', retryable: false },
  E_ENCODING_COMBINATION: { summary: 'Encoded fields form a combination the venue refuses', retryable: false },
  E_ENCODING_CROSS_ID: { summary: 'Cross identifier has the wrong length or value', retryable: false },
  E_ENCODING_REPORTING: { summary: 'Reporting data has the wrong length or value', retryable: false },
  E_ENCODING_UNSUPPORTED: { summary: 'The order book version does not support these order terms', retryable: false },

  // Venue and contract outcomes (chain A custom errors, chain B contract codes, rejection reasons)
  E_VENUE_NOT_ALLOWED_TO_BUY: { summary: 'Wallet is not permitted to buy', retryable: false },
  E_VENUE_NOT_ALLOWED_TO_SELL: { summary: 'Wallet is not permitted to sell', retryable: false },
  E_VENUE_NOT_ALLOWED_TO_CANCEL: { summary: 'Wallet is not permitted to cancel', retryable: false },
  E_VENUE_CLIENT_NOT_FOUND: { summary: 'Account is not in the client registry', retryable: false },
  E_VENUE_ORDER_NOT_FOUND: { summary: 'Order id does not exist or no longer rests', retryable: false },
  E_VENUE_INSUFFICIENT_BALANCE: { summary: 'Token balance too low for value plus commission', retryable: false },
  E_VENUE_INSUFFICIENT_ALLOWANCE: {
    summary: 'Allowance missing, consumed or too low; approve, then retry',
    retryable: true,
  },
  E_VENUE_NOT_BENEFICIARY: {
    summary: 'Receiving wallet is not a beneficiary of the restricted token',
    retryable: false,
  },
  E_VENUE_TRUSTLINE_MISSING: { summary: 'Token trustline missing on the account', retryable: false },
  E_VENUE_TOKEN_NOT_AUTHORIZED: { summary: 'Account is not authorized to hold the token', retryable: false },
  E_VENUE_INVALID_ORDER_DATA: { summary: 'Contract refused the order encoding', retryable: false },
  E_VENUE_UNAUTHORIZED: { summary: 'Method needs an elevated role', retryable: false },
  E_VENUE_PRICE_ABOVE_MAX_RANGE: { summary: 'Pre-trade control: price above the maximum range', retryable: false },
  E_VENUE_PRICE_BELOW_MIN_RANGE: { summary: 'Pre-trade control: price below the minimum range', retryable: false },
  E_VENUE_VALUE_ABOVE_MAX_RANGE: { summary: 'Pre-trade control: order value above the maximum', retryable: false },
  E_VENUE_VOLUME_ABOVE_MAX_RANGE: { summary: 'Pre-trade control: order volume above the maximum', retryable: false },
  E_VENUE_VALUE_BELOW_MIN_RANGE: { summary: 'Pre-trade control: order value below the minimum', retryable: false },
  E_VENUE_VOLUME_BELOW_MIN_RANGE: { summary: 'Pre-trade control: order volume below the minimum', retryable: false },
  E_VENUE_OFF_TICK: { summary: 'Pre-trade control: price not on tick', retryable: false },
  E_VENUE_VOLATILITY_MAX_STATIC: { summary: 'Volatility control: price above the static range', retryable: true },
  E_VENUE_VOLATILITY_MIN_STATIC: { summary: 'Volatility control: price below the static range', retryable: true },
  E_VENUE_VOLATILITY_MAX_DYNAMIC: { summary: 'Volatility control: price above the dynamic range', retryable: true },
  E_VENUE_VOLATILITY_MIN_DYNAMIC: { summary: 'Volatility control: price below the dynamic range', retryable: true },
  E_VENUE_MARKET_CLOSED: { summary: 'Order book is not open for trading', retryable: true },
  E_VENUE_CONTRACT_ERROR: { summary: 'Contract error without a known meaning', retryable: false },
  E_VENUE_HOST_ERROR: {
    summary: 'Chain B host refused the call (authorization, argument types or limits)',
    retryable: false,
  },
  E_REJECTED_SELF_TRADE: {
    summary: 'Rejected: would trade with an own order of the same cross identifier',
    retryable: false,
  },
  E_REJECTED_MAX_MATCHES: { summary: 'Rejected: more resting orders to match than maximumMatches', retryable: false },
  E_REJECTED_CIRCUIT_BREAKER: { summary: 'Rejected: execution price outside a circuit-breaker range', retryable: true },
  E_REJECTED_PARTIAL: { summary: 'Remainder rejected by its execution condition', retryable: false },
  E_REJECTED_FULL: { summary: 'Order rejected in full by its execution condition', retryable: false },
  E_REJECTED_UNKNOWN: { summary: 'Rejected with a reason code the client does not know', retryable: false },

  // Chain nodes and transactions (both chains)
  E_CHAIN_RPC: { summary: 'Chain node RPC failed, or answered something unreadable', retryable: true },
  E_CHAIN_TX_REFUSED: {
    summary: 'Chain node refused the transaction before inclusion; it never applied',
    retryable: false,
  },
  E_CHAIN_TX_EXPIRED: { summary: 'Transaction expired without inclusion; it never applied', retryable: true },

  // Fair value
  E_FAIR_VALUE_FEED: {
    summary: 'A fair-value feed did not answer, or answered without a readable number and time',
    retryable: true,
  },
  E_FAIR_VALUE_SOURCE: {
    summary: 'A fair-value source has no value to give (instrument data, oracle or terms missing or unusable)',
    retryable: true,
  },

  // Order management
  E_ORDER_NOT_SENT: {
    summary: 'Order was recorded but never signed or sent (the process stopped first)',
    retryable: true,
  },
  E_ORDER_STATE: { summary: 'Command does not fit the order in its current status', retryable: false },
  E_TRADING_PAUSED: {
    summary: 'Trading on the pair waits for reconciliation or for an alert to be explained',
    retryable: true,
  },
  E_ORDER_WITHDRAWN: {
    summary: 'Placement withdrawn before it was signed (kill switch, stale market data, shutdown)',
    retryable: true,
  },
  E_OWN_WALLETS_WOULD_TRADE: {
    summary: 'Placement refused before signing: it would meet an order of another of our wallets (self-trade)',
    retryable: true,
  },
  E_STORE_CLAIMED: {
    summary: 'The state file is in use by another trading process (dlt-mm run or cancel-all)',
    retryable: false,
  },

  // Venue API: REST and WebSocket market data
  E_REST_AUTH: { summary: 'Venue refused the credentials, or none is configured (HTTP 401/403)', retryable: false },
  E_AUTH_TOKEN: {
    summary:
      'No access token could be had from the token endpoint (client credentials refused, or the endpoint failed)',
    retryable: true,
  },
  E_REST_NOT_FOUND: { summary: 'Venue resource not found (HTTP 404)', retryable: false },
  E_REST_REQUEST: { summary: 'Venue refused the request (HTTP 4xx; AppError in details)', retryable: false },
  E_REST_UNAVAILABLE: { summary: 'Venue answered 429 or 5xx until the retry budget ran out', retryable: true },
  E_REST_TIMEOUT: { summary: 'Venue REST request timed out on every attempt', retryable: true },
  E_REST_TRANSPORT: {
    summary: 'Venue REST request failed before a response (connection refused or reset)',
    retryable: true,
  },
  E_PAYLOAD_MALFORMED: {
    summary: 'Venue payload does not match the specification (field and value in details)',
    retryable: false,
  },
  E_WS_CONNECTION: { summary: 'Market-data WebSocket failed or dropped; the client reconnects', retryable: true },
  E_WS_SUBSCRIBE: { summary: 'Venue refused or did not acknowledge a market-data subscription', retryable: true },
  E_WALLET_NOT_VERIFIED: { summary: 'The venue lists the wallet as not VERIFIED: it may not trade', retryable: false },

  // Configuration and command line
  E_CONFIG_INVALID: { summary: 'Configuration has problems (every one is listed)', retryable: false },
  E_CONFIG_SECRET: { summary: 'A secret could not be read from its environment variable or file', retryable: false },
  E_CONFIG_READ: { summary: 'Configuration file cannot be read or parsed', retryable: false },
  E_USAGE: { summary: 'Command line arguments are invalid', retryable: false },

  // Bond arithmetic (dlt-mm price bond)
  E_BOND_INPUT: {
    summary: 'Bond terms, settlement date, yield or price cannot be priced (the reason is in the message)',
    retryable: false,
  },

  // The local venue replica
  E_SANDBOX: { summary: 'A sandbox part failed to build, start, deploy or stop', retryable: false },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface DltErrorOptions {
  readonly details?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

export class DltError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: DltErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DltError';
    this.code = code;
    this.details = options.details ?? {};
  }

  get retryable(): boolean {
    return ERROR_CATALOGUE[this.code].retryable;
  }

  toJSON(): Record<string, unknown> {
    return { code: this.code, message: this.message, retryable: this.retryable, details: this.details };
  }
}

export function isDltError(value: unknown, code?: ErrorCode): value is DltError {
  return value instanceof DltError && (code === undefined || value.code === code);
}

/** `reason` when it is a DltError already, else a new one with `code` and `message`. */
export function asDltError(reason: unknown, code: ErrorCode, message: string): DltError {
  return reason instanceof DltError ? reason : new DltError(code, message);
}
