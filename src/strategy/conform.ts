/**
 * From the quotes a model wants to quotes the venue accepts. Prices only ever move to the passive side (bids
 * down, asks up) and sizes only ever shrink: a quote that would have to become more aggressive or larger to
 * comply is dropped, with the rule and the numbers in `reasons`. Steps, in order:
 *
 *  1. size rounded down to minimumSize + k * increment (below the minimum: dropped)
 *  2. fee floor: at least h(Q) from the centre (fee-floor.ts), widened if closer (not for quotes held to
 *     market-making obligations, `pinned`: obligation-guard.ts)
 *  3. price snapped to the tick grid towards the passive side; a non-positive price is dropped
 *  4. strictly passive against the book of others: a bid at or above their best ask slides to one tick below
 *     it, an ask at or below their best bid to one tick above (chain A has no book-or-cancel, so a crossing
 *     quote would trade as taker; one tick inside the opposite best is the most eager price that still rests)
 *  5. two quotes of a side on one price: the deeper level is dropped
 *  6. every bid strictly below every ask of ours: the deeper of a crossing pair is dropped
 *  7. collar, static and dynamic thresholds: a quote outside is dropped, never moved to the band edge (that
 *     could move it towards the reference, and the band moves with the reference prices anyway)
 *  8. value above maximumOrderValue: size cut to fit; value below minimumOrderValue plus margin: dropped
 *  9. at most maximumMatches quotes per side (when > 0), the nearest levels kept: an incoming order collects
 *     at most that many resting orders and is rejected (MaxMatches) for what it cannot reach, so deeper
 *     levels of ours could never trade against it and only cost transactions and locked funds
 * 10. funds: each side, from level 0 outwards, within what the wallet holds for quoting; the last funded
 *     level is cut to fit, the rest dropped
 * 11. a quote cut in 8 or 10 must still clear the fee floor for its smaller size, or it is dropped
 * 12. `checkOrder` of the core: every rule of the venue; anything it still finds is dropped ('venue-rule';
 *     the steps above are built so that this never happens, and a property test holds them to it)
 */
import type { Decimal } from '../core/decimal.ts';
import { minimumValueWithMargin, type PairRules } from '../core/rules.ts';
import type { OthersBook } from './book.ts';
import {
  bySide,
  funded,
  onePerPrice,
  passivelyPriced,
  sized,
  uncrossed,
  venueAccepts,
  withinBands,
  withinMatches,
  withinValue,
  type Conforming,
} from './conform-steps.ts';
import type { DesiredQuote, QuoteReason } from './types.ts';

export interface ConformInput {
  readonly quotes: readonly DesiredQuote[];
  /** With the current static reference price. */
  readonly rules: PairRules;
  /** The book without our own orders. */
  readonly book: OthersBook;
  /** Last execution price, the centre of the dynamic threshold. */
  readonly lastPrice: Decimal | null;
  /** The price the model built its quotes around. */
  readonly centre: Decimal;
  readonly marketMaker: boolean;
  readonly refreshCost: Decimal;
  readonly minSpreadBps: number;
  /** What all our orders of a side may commit: base for asks, quote for bids (free plus locked). */
  readonly funds: { readonly base: Decimal; readonly quote: Decimal };
  /** Quotes held to market-making obligations (the guard's): exempt from the fee floor, steps 2 and 11. */
  readonly pinned?: (quote: DesiredQuote) => boolean;
}

export interface ConformResult {
  /** Bids from level 0 outwards, then asks. */
  readonly quotes: DesiredQuote[];
  readonly reasons: QuoteReason[];
}

export function conformQuotes(input: ConformInput): ConformResult {
  const reasons: QuoteReason[] = [];
  const note: Conforming['note'] = (w, rule, action, detail) => {
    reasons.push({ side: w.side, level: w.level, rule, action, detail });
  };
  const c: Conforming = {
    rules: input.rules,
    centre: input.centre,
    book: input.book,
    lastPrice: input.lastPrice,
    marketMaker: input.marketMaker,
    funds: input.funds,
    fee: {
      commissions: input.rules.commissions,
      marketMaker: input.marketMaker,
      refreshCost: input.refreshCost,
      minSpreadBps: input.minSpreadBps,
    },
    valueFloor: minimumValueWithMargin(input.rules),
    note,
    drop: (w, rule, detail) => {
      note(w, rule, 'dropped', detail);
      return false;
    },
  };
  let work = sized(c, input.quotes, input.pinned);
  work = work.filter((w) => passivelyPriced(c, w));
  work = uncrossed(c, onePerPrice(c, work));
  work = work.filter((w) => withinBands(c, w)).filter((w) => withinValue(c, w));
  work = funded(c, withinMatches(c, work)).filter((w) => venueAccepts(c, w));
  return {
    quotes: work.toSorted(bySide).map(({ side, level, price, quantity }) => ({ side, level, price, quantity })),
    reasons,
  };
}
