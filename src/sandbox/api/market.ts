/**
 * One pair's market as the venue's back end sees it: order book events (already decoded from either chain
 * into the matching engine's `BookEvent` shape) are applied in chain order to the resting orders and the
 * trade log, and every change is reported to the listeners (REST order lists, WebSocket, scheduler).
 * Events of one submission arrive together (`OrderReceived` first), so the last `OrderReceived` of the book
 * describes the order a following `NewBuyOrder` / trade event speaks of.
 */
import {
  EXECUTION_CONDITION_BY_CODE,
  ORDER_TYPE_BY_CODE,
  type ExecutionCondition,
  type OrderType,
  type Side,
} from '../../core/order-terms.ts';
import { REJECTION_REASONS } from '../../core/venue-errors.ts';
import type { BookEvent } from '../matching/types.ts';
import { PairBook, type Fill, type RestingOrderView } from './pair-book.ts';
import { TradeLog, type TradeRecord } from './trades.ts';

export interface MarketListener {
  /** The resting orders changed (any side). */
  book?(pairId: string): void;
  /** A resting order was placed or partly filled. */
  orderChanged?(order: RestingOrderView): void;
  /** A resting order is gone (filled, cancelled). */
  orderClosed?(order: RestingOrderView): void;
  /** An order arrived (before matching), with the terms its records carry. */
  orderReceived?(order: ReceivedOrder): void;
  /** An order ended, resting or not: filled in full, cancelled, or (its remainder) rejected. */
  orderEnded?(end: OrderEnd): void;
  trade?(pairId: string, trade: TradeRecord): void;
  /** An incoming order traded: which resting orders (and so whose wallets) it filled, in priority order. */
  match?(pairId: string, match: MatchView): void;
  /** An order was rejected by a volatility control (reasons 3 to 6): the book has halted itself. */
  volatility?(pairId: string, reason: number): void;
}

/** Where an event came from on its chain: the transaction and its block (chain A) or ledger (chain B). */
export interface EventOrigin {
  readonly txHash: string;
  readonly height: number;
}

export interface MatchView {
  /** Sandbox clock when the venue saw the trade event. */
  readonly atMs: number;
  /** The trade event's transaction, when the indexer knows it. */
  readonly origin?: EventOrigin;
  /** The incoming order's wallet (the trade event's client). */
  readonly takerWallet: string;
  readonly takerSide: Side;
  /** Raw internal units. */
  readonly price: bigint;
  readonly quantity: bigint;
  /** The incoming order's on-chain id. */
  readonly takerOrderId: bigint;
  readonly fills: readonly Fill[];
}

/** An order as the venue received it: the terms of `OrderReceived`. */
export interface ReceivedOrder {
  readonly pairId: string;
  readonly orderId: bigint;
  readonly wallet: string;
  readonly side: Side;
  /** Raw internal units. */
  readonly price: bigint;
  readonly quantity: bigint;
  readonly orderType: OrderType;
  readonly condition: ExecutionCondition;
  readonly crossId: bigint;
  /** As sent on chain (decoded per chain by the records). */
  readonly reportingData: Uint8Array;
  /** Sandbox clock when the order was received. */
  readonly placedAtMs: number;
}

/** How an order ended, in the REST records' terms. */
export interface OrderEnd {
  readonly pairId: string;
  readonly orderId: bigint;
  readonly status: 'FILLED' | 'CANCELLED' | 'REJECTED';
  /** `N_A` for a fill; who cancelled (`BY_PARTICIPANT`, `BY_ADMIN`, `BY_CONTRACT`); the rejection reason. */
  readonly reason: string;
  /** Raw internal base units left open when it ended (0 for a fill). */
  readonly remaining: bigint;
}

interface Received {
  readonly order: ReceivedOrder;
  /** Matched so far as the incoming order. */
  filled: bigint;
}

/** The book event of the given type. */
type BookEventOf<T extends BookEvent['type']> = Extract<BookEvent, { readonly type: T }>;
/** The one event shape that places a resting order or reports a trade. */
type OrderOrTradeEvent = BookEventOf<'NewBuyOrder' | 'NewSellOrder' | 'NewBuyInitiatedTrade' | 'NewSellInitiatedTrade'>;

const VOLATILITY_REASONS = new Set([3, 4, 5, 6]);
const CANCELLED_BY = ['BY_PARTICIPANT', 'BY_ADMIN', 'BY_CONTRACT'] as const;

/** An `OrderRejected` reason as REST spells reasons: `PartialRejected` is `PARTIAL_REJECTED`. */
export function rejectionStatusReason(code: number): string {
  const name = REJECTION_REASONS[code];
  return name === undefined ? `REJECTION_REASON_${code}` : name.replace(/(?<=[a-z])(?=[A-Z])/g, '_').toUpperCase();
}

export class PairMarket {
  readonly pairId: string;
  readonly book = new PairBook();
  readonly trades: TradeLog;
  /** Events applied, for diagnostics and tests. */
  eventCount = 0;
  #received: Received | undefined;
  readonly #listeners: MarketListener[] = [];

  constructor(pairId: string, retentionMs?: number) {
    this.pairId = pairId;
    this.trades = new TradeLog(retentionMs);
  }

  listen(listener: MarketListener): void {
    this.#listeners.push(listener);
  }

  /** The last execution price seen (raw), if any trade happened. */
  get lastPrice(): bigint | undefined {
    return this.trades.last()?.price;
  }

  apply(event: BookEvent, atMs: number, origin?: EventOrigin): void {
    this.eventCount++;
    switch (event.type) {
      case 'OrderReceived':
        return this.#orderReceived(event, atMs);
      case 'NewBuyOrder':
      case 'NewSellOrder':
        return this.#orderRested(event, atMs);
      case 'NewBuyInitiatedTrade':
      case 'NewSellInitiatedTrade':
        return this.#traded(event, atMs, origin);
      case 'CancelOrder':
        return this.#cancelled(event);
      case 'OrderRejected':
        return this.#rejected(event);
    }
  }

  #orderReceived(event: BookEventOf<'OrderReceived'>, atMs: number): void {
    const order: ReceivedOrder = {
      pairId: this.pairId,
      orderId: event.orderId,
      wallet: event.client,
      side: event.side === 1 ? 'buy' : 'sell',
      price: event.price,
      quantity: event.quantity,
      orderType: ORDER_TYPE_BY_CODE.get(event.orderType) ?? 'limit',
      condition: EXECUTION_CONDITION_BY_CODE.get(event.executionCondition) ?? 'standard',
      crossId: event.crossIdentifier,
      reportingData: event.reportingData,
      placedAtMs: atMs,
    };
    this.#received = { order, filled: 0n };
    this.#emit((l) => l.orderReceived?.(order));
  }

  /** A resting order placed: with the terms of its `OrderReceived` when that was the last one seen. */
  #orderRested(event: OrderOrTradeEvent, atMs: number): void {
    const received = this.#received?.order.orderId === event.orderId ? this.#received.order : undefined;
    const order: RestingOrderView = {
      pairId: this.pairId,
      orderId: event.orderId,
      wallet: event.client,
      side: event.type === 'NewBuyOrder' ? 'buy' : 'sell',
      price: event.price,
      quantity: received?.quantity ?? event.quantity,
      remaining: event.quantity,
      orderType: received?.orderType ?? 'limit',
      condition: received?.condition ?? 'standard',
      placedAtMs: received?.placedAtMs ?? atMs,
    };
    this.book.rest(order);
    this.#emit((l) => l.orderChanged?.(order));
    this.#emit((l) => l.book?.(this.pairId));
  }

  /** A trade: the resting orders it filled in priority order, the incoming order's progress, the trade log. */
  #traded(event: OrderOrTradeEvent, atMs: number, origin: EventOrigin | undefined): void {
    const takerSide: Side = event.type === 'NewBuyInitiatedTrade' ? 'buy' : 'sell';
    const fills = this.book.fill(takerSide, event.quantity);
    for (const f of fills) {
      if (f.order.remaining === 0n) {
        this.#emit((l) => l.orderClosed?.(f.order));
        this.#ended(f.order.orderId, 'FILLED', 'N_A', 0n);
      } else this.#emit((l) => l.orderChanged?.(f.order));
    }
    const taker = this.#received?.order.orderId === event.orderId ? this.#received : undefined;
    if (taker !== undefined) {
      taker.filled += event.quantity;
      if (taker.filled >= taker.order.quantity) this.#ended(event.orderId, 'FILLED', 'N_A', 0n);
    }
    const match: MatchView = {
      atMs,
      ...(origin === undefined ? {} : { origin }),
      takerWallet: event.client,
      takerSide,
      price: event.price,
      quantity: event.quantity,
      takerOrderId: event.orderId,
      fills,
    };
    this.#emit((l) => l.match?.(this.pairId, match));
    const trade: TradeRecord = {
      atMs,
      price: event.price,
      quantity: event.quantity,
      takerSide,
      takerOrderId: event.orderId,
    };
    this.trades.add(trade);
    this.#emit((l) => l.trade?.(this.pairId, trade));
    this.#emit((l) => l.book?.(this.pairId));
  }

  #cancelled(event: BookEventOf<'CancelOrder'>): void {
    const gone = this.book.remove(event.orderId);
    if (gone === undefined) return;
    this.#emit((l) => l.orderClosed?.(gone));
    this.#ended(event.orderId, 'CANCELLED', CANCELLED_BY[event.cancellationType], gone.remaining);
    this.#emit((l) => l.book?.(this.pairId));
  }

  #rejected(event: BookEventOf<'OrderRejected'>): void {
    this.#ended(event.orderId, 'REJECTED', rejectionStatusReason(event.reason), event.quantityNotExecuted);
    if (VOLATILITY_REASONS.has(event.reason)) this.#emit((l) => l.volatility?.(this.pairId, event.reason));
  }

  #ended(orderId: bigint, status: OrderEnd['status'], reason: string, remaining: bigint): void {
    const end: OrderEnd = { pairId: this.pairId, orderId, status, reason, remaining };
    this.#emit((l) => l.orderEnded?.(end));
  }

  #emit(fn: (l: MarketListener) => void): void {
    for (const l of this.#listeners) fn(l);
  }
}
