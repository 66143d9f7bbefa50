/**
 * Migration 2: what the engine needs after a restart: the terms that decide an order's lock, the chain events already
 * applied (so a replayed batch changes nothing), inventory totals derived from fills, alerts that pause a pair,
 * orders of our wallets that are not ours, and maker fills waiting for the chain to disambiguate them.
 */
export const MIGRATION_2 = `
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
  `;
