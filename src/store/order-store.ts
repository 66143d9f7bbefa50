/**
 * Orders, their transitions and fills. Every change goes through the core transition table first; a refused event
 * writes nothing. An order row and its transition record are written in one transaction. A change derived from a
 * chain transaction records that transaction and its block: when a reorganisation removes the block, the order is
 * derived again, through the same table, from the transitions that still stand.
 */
import {
  applyOrderEvent,
  TERMINAL_STATUSES,
  type OrderEvent,
  type OrderRecord,
  type TransitionResult,
} from '../core/order-state.ts';
import { onRollback, transaction, type Db } from './database.ts';
import { asWritten, LiveOrderIndex } from './live-orders.ts';
import { OrderReads } from './order-reads.ts';
import { toJson } from './json.ts';
import {
  decodeOrderEvent,
  fromRow,
  type ChangeSource,
  type FillRecord,
  type OrderMeta,
  type OrderRow,
  type StandingTransition,
  type StoredOrder,
} from './order-rows.ts';

export {
  decodeOrderEvent,
  type ChangeSource,
  type FillRecord,
  type OrderMeta,
  type StandingTransition,
  type StoredOrder,
} from './order-rows.ts';

const TERMINAL = `(${[...TERMINAL_STATUSES].map((s) => `'${s}'`).join(', ')})`;

export class OrderStore extends OrderReads {
  readonly #db: Db;
  readonly #now: () => number;
  /** Epoch microseconds of each transition (the audit record's UTC time). */
  readonly #micros: () => number;
  /** The live orders in memory (the writing process only: `cacheLive`); see live-orders.ts. */
  readonly #index: LiveOrderIndex | null;
  /** Writes and rollbacks so far (`changes`): what was derived from the orders at one count still holds. */
  #changes = 0;

  constructor(db: Db, now: () => number, cacheLive = false, micros: () => number = () => now() * 1000) {
    super(db);
    this.#db = db;
    this.#now = now;
    this.#micros = micros;
    this.#index = cacheLive ? new LiveOrderIndex(() => this.#liveFromTable({})) : null;
    onRollback(db, () => {
      this.#changes += 1;
      this.fillsRolledBack();
      this.#index?.clear();
    });
  }

  /** Records a new order in status `intended` (before anything is signed). */
  create(order: OrderRecord, meta: OrderMeta): StoredOrder {
    const now = this.#now();
    this.#db
      .prepare(
        `INSERT INTO orders (wallet, client_order_id, chain, pair_id, side, quantity, price, status, order_id, filled, fill_ids_json,
           tx_hash, cancel_tx_hash, rejection_code, rejection_reason, cancelled_by, unexplained, adopted, decision_id, lock_rate_bps, prefunded,
           options_json, level, created_ms, updated_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        meta.wallet,
        order.clientOrderId.toString(),
        meta.chain,
        order.pairId,
        order.side,
        order.quantity.toString(),
        order.price.toString(),
        order.status,
        order.orderId?.toString() ?? null,
        order.filled.toString(),
        JSON.stringify(order.fillIds),
        order.txHash,
        order.cancelTxHash,
        order.rejection?.code ?? null,
        order.rejection?.reason ?? null,
        order.cancelledBy,
        order.unexplained.toString(),
        meta.adopted ? 1 : 0,
        meta.decisionId ?? null,
        meta.lockRateBps ?? null,
        meta.prefunded === undefined || meta.prefunded === null ? null : meta.prefunded ? 1 : 0,
        meta.options === undefined || meta.options === null ? null : JSON.stringify(meta.options),
        meta.level ?? null,
        now,
        now,
      );
    const stored = this.#read(meta.wallet, order.clientOrderId) as StoredOrder;
    this.#changes += 1;
    this.#index?.written(stored);
    return stored;
  }

  get(wallet: string, clientOrderId: bigint): StoredOrder | undefined {
    return this.#index?.get(wallet, clientOrderId) ?? this.#read(wallet, clientOrderId);
  }

  #read(wallet: string, clientOrderId: bigint): StoredOrder | undefined {
    const row = this.#db
      .prepare('SELECT * FROM orders WHERE wallet = ? AND client_order_id = ?')
      .get(wallet, clientOrderId.toString());
    return row === undefined ? undefined : fromRow(row as unknown as OrderRow);
  }

  byVenueId(chain: 'evm' | 'wasm', pairId: string, orderId: bigint): StoredOrder | undefined {
    const live = this.#index?.byVenueId(chain, pairId, orderId);
    if (live !== undefined) return live;
    const row = this.#db
      .prepare('SELECT * FROM orders WHERE chain = ? AND pair_id = ? AND order_id = ?')
      .get(chain, pairId, orderId.toString());
    return row === undefined ? undefined : fromRow(row as unknown as OrderRow);
  }

  byTxHash(txHash: string): StoredOrder | undefined {
    const row = this.#db.prepare('SELECT * FROM orders WHERE tx_hash = ? OR cancel_tx_hash = ?').get(txHash, txHash);
    return row === undefined ? undefined : fromRow(row as unknown as OrderRow);
  }

  /** Orders that are or may be on the book, oldest first. */
  live(filter: { wallet?: string; pairId?: string } = {}): StoredOrder[] {
    return this.#index?.live(filter) ?? this.#liveFromTable(filter);
  }

  #liveFromTable(filter: { wallet?: string; pairId?: string }): StoredOrder[] {
    return this.#db
      .prepare(
        `SELECT * FROM orders WHERE status NOT IN ${TERMINAL}
           AND (? IS NULL OR wallet = ?) AND (? IS NULL OR pair_id = ?) ORDER BY created_ms, client_order_id`,
      )
      .all(filter.wallet ?? null, filter.wallet ?? null, filter.pairId ?? null, filter.pairId ?? null)
      .map((r) => fromRow(r as unknown as OrderRow));
  }

  /**
   * Applies an event through the core transition table and persists the result with its transition record
   * (and the chain transaction it came from, if any). A refused event changes nothing and is returned to the
   * caller to log and count.
   */
  apply(
    wallet: string,
    clientOrderId: bigint,
    event: OrderEvent,
    fill?: FillRecord,
    source: ChangeSource | null = null,
  ): TransitionResult {
    return transaction(this.#db, () => {
      const current = this.get(wallet, clientOrderId);
      if (current === undefined) return { ok: false, reason: `no order ${clientOrderId} of ${wallet}` } as const;
      if (
        fill !== undefined &&
        this.#db.prepare('SELECT 1 FROM fills WHERE fill_id = ?').get(fill.fillId) !== undefined
      ) {
        return { ok: false, reason: `duplicate fill ${fill.fillId}` } as const;
      }
      const result = applyOrderEvent(current, event);
      if (!result.ok) return result;
      const o = result.order;
      const now = this.#now();
      this.#write(current, o, now);
      this.#db
        .prepare(
          'INSERT INTO order_transitions (wallet, client_order_id, at_ms, at_us, from_status, to_status, event_json, source_tx, source_block) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          wallet,
          clientOrderId.toString(),
          now,
          this.#micros(),
          current.status,
          o.status,
          toJson(event),
          source?.txHash ?? null,
          source?.blockHash ?? null,
        );
      if (fill !== undefined) this.insertFill(fill, source?.blockHash ?? null);
      return result;
    });
  }

  /** Writes what an event or a derivation changed of `current`; the index keeps the order as written. */
  #write(current: StoredOrder, order: OrderRecord, now: number): void {
    this.#db
      .prepare(
        `UPDATE orders SET status = ?, order_id = ?, filled = ?, fill_ids_json = ?, tx_hash = ?, cancel_tx_hash = ?,
           rejection_code = ?, rejection_reason = ?, cancelled_by = ?, unexplained = ?, updated_ms = ?
         WHERE wallet = ? AND client_order_id = ?`,
      )
      .run(
        order.status,
        order.orderId?.toString() ?? null,
        order.filled.toString(),
        JSON.stringify(order.fillIds),
        order.txHash,
        order.cancelTxHash,
        order.rejection?.code ?? null,
        order.rejection?.reason ?? null,
        order.cancelledBy,
        order.unexplained.toString(),
        now,
        current.wallet,
        current.clientOrderId.toString(),
      );
    this.#changes += 1;
    this.#index?.written(asWritten(current, order, now));
  }

  get changes(): number {
    return this.#changes;
  }

  /** Orders with a standing change derived from a transaction in a given block (source index: not all the day's). */
  sourcedBy(wallet: string, txHash: string, blockHash: string): bigint[] {
    return this.#db
      .prepare(
        'SELECT DISTINCT client_order_id FROM order_transitions INDEXED BY order_transitions_source WHERE wallet = ? AND source_tx = ? AND source_block = ? AND withdrawn_ms IS NULL ORDER BY client_order_id',
      )
      .all(wallet, txHash, blockHash)
      .map((r) => BigInt((r as { client_order_id: string }).client_order_id));
  }

  /** Marks every change derived from a transaction in a given block as withdrawn (kept for the audit trail). */
  withdrawSource(wallet: string, txHash: string, blockHash: string): void {
    this.#db
      .prepare(
        'UPDATE order_transitions INDEXED BY order_transitions_source SET withdrawn_ms = ? WHERE wallet = ? AND source_tx = ? AND source_block = ? AND withdrawn_ms IS NULL',
      )
      .run(this.#now(), wallet, txHash, blockHash);
  }

  withdrawTransition(id: number): void {
    this.#db
      .prepare('UPDATE order_transitions SET withdrawn_ms = ? WHERE id = ? AND withdrawn_ms IS NULL')
      .run(this.#now(), id);
  }

  /** The transitions of an order that still stand, in the order they were applied. */
  standing(wallet: string, clientOrderId: bigint): StandingTransition[] {
    return this.#db
      .prepare(
        "SELECT id, event_json FROM order_transitions WHERE wallet = ? AND client_order_id = ? AND withdrawn_ms IS NULL AND kind = 'event' ORDER BY id",
      )
      .all(wallet, clientOrderId.toString())
      .map((r) => {
        const row = r as { id: number; event_json: string };
        return { id: Number(row.id), event: decodeOrderEvent(row.event_json) };
      });
  }

  /**
   * Sets an order to a record derived again from its standing transitions, with a `rollback` entry in its
   * history that says why (never replayed itself).
   */
  rederive(wallet: string, clientOrderId: bigint, record: OrderRecord, why: unknown): void {
    transaction(this.#db, () => {
      const current = this.get(wallet, clientOrderId);
      if (current === undefined) throw new Error(`no order ${clientOrderId} of ${wallet}`);
      const now = this.#now();
      this.#write(current, record, now);
      this.#db
        .prepare(
          "INSERT INTO order_transitions (wallet, client_order_id, at_ms, at_us, from_status, to_status, event_json, kind) VALUES (?, ?, ?, ?, ?, ?, ?, 'rollback')",
        )
        .run(wallet, clientOrderId.toString(), now, this.#micros(), current.status, record.status, toJson(why));
    });
  }
}
