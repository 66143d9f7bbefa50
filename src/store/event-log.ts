/**
 * Chain events already applied, by their unique key. The order outcome path and the event follower both see
 * the events of our own transactions, and a restart replays the batch after the stored cursor: an event whose
 * key is here has had its effect and is skipped, so replaying never applies anything twice.
 */
import type { Db } from './database.ts';

export interface EventPosition {
  readonly key: string;
  readonly txHash: string;
  readonly height: bigint;
}

export class EventLog {
  readonly #db: Db;
  readonly #now: () => number;

  constructor(db: Db, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  has(chain: 'evm' | 'wasm', wallet: string, key: string): boolean {
    return this.#db.prepare('SELECT 1 FROM processed_events WHERE chain = ? AND wallet = ? AND event_key = ?').get(chain, wallet, key) !== undefined;
  }

  mark(chain: 'evm' | 'wasm', wallet: string, event: EventPosition): void {
    this.#db
      .prepare('INSERT INTO processed_events (chain, wallet, event_key, tx_hash, height, at_ms) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING')
      .run(chain, wallet, event.key, event.txHash, event.height.toString(), this.#now());
  }

  count(chain: 'evm' | 'wasm', wallet: string): number {
    const r = this.#db.prepare('SELECT COUNT(*) AS n FROM processed_events WHERE chain = ? AND wallet = ?').get(chain, wallet) as { n: number };
    return Number(r.n);
  }
}
