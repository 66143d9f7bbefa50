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

/** The rows of `paths` between `range.fromMs` and `range.toMs` (receive time, inclusive), files in time order. */
export function readRecordings(paths: readonly string[], range: ReadRange = {}): RecordingData {
  const from = range.fromMs ?? Number.MIN_SAFE_INTEGER;
  const to = range.toMs ?? Number.MAX_SAFE_INTEGER;
  const pairs = new Map<string, RecordedPairData>();
  const chainEvents: RecordedChainEvent[] = [];
  const keys = new Set<string>();
  const tradeInfo: RecordedTradeInfo[] = [];
  const readings: RecordedReading[] = [];
  const actions: RecordedActionRow[] = [];
  const books: RecordedBook[] = [];
  let span: { fromMs: number; toMs: number } | null = null;
  const seen = (ms: number) => {
    span =
      span === null ? { fromMs: ms, toMs: ms } : { fromMs: Math.min(span.fromMs, ms), toMs: Math.max(span.toMs, ms) };
  };
  const files = paths.map((p) => ({ path: p, db: open(p) }));
  try {
    for (const { db } of files.toSorted((a, b) => createdMs(a.db) - createdMs(b.db))) {
      for (const r of db.prepare('SELECT * FROM pairs').all() as Array<Record<string, string | null>>)
        pairs.set(r.pair_id as string, {
          pairId: r.pair_id as string,
          symbol: r.symbol as string,
          chain: r.chain as 'evm' | 'wasm',
          wallet: r.wallet as string,
          binding: r.binding_json as string,
          state: r.state_json ?? pairs.get(r.pair_id as string)?.state ?? null,
          balances: pairs.get(r.pair_id as string)?.balances ?? r.balances_json ?? null,
        });
      const rows = (table: string) =>
        db.prepare(`SELECT * FROM ${table} WHERE recv_ms BETWEEN ? AND ? ORDER BY seq`).all(from, to) as Array<
          Record<string, string | number | null>
        >;
      for (const r of rows('chain_events')) {
        seen(r.recv_ms as number);
        if (keys.has(r.event_key as string)) continue;
        keys.add(r.event_key as string);
        chainEvents.push({
          chain: r.chain as 'evm' | 'wasm',
          pairId: r.pair_id as string,
          height: BigInt(r.height as string),
          blockTimeMs: r.block_time_ms as number,
          recvMs: r.recv_ms as number,
          txHash: r.tx_hash as string,
          key: r.event_key as string,
          event: r.event_json as string,
        });
      }
      for (const r of rows('trade_info')) {
        seen(r.recv_ms as number);
        tradeInfo.push({ recvMs: r.recv_ms as number, pairId: r.pair_id as string, status: r.status_json as string });
      }
      for (const r of rows('fair_inputs')) {
        seen(r.recv_ms as number);
        readings.push({
          recvMs: r.recv_ms as number,
          pairId: r.pair_id as string,
          source: r.source as string,
          value: r.value as string | null,
          valueTimeMs: r.value_time_ms as number | null,
          maxAgeMs: r.max_age_ms as number,
          error: r.error as string | null,
        });
      }
      for (const r of rows('actions')) {
        seen(r.recv_ms as number);
        actions.push({
          recvMs: r.recv_ms as number,
          pairId: r.pair_id as string,
          stage: r.stage as string,
          type: r.type as string,
          txHash: r.tx_hash as string | null,
        });
      }
      for (const r of rows('books')) {
        seen(r.recv_ms as number);
        books.push({
          recvMs: r.recv_ms as number,
          symbol: r.symbol as string,
          buy: r.buy_json as string,
          sell: r.sell_json as string,
        });
      }
    }
  } finally {
    for (const f of files) f.db.close();
  }
  return { pairs: [...pairs.values()], chainEvents, tradeInfo, readings, actions, books, span };
}
