/**
 * Orders, their transitions and fills. Every change goes through the core transition table first; a refused
 * event writes nothing. An order row and its transition record are written in one transaction. A change
 * derived from a chain transaction records that transaction and its block, so that it can be withdrawn when
 * a reorganisation removes the block: the order is then derived again, through the same table, from the
 * transitions that still stand.
 */
import { applyOrderEvent, TERMINAL_STATUSES, type OrderEvent, type OrderRecord, type OrderStatus, type TransitionResult } from '../core/order-state.ts';
import type { CancellationType, OrderOptions, Side } from '../core/order-terms.ts';
import type { ErrorCode } from '../core/errors.ts';
import { transaction, type Db } from './database.ts';
import { toJson } from './json.ts';

export interface StoredOrder extends OrderRecord {
  readonly wallet: string;
  readonly chain: 'evm' | 'wasm';
  readonly decisionId: number | null;
  /** Found on the venue with our client order id but missing from the store, then taken over. */
  readonly adopted: boolean;
  /** Maker rate fixed at placement: a pre-funded resting buy locks `lockFor(limit, remaining, rate)`. */
  readonly lockRateBps: number | null;
  /** Whether the book locked tokens at placement; null when not known (an order adopted from the venue). */
  readonly prefunded: boolean | null;
  readonly options: OrderOptions | null;
  readonly createdMs: number;
  readonly updatedMs: number;
}

export interface OrderMeta {
  readonly wallet: string;
  readonly chain: 'evm' | 'wasm';
  readonly decisionId?: number | null;
  readonly adopted?: boolean;
  readonly lockRateBps?: number | null;
  readonly prefunded?: boolean | null;
  readonly options?: OrderOptions | null;
}

export interface FillRecord {
  readonly fillId: string;
  readonly wallet: string;
  readonly clientOrderId: bigint;
  readonly pairId: string;
  readonly side: Side;
  readonly role: 'maker' | 'taker';
  readonly quantity: bigint;
  readonly price: bigint;
  /** Native units the wallet gained (negative: paid). */
  readonly baseDelta: bigint;
  readonly quoteDelta: bigint;
  /** Commission paid, native quote units. */
  readonly fee: bigint;
  readonly txHash: string;
  readonly height: bigint;
  readonly atMs: number;
}

/** The chain transaction, and the block that included it, an order change was derived from. */
export interface ChangeSource {
  readonly txHash: string;
  readonly blockHash: string;
  readonly height: bigint;
}

/** A transition that still stands, as recorded, for deriving the order again. */
export interface StandingTransition {
  readonly id: number;
  readonly event: OrderEvent;
}

const BIGINT_FIELDS = new Set(['orderId', 'quantity', 'price']);

/** An order event read back from its JSON record (bigints are stored as decimal strings). */
export function decodeOrderEvent(json: string): OrderEvent {
  return JSON.parse(json, (k, v: unknown) => (BIGINT_FIELDS.has(k) && typeof v === 'string' ? BigInt(v) : v)) as OrderEvent;
}

interface OrderRow {
  wallet: string;
  client_order_id: string;
  chain: 'evm' | 'wasm';
  pair_id: string;
  side: Side;
  quantity: string;
  price: string;
  status: OrderStatus;
  order_id: string | null;
  filled: string;
  fill_ids_json: string;
  tx_hash: string | null;
  cancel_tx_hash: string | null;
  rejection_code: string | null;
  rejection_reason: string | null;
  cancelled_by: CancellationType | null;
  unexplained: string;
  adopted: number;
  decision_id: number | null;
  lock_rate_bps: number | null;
  prefunded: number | null;
  options_json: string | null;
  created_ms: number;
  updated_ms: number;
}

function fromRow(r: OrderRow): StoredOrder {
  return {
    wallet: r.wallet,
    chain: r.chain,
    clientOrderId: BigInt(r.client_order_id),
    pairId: r.pair_id,
    side: r.side,
    quantity: BigInt(r.quantity),
    price: BigInt(r.price),
    status: r.status,
    orderId: r.order_id === null ? null : BigInt(r.order_id),
    filled: BigInt(r.filled),
    fillIds: JSON.parse(r.fill_ids_json) as string[],
    txHash: r.tx_hash,
    cancelTxHash: r.cancel_tx_hash,
    rejection: r.rejection_reason === null ? null : { code: r.rejection_code as ErrorCode | null, reason: r.rejection_reason },
    cancelledBy: r.cancelled_by,
    unexplained: BigInt(r.unexplained),
    adopted: r.adopted === 1,
    decisionId: r.decision_id,
    lockRateBps: r.lock_rate_bps,
    prefunded: r.prefunded === null ? null : r.prefunded === 1,
    options: r.options_json === null ? null : (JSON.parse(r.options_json) as OrderOptions),
    createdMs: r.created_ms,
    updatedMs: r.updated_ms,
  };
}

const TERMINAL = `(${[...TERMINAL_STATUSES].map((s) => `'${s}'`).join(', ')})`;

export class OrderStore {
  readonly #db: Db;
  readonly #now: () => number;

  constructor(db: Db, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  /** Records a new order in status `intended` (before anything is signed). */
  create(order: OrderRecord, meta: OrderMeta): StoredOrder {
    const now = this.#now();
    this.#db
      .prepare(
        `INSERT INTO orders (wallet, client_order_id, chain, pair_id, side, quantity, price, status, order_id, filled, fill_ids_json,
           tx_hash, cancel_tx_hash, rejection_code, rejection_reason, cancelled_by, unexplained, adopted, decision_id, lock_rate_bps, prefunded,
           options_json, created_ms, updated_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        now,
        now,
      );
    return this.get(meta.wallet, order.clientOrderId) as StoredOrder;
  }

  get(wallet: string, clientOrderId: bigint): StoredOrder | undefined {
    const row = this.#db.prepare('SELECT * FROM orders WHERE wallet = ? AND client_order_id = ?').get(wallet, clientOrderId.toString());
    return row === undefined ? undefined : fromRow(row as unknown as OrderRow);
  }

  byVenueId(chain: 'evm' | 'wasm', pairId: string, orderId: bigint): StoredOrder | undefined {
    const row = this.#db.prepare('SELECT * FROM orders WHERE chain = ? AND pair_id = ? AND order_id = ?').get(chain, pairId, orderId.toString());
    return row === undefined ? undefined : fromRow(row as unknown as OrderRow);
  }

  byTxHash(txHash: string): StoredOrder | undefined {
    const row = this.#db.prepare('SELECT * FROM orders WHERE tx_hash = ? OR cancel_tx_hash = ?').get(txHash, txHash);
    return row === undefined ? undefined : fromRow(row as unknown as OrderRow);
  }

  /** Orders that are or may be on the book, oldest first. */
  live(filter: { wallet?: string; pairId?: string } = {}): StoredOrder[] {
    const rows = this.#db
      .prepare(
        `SELECT * FROM orders WHERE status NOT IN ${TERMINAL}
           AND (? IS NULL OR wallet = ?) AND (? IS NULL OR pair_id = ?) ORDER BY created_ms, client_order_id`,
      )
      .all(filter.wallet ?? null, filter.wallet ?? null, filter.pairId ?? null, filter.pairId ?? null);
    return rows.map((r) => fromRow(r as unknown as OrderRow));
  }

  /**
   * Applies an event through the core transition table and persists the result with its transition record
   * (and the chain transaction it came from, if any). A refused event changes nothing and is returned to the
   * caller to log and count.
   */
  apply(wallet: string, clientOrderId: bigint, event: OrderEvent, fill?: FillRecord, source: ChangeSource | null = null): TransitionResult {
    return transaction(this.#db, () => {
      const current = this.get(wallet, clientOrderId);
      if (current === undefined) return { ok: false, reason: `no order ${clientOrderId} of ${wallet}` } as const;
      if (fill !== undefined && this.#db.prepare('SELECT 1 FROM fills WHERE fill_id = ?').get(fill.fillId) !== undefined) {
        return { ok: false, reason: `duplicate fill ${fill.fillId}` } as const;
      }
      const result = applyOrderEvent(current, event);
      if (!result.ok) return result;
      const o = result.order;
      const now = this.#now();
      this.#write(wallet, clientOrderId, o, now);
      this.#db
        .prepare(
          'INSERT INTO order_transitions (wallet, client_order_id, at_ms, from_status, to_status, event_json, source_tx, source_block) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(wallet, clientOrderId.toString(), now, current.status, o.status, toJson(event), source?.txHash ?? null, source?.blockHash ?? null);
      if (fill !== undefined) {
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
            source?.blockHash ?? null,
          );
      }
      return result;
    });
  }

  #write(wallet: string, clientOrderId: bigint, o: OrderRecord, now: number): void {
    this.#db
      .prepare(
        `UPDATE orders SET status = ?, order_id = ?, filled = ?, fill_ids_json = ?, tx_hash = ?, cancel_tx_hash = ?,
           rejection_code = ?, rejection_reason = ?, cancelled_by = ?, unexplained = ?, updated_ms = ?
         WHERE wallet = ? AND client_order_id = ?`,
      )
      .run(
        o.status,
        o.orderId?.toString() ?? null,
        o.filled.toString(),
        JSON.stringify(o.fillIds),
        o.txHash,
        o.cancelTxHash,
        o.rejection?.code ?? null,
        o.rejection?.reason ?? null,
        o.cancelledBy,
        o.unexplained.toString(),
        now,
        wallet,
        clientOrderId.toString(),
      );
  }

  /** Orders with a standing change derived from a transaction in a given block. */
  sourcedBy(wallet: string, txHash: string, blockHash: string): bigint[] {
    return this.#db
      .prepare('SELECT DISTINCT client_order_id FROM order_transitions WHERE wallet = ? AND source_tx = ? AND source_block = ? AND withdrawn_ms IS NULL ORDER BY client_order_id')
      .all(wallet, txHash, blockHash)
      .map((r) => BigInt((r as { client_order_id: string }).client_order_id));
  }

  /** Marks every change derived from a transaction in a given block as withdrawn (kept for the audit trail). */
  withdrawSource(wallet: string, txHash: string, blockHash: string): void {
    this.#db
      .prepare('UPDATE order_transitions SET withdrawn_ms = ? WHERE wallet = ? AND source_tx = ? AND source_block = ? AND withdrawn_ms IS NULL')
      .run(this.#now(), wallet, txHash, blockHash);
  }

  withdrawTransition(id: number): void {
    this.#db.prepare('UPDATE order_transitions SET withdrawn_ms = ? WHERE id = ? AND withdrawn_ms IS NULL').run(this.#now(), id);
  }

  /** The transitions of an order that still stand, in the order they were applied. */
  standing(wallet: string, clientOrderId: bigint): StandingTransition[] {
    return this.#db
      .prepare("SELECT id, event_json FROM order_transitions WHERE wallet = ? AND client_order_id = ? AND withdrawn_ms IS NULL AND kind = 'event' ORDER BY id")
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
      this.#write(wallet, clientOrderId, record, now);
      this.#db
        .prepare("INSERT INTO order_transitions (wallet, client_order_id, at_ms, from_status, to_status, event_json, kind) VALUES (?, ?, ?, ?, ?, ?, 'rollback')")
        .run(wallet, clientOrderId.toString(), now, current.status, record.status, toJson(why));
    });
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

  deleteFill(fillId: string): void {
    this.#db.prepare('DELETE FROM fills WHERE fill_id = ?').run(fillId);
  }

  /** The order's history: every transition and every rollback, in order; a withdrawn transition says when. */
  transitions(wallet: string, clientOrderId: bigint): Array<{ from: OrderStatus; to: OrderStatus; atMs: number; event: unknown; kind: 'event' | 'rollback'; withdrawnMs: number | null }> {
    return this.#db
      .prepare('SELECT from_status, to_status, at_ms, event_json, kind, withdrawn_ms FROM order_transitions WHERE wallet = ? AND client_order_id = ? ORDER BY id')
      .all(wallet, clientOrderId.toString())
      .map((r) => {
        const row = r as { from_status: OrderStatus; to_status: OrderStatus; at_ms: number; event_json: string; kind: 'event' | 'rollback'; withdrawn_ms: number | null };
        return { from: row.from_status, to: row.to_status, atMs: row.at_ms, event: JSON.parse(row.event_json) as unknown, kind: row.kind, withdrawnMs: row.withdrawn_ms };
      });
  }

  /** The position of the last fill recorded for the wallet (0 when none): a marker to compare with later. */
  lastFillPosition(wallet: string): number {
    const r = this.#db.prepare('SELECT MAX(rowid) AS n FROM fills WHERE wallet = ?').get(wallet) as { n: number | null };
    return Number(r.n ?? 0);
  }

  /** Client order ids of the wallet's orders that reconciliation adopted from the chain. */
  adoptedIds(wallet: string, chain: 'evm' | 'wasm'): bigint[] {
    return this.#db
      .prepare('SELECT client_order_id FROM orders WHERE wallet = ? AND chain = ? AND adopted = 1')
      .all(wallet, chain)
      .map((r) => BigInt((r as { client_order_id: string }).client_order_id));
  }

  fills(filter: { pairId?: string; wallet?: string } = {}): FillRecord[] {
    return this.#db
      .prepare('SELECT * FROM fills WHERE (? IS NULL OR pair_id = ?) AND (? IS NULL OR wallet = ?) ORDER BY at_ms, fill_id')
      .all(filter.pairId ?? null, filter.pairId ?? null, filter.wallet ?? null, filter.wallet ?? null)
      .map((r) => fillFromRow(r as Record<string, string | number>));
  }
}

function fillFromRow(x: Record<string, string | number>): FillRecord {
  return {
    fillId: String(x.fill_id),
    wallet: String(x.wallet),
    clientOrderId: BigInt(x.client_order_id as string),
    pairId: String(x.pair_id),
    side: x.side as Side,
    role: x.role as 'maker' | 'taker',
    quantity: BigInt(x.quantity as string),
    price: BigInt(x.price as string),
    baseDelta: BigInt(x.base_delta as string),
    quoteDelta: BigInt(x.quote_delta as string),
    fee: BigInt(x.fee as string),
    txHash: String(x.tx_hash),
    height: BigInt(x.height as string),
    atMs: Number(x.at_ms),
  };
}
