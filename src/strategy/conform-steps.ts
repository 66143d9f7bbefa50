/**
 * The steps of `conformQuotes` (conform.ts lists them), each over the quotes still standing: a step keeps,
 * adjusts (price to the passive side, size down) or drops a quote, recording why through the `Conforming`
 * it is given.
 */
import type { Decimal } from '../core/decimal.ts';
import { DEFAULT_ORDER_OPTIONS } from '../core/order-terms.ts';
import { checkCollar, checkDynamicThreshold, checkOrder, checkStaticThreshold, type PairRules } from '../core/rules.ts';
import { snapToTick, tickDown, tickUp } from '../core/ticks.ts';
import type { OthersBook } from './book.ts';
import { clearsFeeFloor, minimumHalfSpread, type FeeFloorParams } from './fee-floor.ts';
import { largestFundedSize, largestSizeWithinValue, quoteCost, roundSizeDown } from './sizing.ts';
import { show } from './show.ts';
import type { DesiredQuote, QuoteRule, Side } from './types.ts';

export interface Work {
  side: Side;
  level: number;
  price: Decimal;
  quantity: Decimal;
  /** Cut by the value maximum or by funds (step 11 applies). */
  cut: boolean;
  /** Held to obligations: no fee floor. */
  pinned: boolean;
}

export type Placed = Pick<Work, 'side' | 'level'>;
const sideRank = (p: Placed) => (p.side === 'buy' ? 0 : 1);
/** Level 0 of both sides first: the order in which a level's limits (matches, funds) are handed out. */
export const byLevel = (a: Placed, b: Placed) => a.level - b.level || sideRank(a) - sideRank(b);
export const bySide = (a: Placed, b: Placed) => sideRank(a) - sideRank(b) || a.level - b.level;

/** What every step reads, and how it records a quote adjusted or dropped. */
export interface Conforming {
  readonly rules: PairRules;
  readonly centre: Decimal;
  readonly book: OthersBook;
  readonly lastPrice: Decimal | null;
  readonly marketMaker: boolean;
  readonly funds: { readonly base: Decimal; readonly quote: Decimal };
  readonly fee: FeeFloorParams;
  /** The minimum order value plus margin. */
  readonly valueFloor: Decimal;
  readonly note: (w: Placed, rule: QuoteRule, action: 'dropped' | 'adjusted', detail: string) => void;
  /** Notes the quote dropped; false, for `filter`. */
  readonly drop: (w: Placed, rule: QuoteRule, detail: string) => false;
}

/** 1. size rounded down to the size grid, level 0 of both sides first. */
export function sized(
  c: Conforming,
  quotes: readonly DesiredQuote[],
  pinnedQuote: ((quote: DesiredQuote) => boolean) | undefined,
): Work[] {
  const work: Work[] = [];
  for (const q of quotes.toSorted(byLevel)) {
    const quantity = roundSizeDown(q.quantity, c.rules);
    const pinned = pinnedQuote?.(q) ?? false;
    if (quantity === null)
      c.drop(q, 'size', `size ${show(q.quantity)} is below the minimum size ${show(c.rules.minimumSize)}`);
    else work.push({ side: q.side, level: q.level, price: q.price, quantity, cut: false, pinned });
  }
  return work;
}

/** 2-4. fee floor, tick, passivity: whether the quote stays (its price moved to where it may rest). */
export function passivelyPriced(c: Conforming, w: Work): boolean {
  const { rules, centre, note, drop } = c;
  const bestAsk = c.book.asks[0]?.price ?? null;
  const bestBid = c.book.bids[0]?.price ?? null;
  const h = minimumHalfSpread(centre, w.quantity, c.fee);
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
}

/** 5. one quote per price and side: the first (nearest) level keeps it. */
export function onePerPrice(c: Conforming, work: readonly Work[]): Work[] {
  const taken = new Set<string>();
  return work.filter((w) => {
    const key = `${w.side}@${show(w.price)}`;
    if (taken.has(key)) return c.drop(w, 'collapsed', `another level of this side already quotes ${show(w.price)}`);
    taken.add(key);
    return true;
  });
}

/** 6. bids strictly below asks: the deeper of a crossing pair dropped (both at one level), until none cross. */
export function uncrossed(c: Conforming, quotes: readonly Work[]): Work[] {
  let work = [...quotes];
  for (;;) {
    const bids = work.filter((w) => w.side === 'buy');
    const asks = work.filter((w) => w.side === 'sell');
    const top = bids.reduce<Work | null>((m, w) => (m === null || w.price.gt(m.price) ? w : m), null);
    const bottom = asks.reduce<Work | null>((m, w) => (m === null || w.price.lt(m.price) ? w : m), null);
    if (top === null || bottom === null || top.price.lt(bottom.price)) return work;
    const detail = `bid ${show(top.price)} (level ${top.level}) is not below ask ${show(bottom.price)} (level ${bottom.level})`;
    const victims = top.level === bottom.level ? [top, bottom] : top.level > bottom.level ? [top] : [bottom];
    for (const v of victims) c.drop(v, 'own-cross', detail);
    work = work.filter((w) => !victims.includes(w));
  }
}

/** 7. collar and thresholds: whether the quote is inside them. */
export function withinBands(c: Conforming, w: Work): boolean {
  const v =
    checkCollar(w.price, c.rules) ??
    checkStaticThreshold(w.price, c.rules) ??
    checkDynamicThreshold(w.price, c.lastPrice, c.rules);
  return v === null ? true : c.drop(w, v.rule as QuoteRule, v.message);
}

/** 8. value limits: whether the quote stays (its size cut to the maximum value). */
export function withinValue(c: Conforming, w: Work): boolean {
  const { rules, note, drop } = c;
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
  return value.lt(c.valueFloor)
    ? drop(w, 'value-min', `value ${show(value)} is below ${show(c.valueFloor)} (minimum order value plus margin)`)
    : true;
}

/** 9. at most maximumMatches quotes per side (when > 0), the nearest levels kept. */
export function withinMatches(c: Conforming, work: readonly Work[]): Work[] {
  const max = c.rules.maximumMatches;
  if (max > 0) {
    const count: Record<Side, number> = { buy: 0, sell: 0 };
    return work.toSorted(byLevel).filter((w) => {
      count[w.side] += 1;
      return count[w.side] <= max
        ? true
        : c.drop(w, 'max-matches', `only ${max} orders of a side can meet one incoming order`);
    });
  }
  return [...work];
}

/** 10. funds: each side from level 0 outwards within what is left; the last funded level cut to fit. */
export function funded(c: Conforming, work: readonly Work[]): Work[] {
  const { rules, marketMaker, note, drop } = c;
  const left: Record<Side, Decimal> = { buy: c.funds.quote, sell: c.funds.base };
  return work.toSorted(byLevel).filter((w) => {
    const cost = quoteCost(w.side, w.price, w.quantity, rules, marketMaker);
    if (cost.lte(left[w.side])) {
      left[w.side] = left[w.side].sub(cost);
      return true;
    }
    const unit = w.side === 'buy' ? 'quote' : 'base';
    const fit = largestFundedSize(w.side, w.price, left[w.side], rules, marketMaker);
    if (fit === null || w.price.mul(fit).lt(c.valueFloor)) {
      return drop(w, 'funds', `needs ${show(cost)} ${unit}, ${show(left[w.side])} left for quoting`);
    }
    note(
      w,
      'funds',
      'adjusted',
      `size ${show(w.quantity)} cut to ${show(fit)}: ${show(left[w.side])} ${unit} left for quoting`,
    );
    left[w.side] = left[w.side].sub(quoteCost(w.side, w.price, fit, rules, marketMaker));
    w.quantity = fit;
    w.cut = true;
    return true;
  });
}

/** 11. fee floor for the final size; 12. every rule of the venue: whether the quote passes both. */
export function venueAccepts(c: Conforming, w: Work): boolean {
  if (w.cut && !w.pinned && !clearsFeeFloor(w.side, w.price, w.quantity, c.centre, c.fee)) {
    return c.drop(
      w,
      'fee-floor',
      `size ${show(w.quantity)} is too small to carry the refresh cost at ${show(w.price)}`,
    );
  }
  const violations = checkOrder(
    { ...DEFAULT_ORDER_OPTIONS, side: w.side, price: w.price, quantity: w.quantity },
    c.rules,
    { lastPrice: c.lastPrice },
  );
  return violations.length === 0
    ? true
    : c.drop(w, 'venue-rule', violations.map((v) => `${v.rule}: ${v.message}`).join('; '));
}
