/**
 * Migration 1: the initial schema.
 */
export const MIGRATION_1 = `
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
  `;
