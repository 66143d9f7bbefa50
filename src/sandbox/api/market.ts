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

  apply(e: BookEvent, atMs: number, origin?: EventOrigin): void {
    this.eventCount++;
    switch (e.type) {
      case 'OrderReceived': {
        const order: ReceivedOrder = {
          pairId: this.pairId,
          orderId: e.orderId,
          wallet: e.client,
          side: e.side === 1 ? 'buy' : 'sell',
          price: e.price,
          quantity: e.quantity,
          orderType: ORDER_TYPE_BY_CODE.get(e.orderType) ?? 'limit',
          condition: EXECUTION_CONDITION_BY_CODE.get(e.executionCondition) ?? 'standard',
          crossId: e.crossIdentifier,
          reportingData: e.reportingData,
          placedAtMs: atMs,
        };
        this.#received = { order, filled: 0n };
        this.#emit((l) => l.orderReceived?.(order));
        return;
      }
      case 'NewBuyOrder':
      case 'NewSellOrder': {
        const r = this.#received?.order.orderId === e.orderId ? this.#received.order : undefined;
        const order: RestingOrderView = {
          pairId: this.pairId,
          orderId: e.orderId,
          wallet: e.client,
          side: e.type === 'NewBuyOrder' ? 'buy' : 'sell',
          price: e.price,
          quantity: r?.quantity ?? e.quantity,
          remaining: e.quantity,
          orderType: r?.orderType ?? 'limit',
          condition: r?.condition ?? 'standard',
          placedAtMs: r?.placedAtMs ?? atMs,
        };
        this.book.rest(order);
        this.#emit((l) => l.orderChanged?.(order));
        this.#emit((l) => l.book?.(this.pairId));
        return;
      }
      case 'NewBuyInitiatedTrade':
      case 'NewSellInitiatedTrade': {
        const takerSide: Side = e.type === 'NewBuyInitiatedTrade' ? 'buy' : 'sell';
        const fills = this.book.fill(takerSide, e.quantity);
        for (const f of fills) {
          if (f.order.remaining === 0n) {
            this.#emit((l) => l.orderClosed?.(f.order));
            this.#ended(f.order.orderId, 'FILLED', 'N_A', 0n);
          } else this.#emit((l) => l.orderChanged?.(f.order));
        }
        const taker = this.#received?.order.orderId === e.orderId ? this.#received : undefined;
        if (taker !== undefined) {
          taker.filled += e.quantity;
          if (taker.filled >= taker.order.quantity) this.#ended(e.orderId, 'FILLED', 'N_A', 0n);
        }
        const match: MatchView = {
          atMs,
          ...(origin === undefined ? {} : { origin }),
          takerWallet: e.client,
          takerSide,
          price: e.price,
          quantity: e.quantity,
          takerOrderId: e.orderId,
          fills,
        };
        this.#emit((l) => l.match?.(this.pairId, match));
        const trade: TradeRecord = { atMs, price: e.price, quantity: e.quantity, takerSide, takerOrderId: e.orderId };
        this.trades.add(trade);
        this.#emit((l) => l.trade?.(this.pairId, trade));
        this.#emit((l) => l.book?.(this.pairId));
        return;
      }
      case 'CancelOrder': {
        const gone = this.book.remove(e.orderId);
        if (gone === undefined) return;
        this.#emit((l) => l.orderClosed?.(gone));
        this.#ended(e.orderId, 'CANCELLED', CANCELLED_BY[e.cancellationType], gone.remaining);
        this.#emit((l) => l.book?.(this.pairId));
        return;
      }
      case 'OrderRejected':
        this.#ended(e.orderId, 'REJECTED', rejectionStatusReason(e.reason), e.quantityNotExecuted);
        if (VOLATILITY_REASONS.has(e.reason)) this.#emit((l) => l.volatility?.(this.pairId, e.reason));
        return;
    }
  }

  #ended(orderId: bigint, status: OrderEnd['status'], reason: string, remaining: bigint): void {
    const end: OrderEnd = { pairId: this.pairId, orderId, status, reason, remaining };
    this.#emit((l) => l.orderEnded?.(end));
  }

  #emit(fn: (l: MarketListener) => void): void {
    for (const l of this.#listeners) fn(l);
  }
}
