/**
 * Migration 4: market-making obligations and the trading-day report: our quotes as the chain showed them, what the bot saw
 * of each market, when it ran, the windows the operator declared, periodic samples of each pair, the pairs'
 * terms, breaches a limit forced, and the fee each included transaction was charged.
 */
export const MIGRATION_4 = `
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
  `;
