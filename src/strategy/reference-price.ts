/**
 * The reference price a model quotes around, from the sources the strategy names in order of preference:
 * the first one available wins, and the result says which it was.
 */
import { Decimal } from '../core/decimal.ts';
import type { OthersBook } from './book.ts';
import type { ReferencePrice, ReferenceSource } from './types.ts';

export interface ReferenceInputs {
  /** The book without our own orders. */
  readonly book: OthersBook;
  readonly lastPrice: Decimal | null;
  readonly staticReferencePrice: Decimal | null;
  /** The pair's own fair value, combined and guarded by the engine; null when there is none. */
  readonly fair: Decimal | null;
}

const TWO = new Decimal(2);

/** Both sides present, positive and not crossed; a crossed or locked view (stale data) is unusable. */
function top(book: OthersBook): { bid: Decimal; bidQty: Decimal; ask: Decimal; askQty: Decimal } | null {
  const bid = book.bids[0];
  const ask = book.asks[0];
  if (bid === undefined || ask === undefined) return null;
  if (bid.price.lte(0) || bid.price.gte(ask.price)) return null;
  return { bid: bid.price, bidQty: bid.quantity, ask: ask.price, askQty: ask.quantity };
}

function positive(price: Decimal | null): Decimal | null {
  return price !== null && price.gt(0) ? price : null;
}

/** One source, or null when it is not available. */
export function priceFrom(source: ReferenceSource, inputs: ReferenceInputs): Decimal | null {
  switch (source) {
    case 'mid': {
      const t = top(inputs.book);
      return t === null ? null : t.bid.add(t.ask).div(TWO);
    }
    case 'microprice': {
      // Weighted by the opposite side's size: a heavy bid pushes the price towards the ask, where the
      // next trade is more likely. Best levels only.
      const t = top(inputs.book);
      if (t === null) return null;
      const total = t.bidQty.add(t.askQty);
      if (total.lte(0)) return null;
      return t.bid.mul(t.askQty).add(t.ask.mul(t.bidQty)).div(total);
    }
    case 'last':
      return positive(inputs.lastPrice);
    case 'static':
      return positive(inputs.staticReferencePrice);
    case 'fair':
      return positive(inputs.fair);
  }
}

/** The first available source of `order`; null when none is (the strategy then quotes nothing). */
export function referencePrice(order: readonly ReferenceSource[], inputs: ReferenceInputs): ReferencePrice | null {
  for (const source of order) {
    const price = priceFrom(source, inputs);
    if (price !== null) return { price, source };
  }
  return null;
}
