/**
 * What the order store keeps, as the rest of the program reads it, and how a row of the state file becomes
 * that: orders with their meta data, fills, the transaction and block a change came from.
 */
import type { OrderEvent, OrderRecord, OrderStatus } from '../core/order-state.ts';
import type { CancellationType, OrderOptions, Side } from '../core/order-terms.ts';
import type { ErrorCode } from '../core/errors.ts';

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
  /** The ladder level the quote was placed for (0 nearest the centre); null for an order that is not a quote. */
  readonly level?: number | null;
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
  return JSON.parse(json, (k, v: unknown) =>
    BIGINT_FIELDS.has(k) && typeof v === 'string' ? BigInt(v) : v,
  ) as OrderEvent;
}

export interface OrderRow {
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

export function fromRow(r: OrderRow): StoredOrder {
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
    rejection:
      r.rejection_reason === null ? null : { code: r.rejection_code as ErrorCode | null, reason: r.rejection_reason },
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

export function fillFromRow(x: Record<string, string | number>): FillRecord {
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

/** One entry of an order's history: a transition or a rollback; a withdrawn transition says when. */
export interface OrderHistoryEntry {
  readonly from: OrderStatus;
  readonly to: OrderStatus;
  readonly atMs: number;
  readonly event: unknown;
  readonly kind: 'event' | 'rollback';
  readonly withdrawnMs: number | null;
}

export function historyFromRow(r: Record<string, unknown>): OrderHistoryEntry {
  return {
    from: r.from_status as OrderStatus,
    to: r.to_status as OrderStatus,
    atMs: Number(r.at_ms),
    event: JSON.parse(r.event_json as string) as unknown,
    kind: r.kind as 'event' | 'rollback',
    withdrawnMs: r.withdrawn_ms === null ? null : Number(r.withdrawn_ms),
  };
}
