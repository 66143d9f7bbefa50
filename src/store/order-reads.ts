/**
 * Reads of the orders' records that need no cache: each order's history, the adopted ones, and the fills (by
 * transaction, by order, by pair or wallet; deleted when a reorganisation withdraws their block). `OrderStore`
 * writes them all, with the order they belong to.
 */
import type { Db } from './database.ts';
import { fillFromRow, historyFromRow, type FillRecord, type OrderHistoryEntry } from './order-rows.ts';

export class OrderReads {
  readonly #db: Db;
  /** Fills deleted and rollbacks (either may concern any pair), and fills recorded by pair, through this object. */
  #fillsUndone = 0;
  readonly #fillsRecorded = new Map<string, number>();
  #fillsRecordedAll = 0;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Fills recorded from a transaction in a given block. */
  fillsFrom(wallet: string, txHash: string, blockHash: string): FillRecord[] {
    return this.#db
      .prepare('SELECT * FROM fills WHERE wallet = ? AND tx_hash = ? AND block_hash = ? ORDER BY fill_id')
      .all(wallet, txHash, blockHash)
      .map((r) => fillFromRow(r as Record<string, string | number>));
  }

  fill(fillId: string): FillRecord | undefined {
    const r = this.#db.prepare('SELECT * FROM fills WHERE fill_id = ?').get(fillId);
    return r === undefined ? undefined : fillFromRow(r as Record<string, string | number>);
  }

  /** Fills recorded or deleted, and rollbacks, so far: what was read of the fills at one count still holds. */
  get fillWrites(): number {
    return this.#fillsUndone + this.#fillsRecordedAll;
  }

  /** The same count for one pair's fills: what was read of them at one count still holds. */
  fillWritesOf(pairId: string): number {
    return this.#fillsUndone + (this.#fillsRecorded.get(pairId) ?? 0);
  }

  /** A rollback of the database: any fill read before may be gone. */
  fillsRolledBack(): void {
    this.#fillsUndone += 1;
  }

  /** Records a fill (the order store does, with the transition that made it). */
  insertFill(fill: FillRecord, blockHash: string | null): void {
    this.#fillsRecordedAll += 1;
    this.#fillsRecorded.set(fill.pairId, (this.#fillsRecorded.get(fill.pairId) ?? 0) + 1);
    this.#db
      .prepare(
        `INSERT INTO fills (fill_id, wallet, client_order_id, pair_id, side, role, quantity, price, base_delta, quote_delta, fee, tx_hash, height, at_ms, block_hash)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        fill.fillId,
        fill.wallet,
        fill.clientOrderId.toString(),
        fill.pairId,
        fill.side,
        fill.role,
        fill.quantity.toString(),
        fill.price.toString(),
        fill.baseDelta.toString(),
        fill.quoteDelta.toString(),
        fill.fee.toString(),
        fill.txHash,
        fill.height.toString(),
        fill.atMs,
        blockHash,
      );
  }

  /** Deletes a fill a reorganisation withdrew, and counts it (`fills_dropped`: readers of new fills start over). */
  deleteFill(fillId: string): void {
    this.#fillsUndone += 1;
    this.#db.prepare('DELETE FROM fills WHERE fill_id = ?').run(fillId);
    this.#db
      .prepare(
        "INSERT INTO meta (key, value) VALUES ('fills_dropped', '1') ON CONFLICT (key) DO UPDATE SET value = value + 1",
      )
      .run();
  }

  /** The fills of one order, in the order they happened. */
  fillsOf(wallet: string, clientOrderId: bigint): FillRecord[] {
    return this.#db
      .prepare('SELECT * FROM fills WHERE wallet = ? AND client_order_id = ? ORDER BY at_ms, fill_id')
      .all(wallet, clientOrderId.toString())
      .map((r) => fillFromRow(r as Record<string, string | number>));
  }

  fills(filter: { pairId?: string; wallet?: string } = {}): FillRecord[] {
    return this.#db
      .prepare(
        'SELECT * FROM fills WHERE (? IS NULL OR pair_id = ?) AND (? IS NULL OR wallet = ?) ORDER BY at_ms, fill_id',
      )
      .all(filter.pairId ?? null, filter.pairId ?? null, filter.wallet ?? null, filter.wallet ?? null)
      .map((r) => fillFromRow(r as Record<string, string | number>));
  }

  /** The order's history: every transition and every rollback, in order; a withdrawn transition says when. */
  transitions(wallet: string, clientOrderId: bigint): OrderHistoryEntry[] {
    return this.#db
      .prepare(
        'SELECT from_status, to_status, at_ms, event_json, kind, withdrawn_ms FROM order_transitions WHERE wallet = ? AND client_order_id = ? ORDER BY id',
      )
      .all(wallet, clientOrderId.toString())
      .map((r) => historyFromRow(r as Record<string, unknown>));
  }

  /** Client order ids of the wallet's orders that reconciliation adopted from the chain. */
  adoptedIds(wallet: string, chain: 'evm' | 'wasm'): bigint[] {
    return this.#db
      .prepare('SELECT client_order_id FROM orders WHERE wallet = ? AND chain = ? AND adopted = 1')
      .all(wallet, chain)
      .map((r) => BigInt((r as { client_order_id: string }).client_order_id));
  }
}
