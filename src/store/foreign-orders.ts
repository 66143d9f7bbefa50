/**
 * Resting orders of our wallets that are not ours (no cross identifier of this bot): placed by hand, by another
 * program, or before the bot's tag was set. They are reported, never adopted, and remembered so that a report
 * names when each was first and last seen.
 */
import type { Side } from '../core/order-terms.ts';
import type { Db } from './database.ts';

export interface ForeignOrder {
  readonly chain: 'evm' | 'wasm';
  readonly wallet: string;
  readonly pairId: string;
  readonly orderId: bigint;
  readonly crossId: bigint | null;
  readonly side: Side | null;
  readonly quantity: bigint | null;
  readonly price: bigint | null;
  /** Where it was seen: `events` (OrderReceived on chain) or `rest` (open-order list). */
  readonly source: 'events' | 'rest';
}

export interface ForeignOrderRecord extends ForeignOrder {
  readonly firstSeenMs: number;
  readonly lastSeenMs: number;
  readonly goneMs: number | null;
}

const text = (v: bigint | null) => (v === null ? null : v.toString());
const big = (v: unknown) => (v === null ? null : BigInt(v as string));

export class ForeignOrders {
  readonly #db: Db;
  readonly #now: () => number;

  constructor(db: Db, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  /** Records a sighting; returns true the first time this order is seen. */
  seen(order: ForeignOrder): boolean {
    const now = this.#now();
    const known = this.get(order.chain, order.wallet, order.pairId, order.orderId);
    if (known !== undefined) {
      this.#db
        .prepare(
          `UPDATE foreign_orders SET last_seen_ms = ?, gone_ms = NULL, cross_id = COALESCE(?, cross_id), side = COALESCE(?, side),
             quantity = COALESCE(?, quantity), price = COALESCE(?, price) WHERE chain = ? AND wallet = ? AND pair_id = ? AND order_id = ?`,
        )
        .run(
          now,
          text(order.crossId),
          order.side,
          text(order.quantity),
          text(order.price),
          order.chain,
          order.wallet,
          order.pairId,
          order.orderId.toString(),
        );
      return false;
    }
    this.#db
      .prepare(
        `INSERT INTO foreign_orders (chain, wallet, pair_id, order_id, cross_id, side, quantity, price, source, first_seen_ms, last_seen_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        order.chain,
        order.wallet,
        order.pairId,
        order.orderId.toString(),
        text(order.crossId),
        order.side,
        text(order.quantity),
        text(order.price),
        order.source,
        now,
        now,
      );
    return true;
  }

  gone(chain: 'evm' | 'wasm', wallet: string, pairId: string, orderId: bigint): void {
    this.#db
      .prepare(
        'UPDATE foreign_orders SET gone_ms = ? WHERE chain = ? AND wallet = ? AND pair_id = ? AND order_id = ? AND gone_ms IS NULL',
      )
      .run(this.#now(), chain, wallet, pairId, orderId.toString());
  }

  get(chain: 'evm' | 'wasm', wallet: string, pairId: string, orderId: bigint): ForeignOrderRecord | undefined {
    const r = this.#db
      .prepare('SELECT * FROM foreign_orders WHERE chain = ? AND wallet = ? AND pair_id = ? AND order_id = ?')
      .get(chain, wallet, pairId, orderId.toString()) as Record<string, unknown> | undefined;
    return r === undefined ? undefined : fromRow(r);
  }

  /** Foreign orders not known to be gone. */
  open(chain: 'evm' | 'wasm', wallet: string): ForeignOrderRecord[] {
    return this.#db
      .prepare(
        'SELECT * FROM foreign_orders WHERE chain = ? AND wallet = ? AND gone_ms IS NULL ORDER BY pair_id, CAST(order_id AS INTEGER)',
      )
      .all(chain, wallet)
      .map((r) => fromRow(r as Record<string, unknown>));
  }
}

function fromRow(r: Record<string, unknown>): ForeignOrderRecord {
  return {
    chain: r.chain as 'evm' | 'wasm',
    wallet: String(r.wallet),
    pairId: String(r.pair_id),
    orderId: BigInt(r.order_id as string),
    crossId: big(r.cross_id),
    side: (r.side ?? null) as Side | null,
    quantity: big(r.quantity),
    price: big(r.price),
    source: r.source as 'events' | 'rest',
    firstSeenMs: Number(r.first_seen_ms),
    lastSeenMs: Number(r.last_seen_ms),
    goneMs: r.gone_ms === null ? null : Number(r.gone_ms),
  };
}
