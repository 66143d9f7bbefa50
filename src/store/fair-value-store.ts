/** Samples of each pair's fair value for the trading-day report (decimal TEXT, guards as a comma list). */
import type { DatabaseSync } from 'node:sqlite';

export interface FairValueSample {
  readonly pairId: string;
  readonly atMs: number;
  /** Null when no source was usable or the sources disagreed. */
  readonly fair: string | null;
  readonly source: string | null;
  readonly othersMid: string | null;
  readonly action: string;
  readonly guards: readonly string[];
}

type Row = Record<string, string | number | null>;

const text = (v: string | number | null | undefined) => (v == null ? null : String(v));

export class FairValueStore {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  add(s: FairValueSample): void {
    this.#db
      .prepare(
        `INSERT INTO fair_value_samples (pair_id, at_ms, fair, source, others_mid, action, guards)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      )
      .run(s.pairId, s.atMs, s.fair, s.source, s.othersMid, s.action, s.guards.join(','));
  }

  /** The pair's samples in `[from, to)`, oldest first. */
  samples(pairId: string, from: number, to: number): FairValueSample[] {
    return this.#db
      .prepare('SELECT * FROM fair_value_samples WHERE pair_id = ? AND at_ms >= ? AND at_ms < ? ORDER BY at_ms')
      .all(pairId, from, to)
      .map((r) => {
        const x = r as Row;
        return {
          pairId: String(x.pair_id),
          atMs: Number(x.at_ms),
          fair: text(x.fair),
          source: text(x.source),
          othersMid: text(x.others_mid),
          action: String(x.action),
          guards: String(x.guards) === '' ? [] : String(x.guards).split(','),
        };
      });
  }
}
