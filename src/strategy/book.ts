/**
 * The book of everyone else: the venue's book less our own live orders. The reference price is taken from it
 * so that our quotes do not pull the reference towards themselves, and passivity is judged against it
 * because crossing our own orders is prevented separately (conformance and action sequencing).
 */
import { Decimal } from '../core/decimal.ts';
import type { BookLevel, LiveOrder, MarketView } from './types.ts';

export interface OthersBook {
  /** Best (highest) first. */
  readonly bids: readonly BookLevel[];
  /** Best (lowest) first. */
  readonly asks: readonly BookLevel[];
}

const ZERO = new Decimal(0);

function subtract(levels: readonly BookLevel[], own: readonly LiveOrder[]): BookLevel[] {
  if (own.length === 0) return levels.filter((l) => l.quantity.gt(0));
  // Our remaining quantity per price (a few prices: compared, not keyed by text); a level that is all ours (or
  // less, when the view lags) disappears.
  const prices: Decimal[] = [];
  const ours: Decimal[] = [];
  for (const o of own) {
    const i = prices.findIndex((p) => p.eq(o.price));
    if (i < 0) {
      prices.push(o.price);
      ours.push(ZERO.add(o.quantity));
    } else ours[i] = (ours[i] as Decimal).add(o.quantity);
  }
  const out: BookLevel[] = [];
  for (const level of levels) {
    const i = prices.findIndex((p) => p.eq(level.price));
    if (i < 0) {
      // None of ours at this price: the level as it is.
      if (level.quantity.gt(0)) out.push(level);
      continue;
    }
    const rest = level.quantity.sub(ours[i] as Decimal);
    // Several entries may share a price (an order-by-order view): consume ours across them.
    ours[i] = rest.lt(0) ? rest.neg() : ZERO;
    if (rest.gt(0)) out.push({ price: level.price, quantity: rest });
  }
  return out;
}

/**
 * The book without our own live orders, level by level (quantities clamped at zero), sorted best first
 * whatever order the view came in. When the view lags behind an order we just sent, this can remove someone
 * else's quantity at that price; while our own order there rests no new quote of ours may cross it anyway
 * (action sequencing), so the view can only mislead after that order is gone and the next view is read.
 */
export function othersBook(market: Pick<MarketView, 'bids' | 'asks'>, own: readonly LiveOrder[]): OthersBook {
  const last = lastBooks.get(market.bids);
  if (last !== undefined && last.asks === market.asks && sameOrders(last.own, own)) return last.book;
  const book: OthersBook = {
    bids: subtract(
      market.bids,
      own.filter((o) => o.side === 'buy'),
    ).toSorted((a, b) => b.price.cmp(a.price)),
    asks: subtract(
      market.asks,
      own.filter((o) => o.side === 'sell'),
    ).toSorted((a, b) => a.price.cmp(b.price)),
  };
  lastBooks.set(market.bids, { asks: market.asks, own, book });
  return book;
}

/**
 * The last book worked out from each set of levels (one per book message of a pair), with the asks and our
 * orders it was worked out with. A round asks for it twice (the others' mid the fair value is checked against,
 * then the strategy) from the same levels and orders, and the pair's next rounds often again: the levels, the
 * orders and the book are immutable, so the same objects give the same book.
 */
const lastBooks = new WeakMap<
  readonly BookLevel[],
  { readonly asks: readonly BookLevel[]; readonly own: readonly LiveOrder[]; readonly book: OthersBook }
>();

function sameOrders(a: readonly LiveOrder[], b: readonly LiveOrder[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
