/**
 * Alerts the engine raised: an inventory mismatch, a fill it could not explain, an order it believed dead that
 * the chain shows alive. An open alert that pauses keeps its pair (or, without a pair, the whole wallet) from
 * trading until it is resolved, by the engine when later events explain it or by an operator.
 */
import type { Db } from './database.ts';
import { toJson } from './json.ts';

export interface AlertInput {
  readonly chain: 'evm' | 'wasm';
  readonly wallet: string;
  /** Null: the whole wallet. */
  readonly pairId: string | null;
  readonly kind: string;
  readonly message: string;
  readonly details: unknown;
  readonly pauses: boolean;
}

export interface AlertRecord extends AlertInput {
  readonly id: number;
  readonly createdMs: number;
  readonly resolvedMs: number | null;
  readonly resolution: string | null;
}

export class AlertStore {
  readonly #db: Db;
  readonly #now: () => number;

  constructor(db: Db, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  /** Raises an alert, or refreshes the open one of the same kind on the same pair; returns its id and whether it is new. */
  raise(a: AlertInput): { id: number; created: boolean } {
    const open = this.open({ chain: a.chain, wallet: a.wallet }).find(
      (x) => x.kind === a.kind && x.pairId === a.pairId,
    );
    if (open !== undefined) {
      this.#db
        .prepare('UPDATE alerts SET message = ?, details_json = ?, pauses = ? WHERE id = ?')
        .run(a.message, toJson(a.details), a.pauses ? 1 : 0, open.id);
      return { id: open.id, created: false };
    }
    const r = this.#db
      .prepare(
        'INSERT INTO alerts (chain, wallet, pair_id, kind, message, details_json, pauses, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(a.chain, a.wallet, a.pairId, a.kind, a.message, toJson(a.details), a.pauses ? 1 : 0, this.#now());
    return { id: Number(r.lastInsertRowid), created: true };
  }

  open(filter: { chain?: 'evm' | 'wasm'; wallet?: string; pairId?: string; kind?: string } = {}): AlertRecord[] {
    return this.#db
      .prepare(
        `SELECT * FROM alerts WHERE resolved_ms IS NULL AND (? IS NULL OR chain = ?) AND (? IS NULL OR wallet = ?)
           AND (? IS NULL OR pair_id = ?) AND (? IS NULL OR kind = ?) ORDER BY id`,
      )
      .all(
        filter.chain ?? null,
        filter.chain ?? null,
        filter.wallet ?? null,
        filter.wallet ?? null,
        filter.pairId ?? null,
        filter.pairId ?? null,
        filter.kind ?? null,
        filter.kind ?? null,
      )
      .map((r) => fromRow(r as Record<string, string | number | null>));
  }

  /** Open alerts that keep a pair from trading: its own and the wallet-wide ones. */
  pausing(chain: 'evm' | 'wasm', wallet: string, pairId: string): AlertRecord[] {
    return this.open({ chain, wallet }).filter((a) => a.pauses && (a.pairId === null || a.pairId === pairId));
  }

  resolve(id: number, resolution: string): void {
    this.#db
      .prepare('UPDATE alerts SET resolved_ms = ?, resolution = ? WHERE id = ? AND resolved_ms IS NULL')
      .run(this.#now(), resolution, id);
  }

  get(id: number): AlertRecord | undefined {
    const r = this.#db.prepare('SELECT * FROM alerts WHERE id = ?').get(id) as
      Record<string, string | number | null> | undefined;
    return r === undefined ? undefined : fromRow(r);
  }
}

function fromRow(r: Record<string, string | number | null>): AlertRecord {
  return {
    id: Number(r.id),
    chain: r.chain as 'evm' | 'wasm',
    wallet: String(r.wallet),
    pairId: r.pair_id === null ? null : String(r.pair_id),
    kind: String(r.kind),
    message: String(r.message),
    details: JSON.parse(String(r.details_json)) as unknown,
    pauses: r.pauses === 1,
    createdMs: Number(r.created_ms),
    resolvedMs: r.resolved_ms === null ? null : Number(r.resolved_ms),
    resolution: r.resolution === null ? null : String(r.resolution),
  };
}
