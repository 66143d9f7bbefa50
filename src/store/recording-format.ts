/**
 * The recording format, version 2: one SQLite file per trading day (Europe/Berlin date), append-only, that an
 * analyst opens with any SQLite client, pandas (`read_sql`) or polars. Every row carries a sequence number
 * `seq` (the order it was recorded in, across tables) and the time this process received or did it (`recv_ms`,
 * on its clock). Amounts are exact decimal text (human units), chain integers as decimal text.
 *
 * Tables:
 * - `meta` (key, value): `format` = `dlt-mm-recording`, `version`, `day`, `created_ms`.
 * - `pairs`: one row per pair recorded: id, symbol, chain, wallet, the pair's venue binding as JSON (rules,
 *   scales, commissions: what a replay needs to apply the venue's rules), the order book's own configuration
 *   as its contract reported it (funding mode, commissions) with whether the wallet trades as a market maker
 *   (JSON), and the wallet's balances of the pair's two
 *   tokens when recording started (native units; JSON). Both are null when `dlt-mm record` records without a
 *   trading wallet.
 * - `books`: every order book the market-data feed served (WebSocket message or REST snapshot): both sides as
 *   JSON arrays of [price, quantity], the venue's time when it gave one.
 * - `trade_info`: the venue status as polled (trading status, last price, static reference price, collars).
 * - `chain_events`: the order book contracts' events of every recorded pair as the chain followers read them
 *   (arrivals, resting remainders, trades, rejections, cancellations), with block or ledger height, its time,
 *   the transaction and the event's unique key, in chain order.
 * - `fair_inputs`: every new reading of a fair-value source (what the bot combines and guards): the source,
 *   its value, the time the value describes, and why there is none when a read failed.
 * - `actions`: our own order actions: a placement or cancellation decided (with the quote), sent (with the
 *   transaction), and its outcome (included with the venue's order id, or refused with the reason).
 */
export const RECORDING_FORMAT = 'dlt-mm-recording';
export const RECORDING_VERSION = 2;

export const RECORDING_SCHEMA = `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS pairs (
    pair_id TEXT PRIMARY KEY, symbol TEXT NOT NULL, chain TEXT NOT NULL, wallet TEXT NOT NULL, binding_json TEXT NOT NULL,
    state_json TEXT, balances_json TEXT
  );
  CREATE TABLE IF NOT EXISTS books (
    seq INTEGER PRIMARY KEY, recv_ms INTEGER NOT NULL, symbol TEXT NOT NULL, source TEXT NOT NULL,
    venue_time TEXT, buy_json TEXT NOT NULL, sell_json TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS trade_info (
    seq INTEGER PRIMARY KEY, recv_ms INTEGER NOT NULL, pair_id TEXT NOT NULL, status_json TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS chain_events (
    seq INTEGER PRIMARY KEY, recv_ms INTEGER NOT NULL, chain TEXT NOT NULL, pair_id TEXT NOT NULL,
    height TEXT NOT NULL, block_time_ms INTEGER NOT NULL, tx_hash TEXT NOT NULL, event_key TEXT NOT NULL,
    type TEXT NOT NULL, order_id TEXT, client TEXT, side TEXT, price TEXT, quantity TEXT, event_json TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS fair_inputs (
    seq INTEGER PRIMARY KEY, recv_ms INTEGER NOT NULL, pair_id TEXT NOT NULL, source TEXT NOT NULL, value TEXT,
    value_time_ms INTEGER, max_age_ms INTEGER NOT NULL, error TEXT
  );
  CREATE TABLE IF NOT EXISTS actions (
    seq INTEGER PRIMARY KEY, recv_ms INTEGER NOT NULL, pair_id TEXT NOT NULL, stage TEXT NOT NULL,
    type TEXT NOT NULL, client_order_id TEXT, order_id TEXT, side TEXT, price TEXT, quantity TEXT, level INTEGER,
    tx_hash TEXT, detail TEXT
  );
  CREATE INDEX IF NOT EXISTS chain_events_pair ON chain_events (pair_id, seq);
  CREATE INDEX IF NOT EXISTS books_symbol ON books (symbol, seq);
`;

export type RecordTable = 'books' | 'trade_info' | 'chain_events' | 'fair_inputs' | 'actions';

/** Each table's columns in the order its rows give them (the sequence number is assigned on insert). */
export const RECORD_COLUMNS: Record<RecordTable, readonly string[]> = {
  books: ['recv_ms', 'symbol', 'source', 'venue_time', 'buy_json', 'sell_json'],
  trade_info: ['recv_ms', 'pair_id', 'status_json'],
  chain_events: [
    'recv_ms',
    'chain',
    'pair_id',
    'height',
    'block_time_ms',
    'tx_hash',
    'event_key',
    'type',
    'order_id',
    'client',
    'side',
    'price',
    'quantity',
    'event_json',
  ],
  fair_inputs: ['recv_ms', 'pair_id', 'source', 'value', 'value_time_ms', 'max_age_ms', 'error'],
  actions: [
    'recv_ms',
    'pair_id',
    'stage',
    'type',
    'client_order_id',
    'order_id',
    'side',
    'price',
    'quantity',
    'level',
    'tx_hash',
    'detail',
  ],
};
