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
import { DEFAULT_ORDER_OPTIONS } from '../core/order-terms.ts';
import {
  checkCollar,
  checkDynamicThreshold,
  checkOrder,
  checkStaticThreshold,
  minimumValueWithMargin,
  type PairRules,
} from '../core/rules.ts';
import { snapToTick, tickDown, tickUp } from '../core/ticks.ts';
import type { OthersBook } from './book.ts';
import { clearsFeeFloor, minimumHalfSpread, type FeeFloorParams } from './fee-floor.ts';
import { largestFundedSize, largestSizeWithinValue, quoteCost, roundSizeDown } from './sizing.ts';
import { show } from './show.ts';
import type { DesiredQuote, QuoteReason, QuoteRule, Side } from './types.ts';

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

interface Work {
  side: Side;
  level: number;
  price: Decimal;
  quantity: Decimal;
  /** Cut by the value maximum or by funds (step 11 applies). */
  cut: boolean;
  /** Held to obligations: no fee floor. */
  pinned: boolean;
}

type Placed = Pick<Work, 'side' | 'level'>;
const sideRank = (p: Placed) => (p.side === 'buy' ? 0 : 1);
/** Level 0 of both sides first: the order in which a level's limits (matches, funds) are handed out. */
const byLevel = (a: Placed, b: Placed) => a.level - b.level || sideRank(a) - sideRank(b);
const bySide = (a: Placed, b: Placed) => sideRank(a) - sideRank(b) || a.level - b.level;

export function conformQuotes(input: ConformInput): ConformResult {
  const { rules, centre } = input;
  const reasons: QuoteReason[] = [];
  const fee: FeeFloorParams = {
    commissions: rules.commissions,
    marketMaker: input.marketMaker,
    refreshCost: input.refreshCost,
    minSpreadBps: input.minSpreadBps,
  };
  const note = (w: Placed, rule: QuoteRule, action: 'dropped' | 'adjusted', detail: string) =>
    reasons.push({ side: w.side, level: w.level, rule, action, detail });
  const drop = (w: Work, rule: QuoteRule, detail: string): false => {
    note(w, rule, 'dropped', detail);
    return false;
  };

  let work: Work[] = [];
  // 1. size
  for (const q of input.quotes.toSorted(byLevel)) {
    const quantity = roundSizeDown(q.quantity, rules);
    const pinned = input.pinned?.(q) ?? false;
    if (quantity === null)
      drop(
        { ...q, cut: false, pinned },
        'size',
        `size ${show(q.quantity)} is below the minimum size ${show(rules.minimumSize)}`,
      );
    else work.push({ side: q.side, level: q.level, price: q.price, quantity, cut: false, pinned });
  }

  // 2-4. fee floor, tick, passivity
  const bestAsk = input.book.asks[0]?.price ?? null;
  const bestBid = input.book.bids[0]?.price ?? null;
  work = work.filter((w) => {
    const h = minimumHalfSpread(centre, w.quantity, fee);
    const limit = w.side === 'buy' ? centre.sub(h) : centre.add(h);
    if (!w.pinned && (w.side === 'buy' ? w.price.gt(limit) : w.price.lt(limit))) {
      note(
        w,
        'fee-floor',
        'adjusted',
        `${show(w.price)} widened to ${show(limit)}: at least ${show(h)} from the centre ${show(centre)}`,
      );
      w.price = limit;
    }
    if (w.price.lte(0)) return drop(w, 'price', `price ${show(w.price)} is not positive`);
    w.price = snapToTick(w.price, w.side, rules.tick);
    if (w.price.lte(0)) return drop(w, 'price', 'price is below the first tick');
    if (w.side === 'buy' && bestAsk !== null && w.price.gte(bestAsk)) {
      let inside = snapToTick(bestAsk, 'buy', rules.tick);
      if (inside.gte(bestAsk)) inside = tickDown(inside, rules.tick);
      if (inside.lte(0)) return drop(w, 'crosses-book', `bid ${show(w.price)} crosses the best ask ${show(bestAsk)}`);
      note(
        w,
        'crosses-book',
        'adjusted',
        `bid ${show(w.price)} would cross the best ask ${show(bestAsk)}: moved to ${show(inside)}`,
      );
      w.price = inside;
    }
    if (w.side === 'sell' && bestBid !== null && w.price.lte(bestBid)) {
      let inside = snapToTick(bestBid, 'sell', rules.tick);
      if (inside.lte(bestBid)) inside = tickUp(inside, rules.tick);
      note(
        w,
        'crosses-book',
        'adjusted',
        `ask ${show(w.price)} would cross the best bid ${show(bestBid)}: moved to ${show(inside)}`,
      );
      w.price = inside;
    }
    return true;
  });

  // 5. one quote per price and side
  const taken = new Set<string>();
  work = work.filter((w) => {
    const key = `${w.side}@${show(w.price)}`;
    if (taken.has(key)) return drop(w, 'collapsed', `another level of this side already quotes ${show(w.price)}`);
    taken.add(key);
    return true;
  });

  // 6. bids strictly below asks
  for (;;) {
    const bids = work.filter((w) => w.side === 'buy');
    const asks = work.filter((w) => w.side === 'sell');
    const top = bids.reduce<Work | null>((m, w) => (m === null || w.price.gt(m.price) ? w : m), null);
    const bottom = asks.reduce<Work | null>((m, w) => (m === null || w.price.lt(m.price) ? w : m), null);
    if (top === null || bottom === null || top.price.lt(bottom.price)) break;
    const detail = `bid ${show(top.price)} (level ${top.level}) is not below ask ${show(bottom.price)} (level ${bottom.level})`;
    const victims = top.level === bottom.level ? [top, bottom] : top.level > bottom.level ? [top] : [bottom];
    for (const v of victims) drop(v, 'own-cross', detail);
    work = work.filter((w) => !victims.includes(w));
  }

  // 7. collar and thresholds
  work = work.filter((w) => {
    const v =
      checkCollar(w.price, rules) ??
      checkStaticThreshold(w.price, rules) ??
      checkDynamicThreshold(w.price, input.lastPrice, rules);
    return v === null ? true : drop(w, v.rule as QuoteRule, v.message);
  });

  // 8. value limits
  const valueFloor = minimumValueWithMargin(rules);
  work = work.filter((w) => {
    if (w.price.mul(w.quantity).gt(rules.maximumOrderValue)) {
      const fit = largestSizeWithinValue(w.price, rules.maximumOrderValue, rules);
      if (fit === null)
        return drop(w, 'value-max', `even the minimum size is worth more than ${show(rules.maximumOrderValue)}`);
      note(
        w,
        'value-max',
        'adjusted',
        `size ${show(w.quantity)} cut to ${show(fit)}: value at most ${show(rules.maximumOrderValue)}`,
      );
      w.quantity = fit;
      w.cut = true;
    }
    const value = w.price.mul(w.quantity);
    return value.lt(valueFloor)
      ? drop(w, 'value-min', `value ${show(value)} is below ${show(valueFloor)} (minimum order value plus margin)`)
      : true;
  });

  // 9. maximumMatches
  if (rules.maximumMatches > 0) {
    const count: Record<Side, number> = { buy: 0, sell: 0 };
    work = work.toSorted(byLevel).filter((w) => {
      count[w.side] += 1;
      return count[w.side] <= rules.maximumMatches
        ? true
        : drop(w, 'max-matches', `only ${rules.maximumMatches} orders of a side can meet one incoming order`);
    });
  }

  // 10. funds
  const left: Record<Side, Decimal> = { buy: input.funds.quote, sell: input.funds.base };
  work = work.toSorted(byLevel).filter((w) => {
    const cost = quoteCost(w.side, w.price, w.quantity, rules, input.marketMaker);
    if (cost.lte(left[w.side])) {
      left[w.side] = left[w.side].sub(cost);
      return true;
    }
    const unit = w.side === 'buy' ? 'quote' : 'base';
    const fit = largestFundedSize(w.side, w.price, left[w.side], rules, input.marketMaker);
    if (fit === null || w.price.mul(fit).lt(valueFloor)) {
      return drop(w, 'funds', `needs ${show(cost)} ${unit}, ${show(left[w.side])} left for quoting`);
    }
    note(
      w,
      'funds',
      'adjusted',
      `size ${show(w.quantity)} cut to ${show(fit)}: ${show(left[w.side])} ${unit} left for quoting`,
    );
    left[w.side] = left[w.side].sub(quoteCost(w.side, w.price, fit, rules, input.marketMaker));
    w.quantity = fit;
    w.cut = true;
    return true;
  });

  // 11. fee floor for the final size; 12. every rule of the venue
  work = work.filter((w) => {
    if (w.cut && !w.pinned && !clearsFeeFloor(w.side, w.price, w.quantity, centre, fee)) {
      return drop(
        w,
        'fee-floor',
        `size ${show(w.quantity)} is too small to carry the refresh cost at ${show(w.price)}`,
      );
    }
    const violations = checkOrder(
      { ...DEFAULT_ORDER_OPTIONS, side: w.side, price: w.price, quantity: w.quantity },
      rules,
      { lastPrice: input.lastPrice },
    );
    return violations.length === 0
      ? true
      : drop(w, 'venue-rule', violations.map((v) => `${v.rule}: ${v.message}`).join('; '));
  });

  return {
    quotes: work.toSorted(bySide).map(({ side, level, price, quantity }) => ({ side, level, price, quantity })),
    reasons,
  };
}
