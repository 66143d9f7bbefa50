/**
 * The terms of the market-making obligations compiled against one pair's scales (see obligations.ts): whether
 * a bid and an ask are inside the maximum spread, a quote has the minimum size, and two sides are comparable,
 * all in integers on the raw values the chain carries, so that a quote exactly at a limit is judged exactly.
 */
import { Decimal } from './decimal.ts';
import type { Side } from './order-terms.ts';
import type { PairScales } from './units.ts';

export type SpreadLimit =
  { readonly unit: 'bps'; readonly value: Decimal } | { readonly unit: 'quote'; readonly value: Decimal };
export type SizeLimit = { readonly unit: 'base' | 'quote'; readonly value: Decimal };

export interface ObligationTerms {
  readonly maxSpread: SpreadLimit;
  readonly minSize: SizeLimit;
  /** Share of the continuous trading time to be present, 0..1. */
  readonly target: number;
  /** The larger side exceeds the smaller by at most this share of the larger (0.5 = 50 %). */
  readonly maxSizeRatio: number;
  /** Factor on the maximum spread while the market is stressed (1: no relief). */
  readonly stressedSpreadMultiplier: Decimal;
}

/** One of our orders on the book: raw internal price and remaining quantity. */
export interface BookQuote {
  readonly side: Side;
  readonly price: bigint;
  readonly quantity: bigint;
}

/** A rational p/q with q > 0. */
type Ratio = { readonly n: bigint; readonly d: bigint };

/** A decimal as its digits over a power of ten: exact, and far cheaper than a reduced fraction. */
function ratioOf(value: Decimal): Ratio {
  const places = value.decimalPlaces();
  return { n: BigInt(value.toFixed(places).replace('.', '')), d: 10n ** BigInt(places) };
}

const BPS_TWICE = 20_000n;

/** The terms compiled against one pair's scales: every check in integers. */
export class ObligationRules {
  readonly terms: ObligationTerms;
  readonly scales: PairScales;
  readonly #spread: Ratio;
  readonly #stressed: Ratio;
  readonly #size: Ratio;
  readonly #sizeRatio: Ratio;

  constructor(terms: ObligationTerms, scales: PairScales) {
    this.terms = terms;
    this.scales = scales;
    this.#spread = ratioOf(terms.maxSpread.value);
    this.#stressed = ratioOf(terms.stressedSpreadMultiplier);
    this.#size = ratioOf(terms.minSize.value);
    this.#sizeRatio = ratioOf(new Decimal(terms.maxSizeRatio));
  }

  /** Whether `bid` and `ask` (raw prices) are at or inside the maximum spread. */
  spreadOk(bid: bigint, ask: bigint, stressed: boolean): boolean {
    if (ask <= bid) return true;
    const factor = stressed ? this.#stressed : { n: 1n, d: 1n };
    const limit = this.#spread;
    if (this.terms.maxSpread.unit === 'bps') {
      // (ask - bid) / ((ask + bid) / 2) * 10000 <= limit * factor
      return BPS_TWICE * (ask - bid) * limit.d * factor.d <= limit.n * factor.n * (ask + bid);
    }
    // (ask - bid) / quoteInternal <= limit * factor
    return (ask - bid) * limit.d * factor.d <= limit.n * factor.n * this.scales.quoteInternal;
  }

  /** The size of a quote in the unit of the minimum, as a comparable integer (raw base, or raw price x raw base). */
  #measure(quote: BookQuote): bigint {
    return this.terms.minSize.unit === 'base' ? quote.quantity : quote.price * quote.quantity;
  }

  sizeOk(quote: BookQuote): boolean {
    const min = this.#size;
    if (this.terms.minSize.unit === 'base') return quote.quantity * min.d >= min.n * this.scales.baseInternal;
    return quote.price * quote.quantity * min.d >= min.n * this.scales.quoteInternal * this.scales.baseInternal;
  }

  comparable(bid: BookQuote, ask: BookQuote): boolean {
    const bidSize = this.#measure(bid);
    const askSize = this.#measure(ask);
    const larger = bidSize > askSize ? bidSize : askSize;
    const smaller = bidSize > askSize ? askSize : bidSize;
    return (larger - smaller) * this.#sizeRatio.d <= this.#sizeRatio.n * larger;
  }

  /** Size in the unit of the minimum, human (base units or quote value). */
  sizeOf(quote: BookQuote): Decimal {
    const quantity = new Decimal(quote.quantity.toString()).div(this.scales.baseInternal.toString());
    if (this.terms.minSize.unit === 'base') return quantity;
    return quantity.mul(new Decimal(quote.price.toString()).div(this.scales.quoteInternal.toString()));
  }

  /** The maximum spread in basis points of the midpoint of `bid` and `ask` (absolute limits converted there). */
  maxSpreadBps(bid: bigint, ask: bigint, stressed: boolean): number {
    const factor = stressed ? this.terms.stressedSpreadMultiplier : new Decimal(1);
    if (this.terms.maxSpread.unit === 'bps') return this.terms.maxSpread.value.mul(factor).toNumber();
    const mid = new Decimal((ask + bid).toString()).div(2).div(this.scales.quoteInternal.toString());
    return mid.lte(0) ? 0 : this.terms.maxSpread.value.mul(factor).div(mid).mul(10_000).toNumber();
  }
}

/** Spread of a bid and an ask in basis points of their midpoint. */
export function spreadBpsOf(bid: bigint, ask: bigint): number {
  if (ask + bid <= 0n) return 0;
  return new Decimal((ask - bid).toString())
    .mul(20_000)
    .div((ask + bid).toString())
    .toNumber();
}

export type Shortfall = 'no-bid' | 'no-ask' | 'size' | 'spread' | 'ratio';
