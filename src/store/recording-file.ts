/**
 * One day's recording file (format: recording-format.ts): opened or created, checked to be this format and
 * version, appended to in transactions. What to write and when is the recorder's (src/engine/recording/).
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import {
  RECORD_COLUMNS,
  RECORDING_FORMAT,
  RECORDING_SCHEMA,
  RECORDING_VERSION,
  type RecordTable,
} from './recording-format.ts';

export interface RecordRow {
  readonly table: RecordTable;
  readonly values: readonly SQLInputValue[];
}

export interface RecordedPairRow {
  readonly pairId: string;
  readonly symbol: string;
  readonly chain: 'evm' | 'wasm';
  readonly wallet: string;
  /** JSON text. */
  readonly binding: string;
  /** JSON text: the order book's configuration as its contract reported it; null when not read. */
  readonly state: string | null;
  /** JSON text: the wallet's base and quote balances (native units) when recording started; null when not read. */
  readonly balances: string | null;
}

export function recordingPath(dir: string, day: string): string {
  return join(dir, `dlt-mm-${day}.rec.sqlite`);
}

export class RecordingFile {
  readonly path: string;
  readonly #db: DatabaseSync;

  constructor(path: string, day: string, createdMs: number) {
    mkdirSync(dirname(path), { recursive: true });
    this.path = path;
    const db = new DatabaseSync(path);
    try {
      db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
      db.exec(RECORDING_SCHEMA);
      const meta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING');
      meta.run('format', RECORDING_FORMAT);
      meta.run('version', String(RECORDING_VERSION));
      meta.run('day', day);
      meta.run('created_ms', String(createdMs));
      const get = (key: string) =>
        (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string }).value;
      if (get('format') !== RECORDING_FORMAT || Number(get('version')) !== RECORDING_VERSION)
        throw new Error(
          `${path} is ${get('format')} version ${get('version')}, not ${RECORDING_FORMAT} version ${RECORDING_VERSION}`,
        );
    } catch (e) {
      db.close();
      throw e;
    }
    this.#db = db;
  }

  pair(p: RecordedPairRow): void {
    this.#db
      .prepare(
        `INSERT INTO pairs (pair_id, symbol, chain, wallet, binding_json, state_json, balances_json)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (pair_id) DO UPDATE SET symbol = excluded.symbol, chain = excluded.chain,
           wallet = excluded.wallet, binding_json = excluded.binding_json, state_json = excluded.state_json,
           balances_json = excluded.balances_json`,
      )
      .run(p.pairId, p.symbol, p.chain, p.wallet, p.binding, p.state, p.balances);
  }

  /** Appends the rows in one transaction: all of them or none. */
  append(rows: readonly RecordRow[]): void {
    this.#db.exec('BEGIN');
    try {
      for (const r of rows) {
        const cols = RECORD_COLUMNS[r.table];
        this.#db
          .prepare(`INSERT INTO ${r.table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`)
          .run(...r.values);
      }
      this.#db.exec('COMMIT');
    } catch (e) {
      this.#db.exec('ROLLBACK');
      throw e;
    }
  }

  /** Bytes on disk, the write-ahead log included. */
  bytes(): number {
    let n = 0;
    for (const suffix of ['', '-wal']) {
      try {
        n += statSync(`${this.path}${suffix}`).size;
      } catch {
        // not there (yet)
      }
    }
    return n;
  }

  close(): void {
    this.#db.close();
  }
}
