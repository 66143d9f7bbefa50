/**
 * The rows of the obligation tables as the store hands them out (quotes, declared windows, breaches), and how
 * a database row becomes one.
 */
import type { MarketObservation, MarketState } from '../core/obligations.ts';
import type { Side } from '../core/order-terms.ts';

export type Chain = 'evm' | 'wasm';

export interface QuoteRest {
  readonly chain: Chain;
  readonly wallet: string;
  readonly pairId: string;
  readonly orderId: bigint;
  readonly side: Side;
  readonly price: bigint;
  /** Quantity that rested (after any fill at placement). */
  readonly quantity: bigint;
  readonly atMs: number;
  readonly height: bigint;
}

export interface QuoteEnd {
  readonly chain: Chain;
  readonly wallet: string;
  readonly pairId: string;
  readonly orderId: bigint;
  readonly atMs: number;
  readonly height: bigint | null;
  /** `cancel`: its cancellation's inclusion; `filled`: its last fill; `store`: the store's record (no chain event seen). */
  readonly kind: 'cancel' | 'filled' | 'store';
}

export interface OpenQuote {
  readonly chain: Chain;
  readonly wallet: string;
  readonly pairId: string;
  readonly orderId: bigint;
  readonly side: Side;
  readonly price: bigint;
  readonly quantity: bigint;
  readonly restMs: number;
}

export type WindowKind = 'exception' | 'stressed';

export interface ObligationWindow {
  readonly id: number;
  readonly kind: WindowKind;
  /** Null: every pair. */
  readonly pairId: string | null;
  readonly fromMs: number;
  /** Null: until it is ended. */
  readonly toMs: number | null;
  readonly reason: string;
  /** Who declared it: `command`, `endpoint`, `halt` (a stressed window after a volatility halt). */
  readonly source: string;
  readonly declaredMs: number;
}

export interface Breach {
  readonly id: number;
  readonly pairId: string;
  readonly limit: string;
  readonly detail: string;
  readonly startedMs: number;
  readonly endedMs: number | null;
}

/** A row as SQLite returns it. */
export type Row = Record<string, string | number | null>;

export function openQuoteOf(row: Row): OpenQuote {
  return {
    chain: row.chain as Chain,
    wallet: String(row.wallet),
    pairId: String(row.pair_id),
    orderId: BigInt(row.order_id as string),
    side: row.side as Side,
    price: BigInt(row.price as string),
    quantity: BigInt(row.quantity as string),
    restMs: Number(row.rest_ms),
  };
}

export function observationOf(row: unknown): MarketObservation & { detail: string } {
  const fields = row as Row;
  return { atMs: Number(fields.at_ms), state: fields.state as MarketState, detail: String(fields.detail) };
}

export function windowOf(row: Row): ObligationWindow {
  return {
    id: Number(row.id),
    kind: row.kind as WindowKind,
    pairId: row.pair_id === null ? null : String(row.pair_id),
    fromMs: Number(row.from_ms),
    toMs: row.to_ms === null ? null : Number(row.to_ms),
    reason: String(row.reason),
    source: String(row.source),
    declaredMs: Number(row.declared_ms),
  };
}

export function breachOf(row: Row): Breach {
  return {
    id: Number(row.id),
    pairId: String(row.pair_id),
    limit: String(row.limit_name),
    detail: String(row.detail),
    startedMs: Number(row.started_ms),
    endedMs: row.ended_ms === null ? null : Number(row.ended_ms),
  };
}
