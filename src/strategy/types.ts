/**
 * What a quote model sees and what it returns. Every price is quote units per base unit, every quantity and
 * balance is base or quote units as named, all as Decimal; time is milliseconds since the epoch, passed in.
 */
import type { Decimal } from '../core/decimal.ts';
import type { SizeLimit, SpreadLimit } from '../core/obligations.ts';
import type { Side } from '../core/order-terms.ts';

export type { PairRules } from '../core/rules.ts';
export type { Side } from '../core/order-terms.ts';

/** One price level of the book (or one order, when the view lists orders individually). */
export interface BookLevel {
  readonly price: Decimal;
  readonly quantity: Decimal;
}

/** The venue's REST trade information, as far as a model may use it. */
export interface TradeInfo {
  readonly lastPrice: Decimal | null;
  /** The REST `referencePrice`: the closing price of the previous trading day. */
  readonly previousClose: Decimal | null;
  readonly tradeVolume24h: Decimal | null;
  readonly tradingHaltCounter: number | null;
}

export interface MarketView {
  /**
   * The venue's book as seen, our own orders included: bids best (highest) first, asks best (lowest) first.
   * The strategy takes our live orders out itself (see `book.ts`).
   */
  readonly bids: readonly BookLevel[];
  readonly asks: readonly BookLevel[];
  /** Last execution price: the `last` reference source and the centre of the dynamic threshold. */
  readonly lastPrice: Decimal | null;
  /** The pair's current static reference price; when present it wins over the one in `PairRules`. */
  readonly staticReferencePrice: Decimal | null;
  readonly tradeInfo: TradeInfo | null;
  readonly nowMs: number;
  /** Milliseconds to the close of the running session; null outside trading hours or when unknown. */
  readonly msUntilClose: number | null;
}

export interface Balance {
  /** Not committed to any order. */
  readonly free: Decimal;
  /** Committed to our live orders of this pair (pre-funded books); zero on no-prefund books. */
  readonly locked: Decimal;
}

/** Balances of one wallet for one pair: base in base units, quote in quote units. */
export interface Inventory {
  readonly base: Balance;
  readonly quote: Balance;
}

/** One of our orders on the book (or sent and not yet settled): `quantity` is what remains. */
export interface LiveOrder {
  readonly id: string;
  readonly side: Side;
  readonly price: Decimal;
  readonly quantity: Decimal;
}

export interface QuoteContext {
  /** The wallet is flagged market maker: it pays `marketMakerCommission` in both roles. */
  readonly marketMaker: boolean;
  /**
   * Chain cost of refreshing a level after a round trip (re-placing its bid and its ask), in quote units.
   * The engine derives it from gas price or fees; zero ignores chain costs.
   */
  readonly refreshCost: Decimal;
  readonly liveOrders: readonly LiveOrder[];
  /**
   * Every order of ours that is or may still be on the venue's book: the live quotes and those whose
   * cancellation is on its way (the book shows them until it is included). Taken out of the book before the
   * reference price is read, so that our own quotes never move it; `liveOrders` when absent.
   */
  readonly ownOrders?: readonly LiveOrder[];
  /** The pair's market-making obligations in force now, when the guard is to keep them. */
  readonly obligations?: GuardTerms;
  /** The pair's own fair value (the `fair` reference source); null or absent when there is none now. */
  readonly fairValue?: Decimal | null;
  /** A fair-value guard's widening: every quote's distance from the centre is multiplied by this (>= 1). */
  readonly widen?: number;
}

/** A quote a model wants on the book; level 0 is the one nearest the centre on its side. */
export interface DesiredQuote {
  readonly side: Side;
  readonly price: Decimal;
  readonly quantity: Decimal;
  readonly level: number;
}

export type ReferenceSource = 'fair' | 'mid' | 'microprice' | 'last' | 'static';

export interface ReferencePrice {
  readonly price: Decimal;
  readonly source: ReferenceSource;
}

/** Why a quote was dropped or changed, or why nothing was quoted (side and level null). */
export type QuoteRule =
  | 'no-reference'
  | 'no-horizon'
  | 'inventory-bound'
  | 'fee-floor'
  | 'crosses-book'
  | 'collapsed'
  | 'own-cross'
  | 'price'
  | 'collar'
  | 'static-threshold'
  | 'dynamic-threshold'
  | 'size'
  | 'value-max'
  | 'value-min'
  | 'max-matches'
  | 'funds'
  | 'venue-rule'
  | 'kept-order-replaced'
  /** Removed by the engine's risk gate (position, notional, order count, order value limits). */
  | 'risk'
  /** Held to the pair's market-making obligations by the guard. */
  | 'obligations';

export interface QuoteReason {
  readonly side: Side | null;
  readonly level: number | null;
  readonly rule: QuoteRule;
  readonly action: 'dropped' | 'adjusted' | 'none';
  readonly detail: string;
  /** For `risk`: the limit that cut the quote (maxInventory, maxNotional, maxOpenOrders, maxOrderValue). */
  readonly limit?: string;
}

/** Commands for the order manager, in the order they are to be carried out. */
export type QuoteAction =
  | { readonly type: 'keep'; readonly orderId: string; readonly quote: DesiredQuote; readonly live: LiveOrder }
  | { readonly type: 'place'; readonly quote: DesiredQuote }
  /** Place `quote`, then cancel `orderId`: the level never leaves the book. */
  | { readonly type: 'replace'; readonly orderId: string; readonly quote: DesiredQuote }
  | { readonly type: 'cancel'; readonly orderId: string; readonly side: Side };

export interface StrategyResult {
  /** The quotes the venue accepts (each passes `checkOrder` of the core). */
  readonly quotes: readonly DesiredQuote[];
  /** How to get from our live orders to `quotes` with the fewest transactions. */
  readonly actions: readonly QuoteAction[];
  readonly reasons: readonly QuoteReason[];
  readonly reference: ReferencePrice | null;
  /** Model values for logs (centre, volatility, horizon, ...), as decimal text. */
  readonly diagnostics: Readonly<Record<string, string>>;
  /** With obligations: whether the quotes meet them, and what kept them from it. */
  readonly obligations?: GuardOutcome;
}

/** Market-making obligations in force for the guard now (a stressed market's multiplier already applied). */
export interface GuardTerms {
  readonly maxSpread: SpreadLimit;
  readonly minSize: SizeLimit;
  readonly maxSizeRatio: number;
}

export type GuardOutcome =
  /** The model's quotes met the terms as they were. */
  | { readonly status: 'compliant' }
  /** The guard's bid and ask meet them. */
  | { readonly status: 'guarded' }
  /** A limit (`risk:<name>`, `venue:<rule>`, `funds`, `tick`, `no-reference`) kept the quotes from meeting them. */
  | { readonly status: 'breach'; readonly limit: string; readonly detail: string };
