/**
 * The order in which the order manager carries out a plan, so that at no moment
 *  - a new order of ours crosses one of ours still resting (it would trade with us, or be rejected as a
 *    self-trade), and
 *  - our resting orders of a side commit more than the wallet holds for quoting (free plus locked).
 *
 * Cancels go first: they only remove orders and release funds. Places and replaces follow from level 0
 * outwards, each as soon as it crosses nothing of ours and fits the funds left; a replace that does not fit
 * while its old order still rests becomes "cancel the old, then place the new" (the same two transactions).
 * Some order always exists: a bid b can only wait for an ask replace whose old price is <= b, and that one
 * only for a bid replace whose old price is >= its new ask a; with old bids below old asks and new bids
 * below new asks, b >= old ask > old bid >= a > b is impossible, so the waits never form a cycle. Only a
 * quote that cannot be funded at all is dropped (its old order, if any, is still cancelled).
 */
import type { Decimal } from '../core/decimal.ts';
import type { PairRules } from '../core/rules.ts';
import { quoteCost } from './sizing.ts';
import { show } from './show.ts';
import type { DesiredQuote, LiveOrder, QuoteAction, QuoteReason, Side } from './types.ts';

export interface Plan {
  readonly keeps: Array<{ readonly quote: DesiredQuote; readonly live: LiveOrder }>;
  readonly replaces: Array<{ readonly quote: DesiredQuote; readonly live: LiveOrder }>;
  readonly places: DesiredQuote[];
  readonly cancels: LiveOrder[];
}

export interface SequenceOptions {
  readonly rules: PairRules;
  readonly marketMaker: boolean;
  readonly funds: { readonly base: Decimal; readonly quote: Decimal };
}

interface Resting {
  readonly side: Side;
  readonly price: Decimal;
}

interface Step {
  readonly quote: DesiredQuote;
  /** The live order this quote replaces, until it has been cancelled. */
  live: LiveOrder | null;
}

export function sequenceActions(
  plan: Plan,
  live: readonly LiveOrder[],
  options: SequenceOptions,
): { actions: QuoteAction[]; reasons: QuoteReason[] } {
  // Each order's cost once: the loop below asks again and again.
  const costs = new Map<object, Decimal>();
  const costOf = (o: DesiredQuote | LiveOrder): Decimal => {
    let c = costs.get(o);
    if (c === undefined) costs.set(o, (c = quoteCost(o.side, o.price, o.quantity, options.rules, options.marketMaker)));
    return c;
  };
  const resting = new Map<object, Resting>(live.map((l) => [l, l]));
  const available: Record<Side, Decimal> = { buy: options.funds.quote, sell: options.funds.base };
  for (const l of live) available[l.side] = available[l.side].sub(costOf(l));

  const actions: QuoteAction[] = [];
  const reasons: QuoteReason[] = [];
  const cancel = (l: LiveOrder) => {
    actions.push({ type: 'cancel', orderId: l.id, side: l.side });
    resting.delete(l);
    available[l.side] = available[l.side].add(costOf(l));
  };
  const crossesOurs = (q: DesiredQuote) => {
    for (const r of resting.values()) {
      if (r.side !== q.side && (q.side === 'buy' ? r.price.lte(q.price) : r.price.gte(q.price))) return true;
    }
    return false;
  };
  const fits = (q: DesiredQuote, extra: Decimal | null) => {
    const room = extra === null ? available[q.side] : available[q.side].add(extra);
    return costOf(q).lte(room);
  };
  const send = (step: Step) => {
    const q = step.quote;
    actions.push(
      step.live === null ? { type: 'place', quote: q } : { type: 'replace', orderId: step.live.id, quote: q },
    );
    resting.set(q, q);
    available[q.side] = available[q.side].sub(costOf(q));
    if (step.live !== null) {
      resting.delete(step.live);
      available[step.live.side] = available[step.live.side].add(costOf(step.live));
    }
  };

  for (const l of plan.cancels) cancel(l);
  const pending: Step[] = [
    ...plan.replaces.map((r) => ({ quote: r.quote, live: r.live as LiveOrder | null })),
    ...plan.places.map((quote) => ({ quote, live: null })),
  ].toSorted(
    (a, b) => a.quote.level - b.quote.level || (a.quote.side === b.quote.side ? 0 : a.quote.side === 'buy' ? -1 : 1),
  );

  while (pending.length > 0) {
    const ready = pending.filter((s) => !crossesOurs(s.quote));
    const now = ready.find((s) => fits(s.quote, null));
    if (now !== undefined) {
      send(now);
      pending.splice(pending.indexOf(now), 1);
      continue;
    }
    // Nothing fits while its old order rests: cancel an old order first, preferring one whose release
    // makes its own replacement fit.
    const split =
      ready.find((s) => s.live !== null && fits(s.quote, costOf(s.live))) ?? ready.find((s) => s.live !== null);
    if (split?.live) {
      cancel(split.live);
      split.live = null;
      continue;
    }
    // What is left cannot be funded (or, against every guarantee above, would cross our own orders).
    for (const s of pending) {
      const crossing = crossesOurs(s.quote);
      if (s.live !== null) cancel(s.live);
      reasons.push({
        side: s.quote.side,
        level: s.quote.level,
        rule: crossing ? 'own-cross' : 'funds',
        action: 'dropped',
        detail: crossing
          ? `${show(s.quote.price)} would cross an order of ours that stays`
          : `needs ${show(costOf(s.quote))}, ${show(available[s.quote.side])} left after the orders that stay`,
      });
    }
    break;
  }
  for (const k of plan.keeps) actions.push({ type: 'keep', orderId: k.live.id, quote: k.quote, live: k.live });
  return { actions, reasons };
}
