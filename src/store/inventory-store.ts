/**
 * Inventory totals per wallet and token (native units): free plus locked in the wallet's resting orders. A
 * total starts from a baseline taken when the wallet was first reconciled, and then changes only by fills, in
 * the same transaction as the fill itself; anything else that moves a balance shows up as a mismatch.
 */
import type { Db } from './database.ts';

export interface InventoryRow {
  readonly chain: 'evm' | 'wasm';
  readonly wallet: string;
  /** Token contract address. */
  readonly token: string;
  readonly total: bigint;
  readonly baselineMs: number;
  readonly updatedMs: number;
}

export class InventoryStore {
  readonly #db: Db;
  readonly #now: () => number;

  constructor(db: Db, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  get(chain: 'evm' | 'wasm', wallet: string, token: string): InventoryRow | undefined {
    const r = this.#db
      .prepare('SELECT * FROM inventory WHERE chain = ? AND wallet = ? AND token = ?')
      .get(chain, wallet, token) as Record<string, string | number> | undefined;
    return r === undefined ? undefined : fromRow(r);
  }

  all(chain: 'evm' | 'wasm', wallet: string): InventoryRow[] {
    return this.#db
      .prepare('SELECT * FROM inventory WHERE chain = ? AND wallet = ? ORDER BY token')
      .all(chain, wallet)
      .map((r) => fromRow(r as Record<string, string | number>));
  }

  /** Sets the total from a reconciliation: the on-chain balance plus what the store says is locked. */
  setBaseline(chain: 'evm' | 'wasm', wallet: string, token: string, total: bigint): void {
    const now = this.#now();
    this.#db
      .prepare(
        `INSERT INTO inventory (chain, wallet, token, total, baseline_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (chain, wallet, token) DO UPDATE SET total = excluded.total, baseline_ms = excluded.baseline_ms, updated_ms = excluded.updated_ms`,
      )
      .run(chain, wallet, token, total.toString(), now, now);
  }

  /** Adds a fill's delta; a token without a baseline yet is left alone (its baseline will include the fill). */
  add(chain: 'evm' | 'wasm', wallet: string, token: string, delta: bigint): void {
    const row = this.get(chain, wallet, token);
    if (row === undefined || delta === 0n) return;
    this.#db
      .prepare('UPDATE inventory SET total = ?, updated_ms = ? WHERE chain = ? AND wallet = ? AND token = ?')
      .run((row.total + delta).toString(), this.#now(), chain, wallet, token);
  }
}

function fromRow(r: Record<string, string | number>): InventoryRow {
  return {
    chain: r.chain as 'evm' | 'wasm',
    wallet: String(r.wallet),
    token: String(r.token),
    total: BigInt(r.total as string),
    baselineMs: Number(r.baseline_ms),
    updatedMs: Number(r.updated_ms),
  };
}
