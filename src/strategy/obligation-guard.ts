/**
 * The obligation guard of quote conformance. When a pair has market-making obligations and the model's
 * conformed quotes hold no bid and ask that meet them, one bid and one ask that do take the model's level 0:
 * pulled inside the maximum spread around the model's centre (never pushed out: a level already inside stays
 * where the model put it) and raised to the minimum size, the two sides made comparable. They are exempt
 * from the fee floor (the agreement is a commitment the firm signed) but pass every other step of
 * conformance, so the venue's rules and the funds the wallet holds still bind. When a step still keeps them
 * from meeting the terms, the outcome names the limit that forced the breach.
 */
import { Decimal } from '../core/decimal.ts';
import { quotesComply } from '../core/obligation-search.ts';
import { assessQuotes, type SizeLimit } from '../core/obligations.ts';
import type { PairRules } from '../core/rules.ts';
import { snapToTick, tickAt, tickDown, tickUp } from '../core/ticks.ts';
import { conformQuotes, type ConformInput, type ConformResult } from './conform.ts';
import { raw, rulesOf } from './guard-rules.ts';
import { roundSizeDown } from './sizing.ts';
import type { DesiredQuote, GuardOutcome, GuardTerms, LiveOrder, QuoteReason, Side } from './types.ts';

export type { GuardOutcome, GuardTerms } from './types.ts';

const ZERO = new Decimal(0);

/** Whether these quotes (desired, or live orders) hold a bid and an ask that meet the terms. */
export function meetsTerms(quotes: readonly (DesiredQuote | LiveOrder)[], terms: GuardTerms, pair: PairRules): boolean {
  return quotesComply(
    quotes.map((q) => raw(q, pair)),
    rulesOf(terms, pair),
    false,
  );
}

/**
 * Whether these quotes meet the terms and still do after a taker takes our best bid, or our best ask, whole:
 * what the guard's reserves are for.
 */
export function meetsTermsAfterAFill(
  quotes: readonly (DesiredQuote | LiveOrder)[],
  terms: GuardTerms,
  pair: PairRules,
): boolean {
  const without = (side: Side) => {
    const mine = quotes.filter((q) => q.side === side);
    if (mine.length === 0) return quotes;
    const best = mine.reduce((a, b) => (side === 'buy' ? (b.price.gt(a.price) ? b : a) : b.price.lt(a.price) ? b : a));
    return quotes.filter((q) => q !== best);
  };
  return (
    meetsTerms(quotes, terms, pair) &&
    meetsTerms(without('buy'), terms, pair) &&
    meetsTerms(without('sell'), terms, pair)
  );
}

/** The smallest valid size not below `quantity`. */
function roundSizeUp(quantity: Decimal, pair: PairRules): Decimal {
  if (quantity.lte(pair.minimumSize)) return pair.minimumSize;
  return pair.minimumSize.add(quantity.sub(pair.minimumSize).div(pair.sizeIncrement).ceil().mul(pair.sizeIncrement));
}

function measure(unit: SizeLimit['unit'], price: Decimal, quantity: Decimal): Decimal {
  return unit === 'base' ? quantity : quantity.mul(price);
}

/** Base size that meets the minimum at `price`. */
function minimumAt(price: Decimal, terms: GuardTerms, pair: PairRules): Decimal {
  return roundSizeUp(terms.minSize.unit === 'base' ? terms.minSize.value : terms.minSize.value.div(price), pair);
}

/** Sizes of the two sides made comparable: the larger cut towards the smaller, else the smaller raised. */
function comparable(
  bid: { price: Decimal; quantity: Decimal },
  ask: { price: Decimal; quantity: Decimal },
  terms: GuardTerms,
  pair: PairRules,
): [Decimal, Decimal] {
  const unit = terms.minSize.unit;
  const r = new Decimal(terms.maxSizeRatio);
  const mb = measure(unit, bid.price, bid.quantity);
  const ma = measure(unit, ask.price, ask.quantity);
  const ok = (x: Decimal, y: Decimal) =>
    Decimal.max(x, y)
      .sub(Decimal.min(x, y))
      .lte(r.mul(Decimal.max(x, y)));
  if (ok(mb, ma)) return [bid.quantity, ask.quantity];
  const bidLarger = mb.gt(ma);
  const large = bidLarger ? bid : ask;
  const small = bidLarger ? ask : bid;
  const smallMeasure = bidLarger ? ma : mb;
  if (r.lt(1)) {
    // Largest measure the larger side may have: smaller / (1 - r).
    const cap = smallMeasure.div(new Decimal(1).sub(r));
    const cut = roundSizeDown(unit === 'base' ? cap : cap.div(large.price), pair);
    if (
      cut !== null &&
      cut.gte(minimumAt(large.price, terms, pair)) &&
      ok(measure(unit, large.price, cut), smallMeasure)
    ) {
      return bidLarger ? [cut, small.quantity] : [small.quantity, cut];
    }
  }
  const floor = measure(unit, large.price, large.quantity).mul(new Decimal(1).sub(r));
  const raised = roundSizeUp(unit === 'base' ? floor : floor.div(small.price), pair);
  return bidLarger ? [large.quantity, raised] : [raised, large.quantity];
}

export interface GuardInput {
  readonly terms: GuardTerms;
  /** The model's quotes before conformance. */
  readonly model: readonly DesiredQuote[];
  /** What conformance made of them. */
  readonly conformed: ConformResult;
  /** Everything conformance needs besides the quotes (the same inputs the model's quotes went through). */
  readonly conform: Omit<ConformInput, 'quotes' | 'pinned'>;
  /** Ticks within which the diff keeps a live order: the guard keeps that far inside the limit. */
  readonly priceToleranceTicks: number;
}

export interface GuardResult extends ConformResult {
  readonly outcome: GuardOutcome;
}

/** The guarded quotes (level 0) and their reserves (level 1); the model's own levels come after. */
const isGuarded = (q: { level: number }): boolean => q.level <= 1;

/** The level-0 bid and ask the terms want around the centre: the model's where they already meet them. */
function pinnedPair(input: GuardInput): DesiredQuote[] {
  const { terms, conform } = input;
  const pair = conform.rules;
  const c = conform.centre;
  // Half of the largest spread around the centre, less the diff's tolerance on each side, so that an order the
  // diff keeps within tolerance of the guard's price still meets the terms.
  const maxHalf =
    terms.maxSpread.unit === 'bps' ? c.mul(terms.maxSpread.value).div(20_000) : terms.maxSpread.value.div(2);
  const slack = tickAt(c, pair.tick).mul(input.priceToleranceTicks + 1);
  const half = maxHalf.sub(slack).gt(0) ? maxHalf.sub(slack) : maxHalf;
  const level0 = (side: Side) => input.model.filter((q) => q.side === side).toSorted((a, b) => a.level - b.level)[0];
  const b0 = level0('buy');
  const a0 = level0('sell');
  let bidPrice = b0 !== undefined && b0.price.gte(c.sub(half)) ? b0.price : c.sub(half);
  let askPrice = a0 !== undefined && a0.price.lte(c.add(half)) ? a0.price : c.add(half);
  // Snapped inwards: a bid up, an ask down, so that snapping never widens the spread.
  bidPrice = bidPrice.gt(ZERO) ? snapToTick(bidPrice, 'sell', pair.tick) : bidPrice;
  askPrice = askPrice.gt(ZERO) ? snapToTick(askPrice, 'buy', pair.tick) : askPrice;
  if (bidPrice.gte(askPrice)) bidPrice = tickDown(askPrice, pair.tick);
  const wanted = (side: Side, price: Decimal) => {
    const q = side === 'buy' ? b0 : a0;
    const min = minimumAt(price, terms, pair);
    return q === undefined || q.quantity.lt(min) ? min : (roundSizeDown(q.quantity, pair) ?? min);
  };
  const [bidQty, askQty] = comparable(
    { price: bidPrice, quantity: wanted('buy', bidPrice) },
    { price: askPrice, quantity: wanted('sell', askPrice) },
    terms,
    pair,
  );
  return [
    { side: 'buy', level: 0, price: bidPrice, quantity: bidQty },
    { side: 'sell', level: 0, price: askPrice, quantity: askQty },
  ];
}

/** Why the guarded quotes still miss the terms: the rule that cut or dropped one, else the terms' shortfall. */
function breachOf(
  reasons: readonly QuoteReason[],
  quotes: readonly DesiredQuote[],
  input: GuardInput,
): Extract<GuardOutcome, { status: 'breach' }> {
  const pair = input.conform.rules;
  const level0 = reasons.filter((r) => r.level === 0);
  const cause = level0.find((r) => r.action === 'dropped') ?? level0.find((r) => r.action === 'adjusted');
  const shortfall = assessQuotes(
    quotes.map((q) => raw(q, pair)),
    rulesOf(input.terms, pair),
    false,
  ).shortfall;
  const limit =
    cause === undefined
      ? shortfall === 'spread'
        ? 'tick'
        : `terms:${shortfall ?? 'unknown'}`
      : cause.rule === 'funds'
        ? 'funds'
        : `venue:${cause.rule}`;
  const detail =
    cause?.detail ??
    (shortfall === 'spread'
      ? `the tick grid leaves no bid and ask within the maximum spread around ${input.conform.centre.toFixed()}`
      : `no bid and ask meet the terms (${shortfall ?? 'unknown'})`);
  return { status: 'breach', limit, detail };
}

export function guardQuotes(input: GuardInput): GuardResult {
  const { terms, conform } = input;
  const pair = conform.rules;
  if (meetsTerms(input.conformed.quotes, terms, pair)) return { ...input.conformed, outcome: { status: 'compliant' } };
  const pinned = pinnedPair(input);
  const [bid, ask] = pinned as [DesiredQuote, DesiredQuote];
  // A reserve one tick behind each guarded quote, of the same size: a taker that takes the guarded quote whole
  // leaves the reserve as our best, still within the maximum spread (the guard keeps at least a tick inside it),
  // so the side stays present while its replacement travels instead of being absent for a block or two.
  const reserve = (q: DesiredQuote): DesiredQuote => ({
    ...q,
    level: 1,
    price: q.side === 'buy' ? tickDown(q.price, pair.tick) : tickUp(q.price, pair.tick),
  });
  const deeper = input.model
    .filter((q) => q.level > 0 && (q.side === 'buy' ? q.price.lt(bid.price) : q.price.gt(ask.price)))
    .map((q) => ({ ...q, level: q.level + 1 }));
  const run = (quotes: DesiredQuote[]) =>
    conformQuotes({
      ...conform,
      quotes: [...quotes, ...quotes.filter((q) => q.level === 0 && q.price.gt(ZERO)).map(reserve), ...deeper],
      pinned: isGuarded,
    });
  let result = run(pinned);
  const firstReasons = result.reasons;
  const cutBid = result.quotes.find((q) => q.side === 'buy' && q.level === 0);
  const cutAsk = result.quotes.find((q) => q.side === 'sell' && q.level === 0);
  if (!meetsTerms(result.quotes, terms, pair) && cutBid !== undefined && cutAsk !== undefined) {
    // A side cut on the way (funds, the value maximum): the other side is brought back into proportion.
    const [b, a] = comparable(cutBid, cutAsk, terms, pair);
    result = run([
      { ...cutBid, quantity: b },
      { ...cutAsk, quantity: a },
    ]);
  }
  const adjusted: QuoteReason[] = pinned.map((q) => ({
    side: q.side,
    level: 0,
    rule: 'obligations',
    action: 'adjusted',
    detail: `held to the obligations: ${q.quantity.toFixed()} at ${q.price.toFixed()}`,
  }));
  const reasons = [...adjusted, ...result.reasons];
  if (meetsTerms(result.quotes, terms, pair)) return { quotes: result.quotes, reasons, outcome: { status: 'guarded' } };
  // What cut or dropped a guarded quote, in either pass (a cut in the first pass is why the second was needed).
  return {
    quotes: result.quotes,
    reasons,
    outcome: breachOf([...firstReasons, ...result.reasons], result.quotes, input),
  };
}
