/**
 * The parameter changes a running bot accepted, append-only and chained: each row's hash is the SHA-256 of the
 * previous row's hash and the row's own fields, so that `verify()` finds the first row edited, inserted or
 * deleted after the fact (the table also refuses updates and deletions).
 */
import { createHash } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { ChangedKey } from '../core/config/changed-keys.ts';

export interface ParameterChange {
  readonly atMs: number;
  /** Who changed it: the operator named in the environment. */
  readonly operator: string;
  readonly file: string;
  /** null for the first load. */
  readonly oldHash: string | null;
  readonly newHash: string;
  readonly changes: readonly ChangedKey[];
}

export interface StoredParameterChange extends ParameterChange {
  readonly seq: number;
  readonly prevHash: string;
  readonly rowHash: string;
}

const GENESIS = '0'.repeat(64);

interface Row {
  seq: number;
  at_ms: number;
  operator: string;
  file: string;
  old_hash: string | null;
  new_hash: string;
  changes_json: string;
  prev_hash: string;
  row_hash: string;
}

function hashOf(prev: string, c: ParameterChange, changesJson: string): string {
  const fields = [prev, String(c.atMs), c.operator, c.file, c.oldHash ?? '', c.newHash, changesJson];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

export class ParameterChanges {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  record(c: ParameterChange): StoredParameterChange {
    const last = this.#db.prepare('SELECT row_hash FROM parameter_changes ORDER BY seq DESC LIMIT 1').get() as
      { row_hash: string } | undefined;
    const prevHash = last?.row_hash ?? GENESIS;
    const changesJson = JSON.stringify(c.changes);
    const rowHash = hashOf(prevHash, c, changesJson);
    const r = this.#db
      .prepare(
        'INSERT INTO parameter_changes (at_ms, operator, file, old_hash, new_hash, changes_json, prev_hash, row_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(c.atMs, c.operator, c.file, c.oldHash, c.newHash, changesJson, prevHash, rowHash);
    return { ...c, seq: Number(r.lastInsertRowid), prevHash, rowHash };
  }

  /** Every row with `fromMs <= at < toMs`, in order. */
  between(fromMs: number, toMs: number): StoredParameterChange[] {
    const rows = this.#db
      .prepare('SELECT * FROM parameter_changes WHERE at_ms >= ? AND at_ms < ? ORDER BY seq')
      .all(fromMs, toMs) as unknown as Row[];
    return rows.map(fromRow);
  }

  /** Walks the whole chain: the first row whose hash or link does not hold, or null when every row holds. */
  verify(): { readonly rows: number; readonly brokenAt: number | null; readonly reason: string | null } {
    const rows = this.#db.prepare('SELECT * FROM parameter_changes ORDER BY seq').all() as unknown as Row[];
    let prev = GENESIS;
    for (const row of rows) {
      if (row.prev_hash !== prev)
        return { rows: rows.length, brokenAt: row.seq, reason: 'a row before it was changed, removed or inserted' };
      if (hashOf(prev, fromRow(row), row.changes_json) !== row.row_hash)
        return { rows: rows.length, brokenAt: row.seq, reason: 'its contents were changed after it was written' };
      prev = row.row_hash;
    }
    return { rows: rows.length, brokenAt: null, reason: null };
  }
}

function fromRow(r: Row): StoredParameterChange {
  return {
    seq: r.seq,
    atMs: r.at_ms,
    operator: r.operator,
    file: r.file,
    oldHash: r.old_hash,
    newHash: r.new_hash,
    changes: JSON.parse(r.changes_json) as ChangedKey[],
    prevHash: r.prev_hash,
    rowHash: r.row_hash,
  };
}
