/**
 * Schema migrations, applied in order and recorded in `meta.schema_version`. Never edit a released migration:
 * add the next one. Integers that can exceed int64 (order ids, token amounts, quantities) are decimal TEXT.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: the initial schema.
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  -- Why an order exists: the market it saw, the parameters and config it ran with, the checks it passed.
  CREATE TABLE decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_ms INTEGER NOT NULL,
    pair_id TEXT NOT NULL,
    strategy TEXT NOT NULL,
    config_hash TEXT NOT NULL,
    params_json TEXT NOT NULL,
    market_json TEXT NOT NULL,
    risk_json TEXT NOT NULL
  );

  CREATE TABLE orders (
    wallet TEXT NOT NULL,
    client_order_id TEXT NOT NULL,
    chain TEXT NOT NULL,
    pair_id TEXT NOT NULL,
    side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
    quantity TEXT NOT NULL,
    price TEXT NOT NULL,
    status TEXT NOT NULL,
    order_id TEXT,
    filled TEXT NOT NULL,
    fill_ids_json TEXT NOT NULL,
    tx_hash TEXT,
    cancel_tx_hash TEXT,
    rejection_code TEXT,
    rejection_reason TEXT,
    cancelled_by TEXT,
    unexplained TEXT NOT NULL,
    adopted INTEGER NOT NULL DEFAULT 0,
    decision_id INTEGER REFERENCES decisions(id),
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    PRIMARY KEY (wallet, client_order_id)
  );
  CREATE INDEX orders_live ON orders (status) WHERE status NOT IN ('filled', 'cancelled', 'rejected');
  CREATE UNIQUE INDEX orders_venue_id ON orders (chain, pair_id, order_id) WHERE order_id IS NOT NULL;
  CREATE INDEX orders_tx ON orders (tx_hash);

  -- Every accepted transition of every order, in order, with the event that caused it.
  CREATE TABLE order_transitions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    wallet TEXT NOT NULL,
    client_order_id TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    from_status TEXT NOT NULL,
    to_status TEXT NOT NULL,
    event_json TEXT NOT NULL
  );
  CREATE INDEX order_transitions_order ON order_transitions (wallet, client_order_id, id);

  CREATE TABLE fills (
    fill_id TEXT PRIMARY KEY,
    wallet TEXT NOT NULL,
    client_order_id TEXT NOT NULL,
    pair_id TEXT NOT NULL,
    side TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('maker', 'taker')),
    quantity TEXT NOT NULL,
    price TEXT NOT NULL,
    base_delta TEXT NOT NULL,
    quote_delta TEXT NOT NULL,
    fee TEXT NOT NULL,
    tx_hash TEXT NOT NULL,
    height TEXT NOT NULL,
    at_ms INTEGER NOT NULL
  );
  CREATE INDEX fills_pair ON fills (pair_id, at_ms);

  -- Every signed transaction, written before it is broadcast, so that a crash never loses one.
  CREATE TABLE transactions (
    tx_hash TEXT PRIMARY KEY,
    chain TEXT NOT NULL,
    wallet TEXT NOT NULL,
    source TEXT NOT NULL,
    sequence TEXT NOT NULL,
    kind TEXT NOT NULL,
    client_order_id TEXT,
    raw TEXT NOT NULL,
    status TEXT NOT NULL,
    replaced_by TEXT,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  CREATE INDEX transactions_open ON transactions (chain, source, status) WHERE status IN ('signed', 'sent');

  CREATE TABLE cursors (
    chain TEXT NOT NULL,
    wallet TEXT NOT NULL,
    cursor_json TEXT NOT NULL,
    updated_ms INTEGER NOT NULL,
    PRIMARY KEY (chain, wallet)
  );

  CREATE TABLE approvals (
    chain TEXT NOT NULL,
    wallet TEXT NOT NULL,
    token TEXT NOT NULL,
    spender TEXT NOT NULL,
    amount TEXT NOT NULL,
    expires_at_ledger INTEGER,
    tx_hash TEXT,
    updated_ms INTEGER NOT NULL,
    PRIMARY KEY (chain, wallet, token, spender)
  );

  -- Monotonic counters (client order ids per wallet); a number handed out is never handed out again.
  CREATE TABLE counters (name TEXT PRIMARY KEY, next INTEGER NOT NULL);
  `,
  // 2: what the engine needs after a restart: the terms that decide an order's lock, the chain events already
  // applied (so a replayed batch changes nothing), inventory totals derived from fills, alerts that pause a
  // pair, orders of our wallets that are not ours, and maker fills waiting for the chain to disambiguate them.
  `
  ALTER TABLE orders ADD COLUMN lock_rate_bps INTEGER;
  ALTER TABLE orders ADD COLUMN prefunded INTEGER;
  ALTER TABLE orders ADD COLUMN options_json TEXT;

  CREATE TABLE processed_events (
    chain TEXT NOT NULL,
    wallet TEXT NOT NULL,
    event_key TEXT NOT NULL,
    tx_hash TEXT NOT NULL,
    height TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    PRIMARY KEY (chain, wallet, event_key)
  );

  -- Base or quote held by a wallet, free plus locked in its resting orders, in native units.
  CREATE TABLE inventory (
    chain TEXT NOT NULL,
    wallet TEXT NOT NULL,
    token TEXT NOT NULL,
    total TEXT NOT NULL,
    baseline_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    PRIMARY KEY (chain, wallet, token)
  );

  CREATE TABLE alerts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chain TEXT NOT NULL,
    wallet TEXT NOT NULL,
    pair_id TEXT,
    kind TEXT NOT NULL,
    message TEXT NOT NULL,
    details_json TEXT NOT NULL,
    pauses INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    resolved_ms INTEGER,
    resolution TEXT
  );
  CREATE INDEX alerts_open ON alerts (chain, wallet, pair_id) WHERE resolved_ms IS NULL;

  CREATE TABLE foreign_orders (
    chain TEXT NOT NULL,
    wallet TEXT NOT NULL,
    pair_id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    cross_id TEXT,
    side TEXT,
    quantity TEXT,
    price TEXT,
    source TEXT NOT NULL,
    first_seen_ms INTEGER NOT NULL,
    last_seen_ms INTEGER NOT NULL,
    gone_ms INTEGER,
    PRIMARY KEY (chain, wallet, pair_id, order_id)
  );

  CREATE TABLE pending_fills (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chain TEXT NOT NULL,
    wallet TEXT NOT NULL,
    pair_id TEXT NOT NULL,
    side TEXT NOT NULL,
    tx_hash TEXT NOT NULL UNIQUE,
    height TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    base_in TEXT NOT NULL,
    quote_in TEXT NOT NULL,
    detail_json TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    resolved_ms INTEGER
  );
  `,
  // 3: chain A blocks can be reorganised away. Every change the engine derived from a chain transaction names
  // that transaction and its block (so the change can be withdrawn when the block is), and the transactions
  // applied from chain A receipts or events are listed until the follower's confirmed cursor has seen them.
  `
  ALTER TABLE order_transitions ADD COLUMN source_tx TEXT;
  ALTER TABLE order_transitions ADD COLUMN source_block TEXT;
  ALTER TABLE order_transitions ADD COLUMN withdrawn_ms INTEGER;
  -- 'event': a transition of the table; 'rollback': the record of a withdrawal (not replayed).
  ALTER TABLE order_transitions ADD COLUMN kind TEXT NOT NULL DEFAULT 'event';
  CREATE INDEX order_transitions_source ON order_transitions (source_tx, source_block) WHERE source_tx IS NOT NULL;

  ALTER TABLE processed_events ADD COLUMN block_hash TEXT;
  CREATE INDEX processed_events_tx ON processed_events (tx_hash, block_hash);

  ALTER TABLE fills ADD COLUMN block_hash TEXT;
  CREATE INDEX fills_tx ON fills (tx_hash, block_hash);

  CREATE TABLE chain_applications (
    chain TEXT NOT NULL,
    wallet TEXT NOT NULL,
    tx_hash TEXT NOT NULL,
    block_hash TEXT NOT NULL,
    height INTEGER NOT NULL,
    -- The order whose placement or cancellation this is; null for a transaction the follower applied.
    client_order_id TEXT,
    kind TEXT NOT NULL CHECK (kind IN ('place', 'cancel', 'events')),
    confirmed INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (chain, wallet, tx_hash, block_hash)
  );
  CREATE INDEX chain_applications_open ON chain_applications (chain, wallet) WHERE confirmed = 0;
  CREATE INDEX chain_applications_height ON chain_applications (chain, wallet, height);
  `,
  // 4: market-making obligations and the trading-day report: our quotes as the chain showed them, what the bot
  // saw of each market, when it ran, the windows the operator declared, periodic samples of each pair, the
  // pairs' terms, breaches a limit forced, and the fee each included transaction was charged.
  `
  CREATE TABLE quote_spans (
    chain TEXT NOT NULL,
    wallet TEXT NOT NULL,
    pair_id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
    price TEXT NOT NULL,
    quantity TEXT NOT NULL,
    rest_ms INTEGER NOT NULL,
    rest_height TEXT NOT NULL,
    end_ms INTEGER,
    end_height TEXT,
    end_kind TEXT,
    PRIMARY KEY (chain, wallet, pair_id, order_id)
  );
  CREATE INDEX quote_spans_end ON quote_spans (pair_id, end_ms);

  CREATE TABLE market_states (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    pair_id TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('continuous', 'halted', 'closed')),
    detail TEXT NOT NULL
  );
  CREATE INDEX market_states_pair ON market_states (pair_id, at_ms);

  CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_ms INTEGER NOT NULL,
    alive_ms INTEGER NOT NULL,
    stopped_ms INTEGER
  );

  CREATE TABLE obligation_windows (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('exception', 'stressed')),
    pair_id TEXT,
    from_ms INTEGER NOT NULL,
    to_ms INTEGER,
    reason TEXT NOT NULL,
    source TEXT NOT NULL,
    declared_ms INTEGER NOT NULL
  );

  CREATE TABLE pair_samples (
    pair_id TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    mark TEXT,
    position TEXT NOT NULL,
    realised TEXT NOT NULL,
    unrealised TEXT NOT NULL,
    fees TEXT NOT NULL,
    bid TEXT,
    ask TEXT,
    spread_bps REAL,
    max_spread_bps REAL,
    compliant INTEGER,
    presence REAL,
    PRIMARY KEY (pair_id, at_ms)
  );

  CREATE TABLE report_pairs (
    pair_id TEXT PRIMARY KEY,
    symbol TEXT NOT NULL,
    chain TEXT NOT NULL,
    wallet TEXT NOT NULL,
    scales_json TEXT NOT NULL,
    obligations_json TEXT,
    calendar_json TEXT NOT NULL,
    updated_ms INTEGER NOT NULL
  );

  CREATE TABLE obligation_breaches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    pair_id TEXT NOT NULL,
    limit_name TEXT NOT NULL,
    detail TEXT NOT NULL,
    started_ms INTEGER NOT NULL,
    ended_ms INTEGER
  );

  ALTER TABLE transactions ADD COLUMN fee TEXT;
  `,
];
