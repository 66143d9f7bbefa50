/**
 * Desired quotes against our live orders: which to keep, replace, place and cancel, with as few transactions
 * as possible (a keep costs none, a place or a cancel one, a replace two).
 *
 * Per side, a live order is kept for a desired quote when its price is within `priceToleranceTicks` ticks
 * (the tick at the desired price), its remaining size within `sizeTolerance`, and its price still passes the
 * price rules (tick, collar, thresholds). Keeps are matched greedily in price order, each desired quote
 * taking the lowest compatible live order: with tolerance windows that grow with the price this maximises
 * the number of keeps. A kept order whose price would not be strictly on its side of the other side's final
 * prices is replaced after all. The rest are paired by nearest price into replaces (place the new, then
 * cancel the old, so the level never leaves the book); desired quotes left over are placed, live orders
 * left over cancelled. `sequence.ts` then orders the actions.
 */
import type { Decimal } from '../core/decimal.ts';
import { checkCollar, checkDynamicThreshold, checkStaticThreshold, type PairRules } from '../core/rules.ts';
import { checkTick, tickAt } from '../core/ticks.ts';
import { sequenceActions, type Plan } from './sequence.ts';
import { show } from './show.ts';
import type { DesiredQuote, LiveOrder, QuoteAction, QuoteReason, Side } from './types.ts';

export interface DiffOptions {
  readonly rules: PairRules;
  readonly lastPrice: Decimal | null;
  readonly priceToleranceTicks: number;
  readonly sizeTolerance: Decimal;
  readonly marketMaker: boolean;
  /** What all our orders of a side may commit: base for asks, quote for bids (free plus locked). */
  readonly funds: { readonly base: Decimal; readonly quote: Decimal };
}

export interface DiffResult {
  readonly actions: QuoteAction[];
  readonly reasons: QuoteReason[];
}

interface Pair {
  readonly quote: DesiredQuote;
  readonly live: LiveOrder;
}

/**
 * Each live price's last answer, with the rules and the last price it was given for: a live order's price is
 * the same Decimal round after round, and the answer depends on it, the tick rules, the bands and the last price
 * alone (all immutable values), so while they are the same objects the answer is too.
 */
interface Validity {
  readonly tick: PairRules['tick'];
  readonly collarBps: PairRules['priceCollarBps'];
  readonly reference: PairRules['staticReferencePrice'];
  readonly staticBps: PairRules['staticThresholdBps'];
  readonly dynamicBps: PairRules['dynamicThresholdBps'];
  readonly lastPrice: Decimal | null;
  readonly valid: boolean;
}
const validities = new WeakMap<Decimal, Validity>();

function priceStillValid(price: Decimal, options: DiffOptions): boolean {
  const r = options.rules;
  const known = validities.get(price);
  if (
    known !== undefined &&
    known.tick === r.tick &&
    known.collarBps === r.priceCollarBps &&
    known.reference === r.staticReferencePrice &&
    known.staticBps === r.staticThresholdBps &&
    known.dynamicBps === r.dynamicThresholdBps &&
    known.lastPrice === options.lastPrice
  )
    return known.valid;
  const valid =
    checkTick(price, r.tick) === null &&
    checkCollar(price, r) === null &&
    checkStaticThreshold(price, r) === null &&
    checkDynamicThreshold(price, options.lastPrice, r) === null;
  validities.set(price, {
    tick: r.tick,
    collarBps: r.priceCollarBps,
    reference: r.staticReferencePrice,
    staticBps: r.staticThresholdBps,
    dynamicBps: r.dynamicThresholdBps,
    lastPrice: options.lastPrice,
    valid,
  });
  return valid;
}

/** The price distance within which a live order may stand for `quote`. */
function windowOf(quote: DesiredQuote, options: DiffOptions): Decimal {
  return tickAt(quote.price, options.rules.tick).mul(options.priceToleranceTicks);
}

function keepable(quote: DesiredQuote, window: Decimal, live: LiveOrder, options: DiffOptions): boolean {
  return (
    live.price.sub(quote.price).abs().lte(window) && live.quantity.sub(quote.quantity).abs().lte(options.sizeTolerance)
  );
}

/** Greedy keeps of one side: desired in ascending price, each taking the lowest compatible live order. */
function matchKeeps(desired: readonly DesiredQuote[], live: readonly LiveOrder[], options: DiffOptions): Pair[] {
  // A live order whose price the venue would no longer accept is never kept.
  const free = live.filter((l) => priceStillValid(l.price, options)).toSorted((a, b) => a.price.cmp(b.price));
  const pairs: Pair[] = [];
  for (const quote of desired.toSorted((a, b) => a.price.cmp(b.price))) {
    if (free.length === 0) break;
    const window = windowOf(quote, options);
    const i = free.findIndex((l) => keepable(quote, window, l, options));
    if (i < 0) continue;
    pairs.push({ quote, live: free[i] as LiveOrder });
    free.splice(i, 1);
  }
  return pairs;
}

/**
 * Keeps whose live price would sit at or across the other side's final prices are given up, the one
 * furthest from its desired price first, until every final bid is below every final ask.
 */
function releaseCrossingKeeps(keeps: Pair[], desired: readonly DesiredQuote[], reasons: QuoteReason[]): Pair[] {
  let kept = keeps;
  for (;;) {
    const keptQuotes = new Set(kept.map((k) => k.quote));
    const finals = desired.map((d) => {
      const k = keptQuotes.has(d) ? kept.find((p) => p.quote === d) : undefined;
      return { side: d.side, price: k ? k.live.price : d.price, keep: k };
    });
    const bids = finals.filter((f) => f.side === 'buy');
    const asks = finals.filter((f) => f.side === 'sell');
    const top = bids.reduce<(typeof finals)[number] | null>(
      (m, f) => (m === null || f.price.gt(m.price) ? f : m),
      null,
    );
    const bottom = asks.reduce<(typeof finals)[number] | null>(
      (m, f) => (m === null || f.price.lt(m.price) ? f : m),
      null,
    );
    if (top === null || bottom === null || top.price.lt(bottom.price)) return kept;
    const candidates = [top.keep, bottom.keep].filter((k): k is Pair => k !== undefined);
    const victim = candidates.toSorted((a, b) =>
      b.live.price.sub(b.quote.price).abs().cmp(a.live.price.sub(a.quote.price).abs()),
    )[0];
    if (victim === undefined) return kept; // two desired quotes cross: conformance never lets that happen
    reasons.push({
      side: victim.quote.side,
      level: victim.quote.level,
      rule: 'kept-order-replaced',
      action: 'adjusted',
      detail: `live order ${victim.live.id} at ${show(victim.live.price)} is within tolerance but would not be strictly inside our other side`,
    });
    kept = kept.filter((k) => k !== victim);
  }
}

/** Remaining desired quotes (from level 0 out) each take the remaining live order nearest in price. */
function pairReplaces(
  desired: readonly DesiredQuote[],
  live: readonly LiveOrder[],
): { replaces: Pair[]; places: DesiredQuote[]; cancels: LiveOrder[] } {
  const free = [...live];
  const replaces: Pair[] = [];
  const places: DesiredQuote[] = [];
  for (const quote of desired.toSorted((a, b) => a.level - b.level)) {
    let best = -1;
    for (let i = 0; i < free.length; i++) {
      const distance = (free[i] as LiveOrder).price.sub(quote.price).abs();
      if (best < 0 || distance.lt((free[best] as LiveOrder).price.sub(quote.price).abs())) best = i;
    }
    if (best < 0) places.push(quote);
    else replaces.push({ quote, live: free.splice(best, 1)[0] as LiveOrder });
  }
  return { replaces, places, cancels: free };
}

/** The actions that turn `live` into `desired`, in the order to carry them out. */
export function diffQuotes(
  desired: readonly DesiredQuote[],
  live: readonly LiveOrder[],
  options: DiffOptions,
): DiffResult {
  const reasons: QuoteReason[] = [];
  const sides: Side[] = ['buy', 'sell'];
  const candidateKeeps = sides.flatMap((side) =>
    matchKeeps(
      desired.filter((d) => d.side === side),
      live.filter((l) => l.side === side),
      options,
    ),
  );
  const keeps = releaseCrossingKeeps(candidateKeeps, desired, reasons);
  const keptQuotes = new Set(keeps.map((k) => k.quote));
  const keptLive = new Set(keeps.map((k) => k.live));
  const plan: Plan = { keeps, replaces: [], places: [], cancels: [] };
  for (const side of sides) {
    const rest = pairReplaces(
      desired.filter((d) => d.side === side && !keptQuotes.has(d)),
      live.filter((l) => l.side === side && !keptLive.has(l)),
    );
    plan.replaces.push(...rest.replaces);
    plan.places.push(...rest.places);
    plan.cancels.push(...rest.cancels);
  }
  const sequenced = sequenceActions(plan, live, options);
  return { actions: sequenced.actions, reasons: [...reasons, ...sequenced.reasons] };
}

/** Transactions the actions send: a replace is a place and a cancel. */
export function transactionCount(actions: readonly QuoteAction[]): number {
  return actions.reduce((n, a) => n + (a.type === 'keep' ? 0 : a.type === 'replace' ? 2 : 1), 0);
}
