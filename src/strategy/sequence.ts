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

/** The plan being carried out: what rests of ours and what each side has left, as actions are added. */
class Sequencer {
  readonly #options: SequenceOptions;
  /** Each order's cost once: the loop asks again and again. */
  readonly #costs = new Map<object, Decimal>();
  readonly #resting: Map<object, Resting>;
  readonly available: Record<Side, Decimal>;
  readonly actions: QuoteAction[] = [];
  readonly reasons: QuoteReason[] = [];

  constructor(live: readonly LiveOrder[], options: SequenceOptions) {
    this.#options = options;
    this.#resting = new Map<object, Resting>(live.map((l) => [l, l]));
    this.available = { buy: options.funds.quote, sell: options.funds.base };
    for (const l of live) this.available[l.side] = this.available[l.side].sub(this.costOf(l));
  }

  costOf(quote: DesiredQuote | LiveOrder): Decimal {
    let c = this.#costs.get(quote);
    if (c === undefined) {
      c = quoteCost(quote.side, quote.price, quote.quantity, this.#options.rules, this.#options.marketMaker);
      this.#costs.set(quote, c);
    }
    return c;
  }

  cancel(l: LiveOrder): void {
    this.actions.push({ type: 'cancel', orderId: l.id, side: l.side });
    this.#resting.delete(l);
    this.available[l.side] = this.available[l.side].add(this.costOf(l));
  }

  crossesOurs(q: DesiredQuote): boolean {
    for (const r of this.#resting.values()) {
      if (r.side !== q.side && (q.side === 'buy' ? r.price.lte(q.price) : r.price.gte(q.price))) return true;
    }
    return false;
  }

  fits(q: DesiredQuote, extra: Decimal | null): boolean {
    const room = extra === null ? this.available[q.side] : this.available[q.side].add(extra);
    return this.costOf(q).lte(room);
  }

  send(step: Step): void {
    const q = step.quote;
    this.actions.push(
      step.live === null ? { type: 'place', quote: q } : { type: 'replace', orderId: step.live.id, quote: q },
    );
    this.#resting.set(q, q);
    this.available[q.side] = this.available[q.side].sub(this.costOf(q));
    if (step.live !== null) {
      this.#resting.delete(step.live);
      this.available[step.live.side] = this.available[step.live.side].add(this.costOf(step.live));
    }
  }

  /** What is left cannot be funded (or, against every guarantee above, would cross our own orders). */
  drop(pending: readonly Step[]): void {
    for (const s of pending) {
      const crossing = this.crossesOurs(s.quote);
      if (s.live !== null) this.cancel(s.live);
      this.reasons.push({
        side: s.quote.side,
        level: s.quote.level,
        rule: crossing ? 'own-cross' : 'funds',
        action: 'dropped',
        detail: crossing
          ? `${show(s.quote.price)} would cross an order of ours that stays`
          : `needs ${show(this.costOf(s.quote))}, ${show(this.available[s.quote.side])} left after the orders that stay`,
      });
    }
  }
}

export function sequenceActions(
  plan: Plan,
  live: readonly LiveOrder[],
  options: SequenceOptions,
): { actions: QuoteAction[]; reasons: QuoteReason[] } {
  const q = new Sequencer(live, options);
  for (const l of plan.cancels) q.cancel(l);
  const pending: Step[] = [
    ...plan.replaces.map((r) => ({ quote: r.quote, live: r.live as LiveOrder | null })),
    ...plan.places.map((quote) => ({ quote, live: null })),
  ].toSorted(
    (a, b) => a.quote.level - b.quote.level || (a.quote.side === b.quote.side ? 0 : a.quote.side === 'buy' ? -1 : 1),
  );
  while (pending.length > 0) {
    const ready = pending.filter((s) => !q.crossesOurs(s.quote));
    const now = ready.find((s) => q.fits(s.quote, null));
    if (now !== undefined) {
      q.send(now);
      pending.splice(pending.indexOf(now), 1);
      continue;
    }
    // Nothing fits while its old order rests: cancel an old order first, preferring one whose release
    // makes its own replacement fit.
    const split =
      ready.find((s) => s.live !== null && q.fits(s.quote, q.costOf(s.live))) ?? ready.find((s) => s.live !== null);
    if (split?.live) {
      q.cancel(split.live);
      split.live = null;
      continue;
    }
    q.drop(pending);
    break;
  }
  for (const k of plan.keeps) q.actions.push({ type: 'keep', orderId: k.live.id, quote: k.quote, live: k.live });
  return { actions: q.actions, reasons: q.reasons };
}
