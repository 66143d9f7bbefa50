/**
 * Chain events already applied, by their unique key. The order outcome path and the event follower both see
 * the events of our own transactions, and a restart replays the batch after the stored cursor: an event whose
 * key is here has had its effect and is skipped, so replaying never applies anything twice. A chain A event's
 * block is kept with it: when a reorganisation removes the block, its keys are unmarked with the changes they
 * caused, so that the transaction, mined again elsewhere, is applied again.
 */
import type { Db } from './database.ts';

export interface EventPosition {
  readonly key: string;
  readonly txHash: string;
  readonly height: bigint;
  /** Chain A block hash; null where blocks are final (chain B). */
  readonly blockHash?: string | null;
}

export class EventLog {
  readonly #db: Db;
  readonly #now: () => number;

  constructor(db: Db, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  has(chain: 'evm' | 'wasm', wallet: string, key: string): boolean {
    return (
      this.#db
        .prepare('SELECT 1 FROM processed_events WHERE chain = ? AND wallet = ? AND event_key = ?')
        .get(chain, wallet, key) !== undefined
    );
  }

  mark(chain: 'evm' | 'wasm', wallet: string, event: EventPosition): void {
    this.#db
      .prepare(
        'INSERT INTO processed_events (chain, wallet, event_key, tx_hash, height, at_ms, block_hash) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      )
      .run(chain, wallet, event.key, event.txHash, event.height.toString(), this.#now(), event.blockHash ?? null);
  }

  /** How many keys were applied from a transaction in a given block. */
  countFrom(chain: 'evm' | 'wasm', wallet: string, txHash: string, blockHash: string): number {
    const r = this.#db
      .prepare(
        'SELECT COUNT(*) AS n FROM processed_events WHERE chain = ? AND wallet = ? AND tx_hash = ? AND block_hash = ?',
      )
      .get(chain, wallet, txHash, blockHash) as { n: number };
    return Number(r.n);
  }

  /** The transactions and blocks that the given keys were applied from. */
  sourcesOf(
    chain: 'evm' | 'wasm',
    wallet: string,
    keys: readonly string[],
  ): Array<{ txHash: string; blockHash: string }> {
    const out = new Map<string, { txHash: string; blockHash: string }>();
    const q = this.#db.prepare(
      'SELECT tx_hash, block_hash FROM processed_events WHERE chain = ? AND wallet = ? AND event_key = ? AND block_hash IS NOT NULL',
    );
    for (const k of keys) {
      const r = q.get(chain, wallet, k) as { tx_hash: string; block_hash: string } | undefined;
      if (r !== undefined) out.set(`${r.tx_hash}@${r.block_hash}`, { txHash: r.tx_hash, blockHash: r.block_hash });
    }
    return [...out.values()];
  }

  /** Forgets the keys applied from a transaction in a given block (the block was reorganised away). */
  unmarkFrom(chain: 'evm' | 'wasm', wallet: string, txHash: string, blockHash: string): number {
    const r = this.#db
      .prepare('DELETE FROM processed_events WHERE chain = ? AND wallet = ? AND tx_hash = ? AND block_hash = ?')
      .run(chain, wallet, txHash, blockHash);
    return Number(r.changes);
  }

  /** The position of the last key applied (0 when none): a marker to compare with later. */
  lastPosition(chain: 'evm' | 'wasm', wallet: string): number {
    const r = this.#db
      .prepare('SELECT MAX(rowid) AS n FROM processed_events WHERE chain = ? AND wallet = ?')
      .get(chain, wallet) as { n: number | null };
    return Number(r.n ?? 0);
  }

  /** How many keys applied after position `after` (up to `upTo`, when given) lie above `height`. */
  countAbove(chain: 'evm' | 'wasm', wallet: string, height: bigint, after: number, upTo?: number): number {
    const r =
      upTo === undefined
        ? this.#db
            .prepare(
              'SELECT COUNT(*) AS n FROM processed_events WHERE chain = ? AND wallet = ? AND rowid > ? AND CAST(height AS INTEGER) > ?',
            )
            .get(chain, wallet, after, height)
        : this.#db
            .prepare(
              'SELECT COUNT(*) AS n FROM processed_events WHERE chain = ? AND wallet = ? AND rowid > ? AND rowid <= ? AND CAST(height AS INTEGER) > ?',
            )
            .get(chain, wallet, after, upTo, height);
    return Number((r as { n: number }).n);
  }

  /** How many keys applied after position `after` lie at or below `height`. */
  countAtOrBelow(chain: 'evm' | 'wasm', wallet: string, height: bigint, after: number): number {
    const r = this.#db
      .prepare(
        'SELECT COUNT(*) AS n FROM processed_events WHERE chain = ? AND wallet = ? AND rowid > ? AND CAST(height AS INTEGER) <= ?',
      )
      .get(chain, wallet, after, height) as { n: number };
    return Number(r.n);
  }

  /** The last position and the highest height among the keys applied after position `after`; null when none. */
  highestSince(
    chain: 'evm' | 'wasm',
    wallet: string,
    after: number,
  ): { readonly position: number; readonly height: bigint } | null {
    const r = this.#db
      .prepare(
        // By position (NOT INDEXED): the key's index would read every key the wallet applied today.
        'SELECT MAX(rowid) AS rowid, MAX(CAST(height AS INTEGER)) AS height FROM processed_events NOT INDEXED WHERE chain = ? AND wallet = ? AND rowid > ?',
      )
      .get(chain, wallet, after) as { rowid: number | null; height: number | bigint | null };
    return r.rowid === null || r.height === null ? null : { position: Number(r.rowid), height: BigInt(r.height) };
  }

  count(chain: 'evm' | 'wasm', wallet: string): number {
    const r = this.#db
      .prepare('SELECT COUNT(*) AS n FROM processed_events WHERE chain = ? AND wallet = ?')
      .get(chain, wallet) as { n: number };
    return Number(r.n);
  }
}
