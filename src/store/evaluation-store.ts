/**
 * What the markouts and the PnL attribution read and write: our fills in the order they were recorded (from a
 * sequence number on, so a reader never reads the day again), the chain fees charged since a moment, and each
 * fill's value at the fill and at each horizon (`fill_marks`).
 */
import type { DatabaseSync } from 'node:sqlite';
import { fillFromRow, type FillRecord } from './order-rows.ts';
import { BoundedMemo } from '../core/bounded-memo.ts';

/** A fill with its place in the record and the ladder level of its order (null: unknown, or not a quote). */
export interface SequencedFill {
  readonly seq: number;
  readonly fill: FillRecord;
  readonly level: number | null;
}

export interface ChainCharge {
  readonly txHash: string;
  readonly chain: 'evm' | 'wasm';
  /** Native units. */
  readonly fee: bigint;
  readonly updatedMs: number;
}

export interface FillMark {
  readonly fillId: string;
  readonly pairId: string;
  /** 0: at the fill. */
  readonly horizonMs: number;
  /** Decimal text, quote per base. */
  readonly value: string;
  /** When the value was in force (the fill's moment plus the horizon, on the bot's clock). */
  readonly atMs: number;
}

type Row = Record<string, string | number>;

export class EvaluationStore {
  readonly #db: DatabaseSync;
  /** The order store's count of fill writes, in the process that alone writes the file (else null). */
  /** Writes of one pair's fills so far (see `OrderStore.fillWritesOf`); null: not known, read every time. */
  readonly #fillWrites: ((pairId: string) => number) | null;
  /** Writes of any pair's fills so far. */
  readonly #anyFillWrites: (() => number) | null;
  /** Reads that found no new fill, by pair, wallet and sequence number, with the count they were made at. */
  readonly #nothingAfter = new BoundedMemo<string, number>(10_000);
  #dropped: { readonly at: number; readonly value: number } | null = null;

  constructor(
    db: DatabaseSync,
    fillWrites: { readonly of: (pairId: string) => number; readonly any: () => number } | null = null,
  ) {
    this.#db = db;
    this.#fillWrites = fillWrites?.of ?? null;
    this.#anyFillWrites = fillWrites?.any ?? null;
  }

  /**
   * The wallet's fills of the pair recorded after `afterSeq`, in the order they were recorded: a range of the
   * table's row ids (the `+` keeps SQLite off the pair index, which would scan all of the pair's fills).
   */
  fillsAfter(pairId: string, wallet: string, afterSeq: number): SequencedFill[] {
    // Every round of every pair asks, and between two writes of the pair's fills the answer is the same.
    const writes = this.#fillWrites?.(pairId) ?? null;
    const key = `${pairId}|${wallet}|${afterSeq}`;
    if (writes !== null && this.#nothingAfter.get(key) === writes) return [];
    const fills = this.#db
      .prepare(
        `SELECT f.rowid AS seq, f.*, o.level AS level FROM fills f
           LEFT JOIN orders o ON o.wallet = f.wallet AND o.client_order_id = f.client_order_id
         WHERE f.rowid > ? AND +f.pair_id = ? AND +f.wallet = ? ORDER BY f.rowid`,
      )
      .all(afterSeq, pairId, wallet)
      .map((r) => {
        const x = r as Row & { level: number | null };
        return { seq: Number(x.seq), fill: fillFromRow(x), level: x.level === null ? null : Number(x.level) };
      });
    if (writes !== null && fills.length === 0) {
      this.#nothingAfter.set(key, writes);
    }
    return fills;
  }

  /**
   * How many fills reorganisations have withdrawn so far: when it changes, a reader of new fills starts over
   * (a withdrawn fill's row id can be given to the next fill).
   */
  droppedFills(): number {
    const writes = this.#anyFillWrites?.() ?? null;
    if (writes !== null && this.#dropped?.at === writes) return this.#dropped.value;
    const r = this.#db.prepare("SELECT value FROM meta WHERE key = 'fills_dropped'").get() as
      { value: string } | undefined;
    const value = r === undefined ? 0 : Number(r.value);
    if (writes !== null) this.#dropped = { at: writes, value };
    return value;
  }

  /** The sequence number of the wallet's last recorded fill (of the pair, when given; 0: none): a marker. */
  lastSeq(wallet: string, pairId?: string): number {
    const r = this.#db
      .prepare('SELECT MAX(rowid) AS n FROM fills WHERE wallet = ? AND (? IS NULL OR pair_id = ?)')
      .get(wallet, pairId ?? null, pairId ?? null) as { n: number | null };
    return Number(r.n ?? 0);
  }

  /**
   * Fees the chains charged for the wallet's transactions on the pair's orders, recorded at or after `sinceMs`
   * (a reader keeps the hashes of its last millisecond to skip them the next time).
   */
  chargedSince(pairId: string, wallet: string, sinceMs: number): ChainCharge[] {
    return this.#db
      .prepare(
        `SELECT t.tx_hash, t.chain, t.fee, t.updated_ms FROM transactions t
           JOIN orders o ON o.wallet = t.wallet AND o.client_order_id = t.client_order_id
         WHERE t.fee IS NOT NULL AND t.updated_ms >= ? AND t.wallet = ? AND o.pair_id = ?
         ORDER BY t.updated_ms, t.tx_hash`,
      )
      .all(sinceMs, wallet, pairId)
      .map((r) => {
        const x = r as Row;
        return {
          txHash: String(x.tx_hash),
          chain: x.chain as 'evm' | 'wasm',
          fee: BigInt(x.fee as string),
          updatedMs: Number(x.updated_ms),
        };
      });
  }

  addMark(m: FillMark): void {
    this.#db
      .prepare(
        'INSERT INTO fill_marks (fill_id, pair_id, horizon_ms, value, at_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      )
      .run(m.fillId, m.pairId, m.horizonMs, m.value, m.atMs);
  }

  /** Every mark of the pair's fills. */
  marks(pairId: string): FillMark[] {
    return this.#db
      .prepare('SELECT * FROM fill_marks WHERE pair_id = ? ORDER BY at_ms, fill_id, horizon_ms')
      .all(pairId)
      .map((r) => {
        const x = r as Row;
        return {
          fillId: String(x.fill_id),
          pairId: String(x.pair_id),
          horizonMs: Number(x.horizon_ms),
          value: String(x.value),
          atMs: Number(x.at_ms),
        };
      });
  }
}
