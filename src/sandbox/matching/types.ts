/**
 * Types of the sandbox matching engine (rules.md). The engine is pure bookkeeping over integers: token
 * movements go through the `Ledger` the caller supplies, time comes in the context, and a failure is thrown
 * as a DltError whose code names the contract error (see `src/core/venue-errors.ts` for both chains' names).
 * The engine mutates the book and calls the ledger as it goes; a caller that sees a throw must restore its
 * own snapshot of book and ledger (a failed transaction changes nothing).
 */
import type { ExecutionCondition, OrderType, Side, Validity } from '../../core/order-terms.ts';
import type { PairScales } from '../../core/units.ts';

export type Token = 'base' | 'quote';
export type Phase = 'open' | 'closed' | 'manualHalt' | 'automaticHalt';
export type CancelBy = 'ByParticipant' | 'ByAdmin' | 'ByContract';

export interface TickRow {
  /** Raw internal quote price from which the row applies (inclusive). */
  readonly from: bigint;
  /** Tick in raw internal quote units. */
  readonly tick: bigint;
}

export interface BookParams {
  /** Account id of the order book itself (holds pre-funded locks). */
  readonly self: string;
  /** Account id of the commission wallet. */
  readonly commissionWallet: string;
  readonly scales: PairScales;
  readonly makerBps: number;
  readonly takerBps: number;
  readonly marketMakerBps: number;
  /** 0 = unlimited. */
  readonly maximumMatches: number;
  /** Raw internal base units. */
  readonly minimumSize: bigint;
  readonly sizeIncrement: bigint;
  readonly tickTable: readonly TickRow[];
  readonly priceCollarBps: number;
  /** Raw internal quote price. */
  readonly staticReferencePrice: bigint;
  readonly staticThresholdBps: number;
  readonly dynamicThresholdBps: number;
  /** Native quote units. */
  readonly minimumOrderValue: bigint;
  readonly maximumOrderValue: bigint;
  readonly prefunded: boolean;
}

export interface ClientInfo {
  readonly canBuy: boolean;
  readonly canSell: boolean;
  readonly canCancel: boolean;
  readonly isMarketMaker: boolean;
}

/** Token balances and allowances as the book sees them; implementations throw DltError on failure. */
export interface Ledger {
  balance(token: Token, account: string): bigint;
  allowance(token: Token, owner: string, spender: string): bigint;
  /** Moves tokens the book holds (`from` is the book itself). */
  transfer(token: Token, from: string, to: string, amount: bigint): void;
  /** Moves `amount` from `from` to `to`, consuming `spender`'s allowance. */
  transferFrom(token: Token, spender: string, from: string, to: string, amount: bigint): void;
}

export interface BookContext {
  readonly ledger: Ledger;
  /** Registry entry of an account, undefined when the account is not a registered client. */
  client(account: string): ClientInfo | undefined;
  /** Chain time in seconds (block timestamp / ledger close time). */
  readonly nowSeconds: bigint;
}

/** An order after the chain-specific decoding of its bytes. */
export interface IncomingOrder {
  readonly quantity: bigint;
  readonly price: bigint;
  readonly crossId: bigint;
  readonly type: OrderType;
  readonly condition: ExecutionCondition;
  readonly validity: Validity;
  readonly lifetimeDays: number;
  readonly reportingData: Uint8Array;
}

export interface RestingOrder {
  readonly id: bigint;
  readonly wallet: string;
  readonly side: Side;
  remaining: bigint;
  readonly price: bigint;
  readonly crossId: bigint;
  /** Maker rate of the wallet when the order was placed; a pre-funded buy locks at this rate. */
  readonly lockRateBps: number;
  readonly validity: Validity;
  /** Seconds; null for GFD. */
  readonly expiresAt: bigint | null;
}

export type BookEvent =
  | {
      readonly type: 'OrderReceived';
      readonly client: string;
      readonly orderId: bigint;
      readonly quantity: bigint;
      readonly price: bigint;
      readonly side: 1 | 2;
      readonly reportingData: Uint8Array;
      readonly crossIdentifier: bigint;
      readonly orderType: 0 | 1;
      readonly executionCondition: 0 | 1 | 2 | 3;
    }
  | {
      readonly type: 'OrderRejected';
      readonly client: string;
      readonly orderId: bigint;
      readonly reason: number;
      readonly quantityNotExecuted: bigint;
      readonly side: 1 | 2;
      readonly price: bigint;
    }
  | {
      readonly type: 'NewBuyInitiatedTrade' | 'NewSellInitiatedTrade' | 'NewBuyOrder' | 'NewSellOrder';
      readonly client: string;
      readonly orderId: bigint;
      readonly quantity: bigint;
      readonly price: bigint;
    }
  | {
      readonly type: 'CancelOrder';
      readonly client: string;
      readonly orderId: bigint;
      readonly quantity: bigint;
      readonly price: bigint;
      readonly cancellationType: 0 | 1 | 2;
      readonly token: Token;
      readonly toAddress: string;
    };

export interface Book {
  readonly params: BookParams;
  phase: Phase;
  /** Last execution price (raw); starts at the static reference price. */
  lastPrice: bigint;
  staticReferencePrice: bigint;
  nextOrderId: bigint;
  /** Resting buys in priority order (best price first, then oldest). */
  readonly buys: RestingOrder[];
  /** Resting sells in priority order. */
  readonly sells: RestingOrder[];
  /** Automatic halts since the counter was last reset. */
  haltCount: number;
}

export interface SubmitResult {
  readonly orderId: bigint;
  readonly events: BookEvent[];
}
