/**
 * Reading recordings back (format: recording-format.ts) for a replay: several day files as one stream, each
 * table in the order it was recorded, a chain event read by two followers (the wallet's and the book tap)
 * kept once, between two times. Files of another format or version are refused with what they are.
 */
import { DatabaseSync } from 'node:sqlite';
import { RECORDING_FORMAT, RECORDING_VERSION } from './recording-format.ts';

export interface RecordedPairData {
  readonly pairId: string;
  readonly symbol: string;
  readonly chain: 'evm' | 'wasm';
  readonly wallet: string;
  readonly binding: string;
  readonly state: string | null;
  readonly balances: string | null;
}

export interface RecordedChainEvent {
  readonly chain: 'evm' | 'wasm';
  readonly pairId: string;
  readonly height: bigint;
  readonly blockTimeMs: number;
  readonly recvMs: number;
  readonly txHash: string;
  readonly key: string;
  /** The event as the follower decoded it (JSON, bigints as text). */
  readonly event: string;
}

export interface RecordedTradeInfo {
  readonly recvMs: number;
  readonly pairId: string;
  readonly status: string;
}

export interface RecordedReading {
  readonly recvMs: number;
  readonly pairId: string;
  readonly source: string;
  readonly value: string | null;
  readonly valueTimeMs: number | null;
  readonly maxAgeMs: number;
  readonly error: string | null;
}

/** A book message the market-data feed served: when, of which market, and its levels ([price, quantity] JSON). */
export interface RecordedBook {
  readonly recvMs: number;
  readonly symbol: string;
  readonly buy: string;
  readonly sell: string;
}

export interface RecordedActionRow {
  readonly recvMs: number;
  readonly pairId: string;
  readonly stage: string;
  readonly type: string;
  readonly txHash: string | null;
}

export interface RecordingData {
  readonly pairs: readonly RecordedPairData[];
  readonly chainEvents: readonly RecordedChainEvent[];
  readonly tradeInfo: readonly RecordedTradeInfo[];
  readonly readings: readonly RecordedReading[];
  readonly actions: readonly RecordedActionRow[];
  readonly books: readonly RecordedBook[];
  /** The first and last time any row was recorded. */
  readonly span: { readonly fromMs: number; readonly toMs: number } | null;
}

export interface ReadRange {
  readonly fromMs?: number;
  readonly toMs?: number;
}

function open(path: string): DatabaseSync {
  const db = new DatabaseSync(path, { readOnly: true });
  const get = (key: string) =>
    (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  let format: string | undefined;
  let version: string | undefined;
  try {
    format = get('format');
    version = get('version');
  } catch {
    // not a recording at all: said below
  }
  if (format !== RECORDING_FORMAT || Number(version) !== RECORDING_VERSION) {
    db.close();
    throw new Error(
      `${path} is not a ${RECORDING_FORMAT} file of version ${RECORDING_VERSION} (it says ${format ?? 'nothing'} version ${version ?? '-'})`,
    );
  }
  return db;
}

const createdMs = (db: DatabaseSync) =>
  Number((db.prepare("SELECT value FROM meta WHERE key = 'created_ms'").get() as { value: string }).value);

type PairRow = Record<string, string | null>;
type RecordedRow = Record<string, string | number | null>;

/** What the files hold so far, read in time order. */
interface Collected {
  readonly pairs: Map<string, RecordedPairData>;
  readonly chainEvents: RecordedChainEvent[];
  /** The chain events' keys: an event recorded in two files is read once. */
  readonly keys: Set<string>;
  readonly tradeInfo: RecordedTradeInfo[];
  readonly readings: RecordedReading[];
  readonly actions: RecordedActionRow[];
  readonly books: RecordedBook[];
  span: { fromMs: number; toMs: number } | null;
}

function pairOf(row: PairRow, earlier: RecordedPairData | undefined): RecordedPairData {
  return {
    pairId: row.pair_id as string,
    symbol: row.symbol as string,
    chain: row.chain as 'evm' | 'wasm',
    wallet: row.wallet as string,
    binding: row.binding_json as string,
    state: row.state_json ?? earlier?.state ?? null,
    balances: earlier?.balances ?? row.balances_json ?? null,
  };
}

function chainEventOf(row: RecordedRow): RecordedChainEvent {
  return {
    chain: row.chain as 'evm' | 'wasm',
    pairId: row.pair_id as string,
    height: BigInt(row.height as string),
    blockTimeMs: row.block_time_ms as number,
    recvMs: row.recv_ms as number,
    txHash: row.tx_hash as string,
    key: row.event_key as string,
    event: row.event_json as string,
  };
}

function readingOf(row: RecordedRow): RecordedReading {
  return {
    recvMs: row.recv_ms as number,
    pairId: row.pair_id as string,
    source: row.source as string,
    value: row.value as string | null,
    valueTimeMs: row.value_time_ms as number | null,
    maxAgeMs: row.max_age_ms as number,
    error: row.error as string | null,
  };
}

function actionOf(row: RecordedRow): RecordedActionRow {
  return {
    recvMs: row.recv_ms as number,
    pairId: row.pair_id as string,
    stage: row.stage as string,
    type: row.type as string,
    txHash: row.tx_hash as string | null,
  };
}

function bookOf(row: RecordedRow): RecordedBook {
  return {
    recvMs: row.recv_ms as number,
    symbol: row.symbol as string,
    buy: row.buy_json as string,
    sell: row.sell_json as string,
  };
}

/** Widens the recorded span to take in a row received at `ms`. */
function seen(into: Collected, ms: number): void {
  const span = into.span;
  into.span =
    span === null ? { fromMs: ms, toMs: ms } : { fromMs: Math.min(span.fromMs, ms), toMs: Math.max(span.toMs, ms) };
}

/** One file's rows received in `[from, to]`, added to what the earlier files held. */
function readFile(db: DatabaseSync, from: number, to: number, into: Collected): void {
  for (const row of db.prepare('SELECT * FROM pairs').all() as PairRow[])
    into.pairs.set(row.pair_id as string, pairOf(row, into.pairs.get(row.pair_id as string)));
  const rows = (table: string) =>
    db.prepare(`SELECT * FROM ${table} WHERE recv_ms BETWEEN ? AND ? ORDER BY seq`).all(from, to) as RecordedRow[];
  for (const row of rows('chain_events')) {
    seen(into, row.recv_ms as number);
    if (into.keys.has(row.event_key as string)) continue;
    into.keys.add(row.event_key as string);
    into.chainEvents.push(chainEventOf(row));
  }
  for (const row of rows('trade_info')) {
    seen(into, row.recv_ms as number);
    into.tradeInfo.push({
      recvMs: row.recv_ms as number,
      pairId: row.pair_id as string,
      status: row.status_json as string,
    });
  }
  for (const row of rows('fair_inputs')) {
    seen(into, row.recv_ms as number);
    into.readings.push(readingOf(row));
  }
  for (const row of rows('actions')) {
    seen(into, row.recv_ms as number);
    into.actions.push(actionOf(row));
  }
  for (const row of rows('books')) {
    seen(into, row.recv_ms as number);
    into.books.push(bookOf(row));
  }
}

/** The rows of `paths` between `range.fromMs` and `range.toMs` (receive time, inclusive), files in time order. */
export function readRecordings(paths: readonly string[], range: ReadRange = {}): RecordingData {
  const from = range.fromMs ?? Number.MIN_SAFE_INTEGER;
  const to = range.toMs ?? Number.MAX_SAFE_INTEGER;
  const collected: Collected = {
    pairs: new Map(),
    chainEvents: [],
    keys: new Set(),
    tradeInfo: [],
    readings: [],
    actions: [],
    books: [],
    span: null,
  };
  const files = paths.map((path) => ({ path, db: open(path) }));
  try {
    for (const { db } of files.toSorted((a, b) => createdMs(a.db) - createdMs(b.db))) readFile(db, from, to, collected);
  } finally {
    for (const file of files) file.db.close();
  }
  const { pairs, chainEvents, tradeInfo, readings, actions, books, span } = collected;
  return { pairs: [...pairs.values()], chainEvents, tradeInfo, readings, actions, books, span };
}
