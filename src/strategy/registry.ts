/**
 * The engine's one entry point into the strategies: the model of a strategy's `kind`, then conformance to
 * the venue's rules, then the diff against our live orders. Pure: the same inputs give the same outputs, and
 * the state a model keeps comes in and goes out as plain JSON.
 */
import type { StrategyConfig } from '../core/config/strategy-config.ts';
import { Decimal } from '../core/decimal.ts';
import type { PairRules } from '../core/rules.ts';
import { othersBook } from './book.ts';
import { conformQuotes } from './conform.ts';
import { diffQuotes } from './diff.ts';
import { guardQuotes, meetsTerms, meetsTermsAfterAFill } from './obligation-guard.ts';
import {
  avellanedaStoikovModel,
  ladderModel,
  type Model,
  type ModelInput,
  type ModelOutput,
  type StrategyState,
} from './models.ts';
import { referencePrice } from './reference-price.ts';
import { show } from './show.ts';
import type {
  DesiredQuote,
  GuardOutcome,
  GuardTerms,
  Inventory,
  LiveOrder,
  MarketView,
  QuoteAction,
  QuoteContext,
  QuoteReason,
  StrategyResult,
} from './types.ts';

export type { StrategyState } from './models.ts';

type Kind = StrategyConfig['kind'];

/** `kind` -> model. A new model is a new entry here and a new member of the schema's union. */
export const MODELS: { readonly [K in Kind]: Model<Extract<StrategyConfig, { kind: K }>> } = {
  ladder: ladderModel,
  'avellaneda-stoikov': avellanedaStoikovModel,
};

/** The engine's risk gate: may only remove or shrink quotes (what it returns must still pass the venue rules). */
export type QuoteGate = (quotes: readonly DesiredQuote[]) => {
  readonly quotes: readonly DesiredQuote[];
  readonly reasons: readonly QuoteReason[];
};

export interface ComputeOutput {
  readonly result: StrategyResult;
  readonly nextState: StrategyState;
}

function runModel(config: StrategyConfig, input: ModelInput, state: StrategyState): ModelOutput {
  // MODELS pairs every kind with the model of that kind's config, so the entry fits this config.
  return (MODELS[config.kind] as Model<StrategyConfig>)(config, input, state);
}

type DiffOptions = Parameters<typeof diffQuotes>[2];

/** No reference price: nothing of ours should stay on the book. */
function blind(
  config: StrategyConfig,
  context: QuoteContext,
  diffOptions: DiffOptions,
  state: StrategyState,
): ComputeOutput {
  const diff = diffQuotes([], context.liveOrders, diffOptions);
  const detail = `none of ${config.referencePrice.join(', ')} is available`;
  return {
    result: {
      quotes: [],
      actions: diff.actions,
      reasons: [{ side: null, level: null, rule: 'no-reference', action: 'none', detail }],
      reference: null,
      diagnostics: {},
      ...(context.obligations === undefined
        ? {}
        : { obligations: { status: 'breach', limit: 'no-reference', detail } as const }),
    },
    nextState: state,
  };
}

/** The conformed quotes held to the obligations (when the pair has terms), then through the risk gate. */
function guardedAndGated(
  conformed: ReturnType<typeof conformQuotes>,
  guard: Omit<Parameters<typeof guardQuotes>[0], 'conformed' | 'terms'> & { readonly terms: GuardTerms | undefined },
  rules: PairRules,
  gate: QuoteGate | undefined,
): { conformed: ReturnType<typeof conformQuotes>; gated: ReturnType<QuoteGate>; obligations?: GuardOutcome } {
  const { terms } = guard;
  let obligations: GuardOutcome | undefined;
  if (terms !== undefined) {
    const held = guardQuotes({ ...guard, terms, conformed });
    conformed = held;
    obligations = held.outcome;
  }
  const gated = gate === undefined ? { quotes: conformed.quotes, reasons: [] } : gate(conformed.quotes);
  if (terms !== undefined && obligations?.status !== 'breach' && !meetsTerms(gated.quotes, terms, rules)) {
    // The risk gate cut what met the obligations: the limit forces the breach.
    const cut = gated.reasons.find((r) => r.level === 0) ?? gated.reasons[0];
    obligations = {
      status: 'breach',
      limit: `risk:${cut?.limit ?? 'gate'}`,
      detail: cut?.detail ?? 'the risk gate removed the quotes that met the obligations',
    };
  }
  return { conformed, gated, ...(obligations === undefined ? {} : { obligations }) };
}

/** The actions towards `quotes`; with every tolerance off when a kept order would leave the pair outside its terms. */
function diffWithin(
  quotes: readonly DesiredQuote[],
  live: QuoteContext['liveOrders'],
  diffOptions: DiffOptions,
  terms: GuardTerms | undefined,
  obligations: GuardOutcome | undefined,
): ReturnType<typeof diffQuotes> {
  const diff = diffQuotes(quotes, live, diffOptions);
  if (terms === undefined || obligations?.status === 'breach') return diff;
  // Guarded quotes come with reserves: the book must keep the terms after a fill of either best quote too.
  const book = bookAfter(diff.actions);
  const holds =
    obligations?.status === 'guarded'
      ? meetsTermsAfterAFill(book, terms, diffOptions.rules)
      : meetsTerms(book, terms, diffOptions.rules);
  if (holds) return diff;
  // A live order kept within the refresh tolerance would leave the pair outside the terms: replace instead.
  return diffQuotes(quotes, live, { ...diffOptions, priceToleranceTicks: 0, sizeTolerance: new Decimal(0) });
}

/**
 * Desired quotes for one pair, checked against every venue rule, and the actions that get our live orders
 * there. A quote dropped or changed on the way is in `reasons` with its rule.
 */
export function computeQuotes(
  config: StrategyConfig,
  market: MarketView,
  inventory: Inventory,
  rules: PairRules,
  context: QuoteContext,
  state: StrategyState,
  gate?: QuoteGate,
): ComputeOutput {
  // The market view carries the current static reference price; the pair record may be a day old.
  const pairRules: PairRules =
    market.staticReferencePrice === null ? rules : { ...rules, staticReferencePrice: market.staticReferencePrice };
  const book = othersBook(market, context.ownOrders ?? context.liveOrders);
  const funds = {
    base: inventory.base.free.add(inventory.base.locked),
    quote: inventory.quote.free.add(inventory.quote.locked),
  };
  const diffOptions: DiffOptions = {
    rules: pairRules,
    lastPrice: market.lastPrice,
    priceToleranceTicks: config.refresh.priceToleranceTicks,
    sizeTolerance: new Decimal(config.refresh.sizeTolerance),
    marketMaker: context.marketMaker,
    funds,
  };
  const reference = referencePrice(config.referencePrice, {
    book,
    lastPrice: market.lastPrice,
    staticReferencePrice: pairRules.staticReferencePrice,
    fair: context.fairValue ?? null,
  });
  if (reference === null) return blind(config, context, diffOptions, state);
  const model = widened(runModel(config, { reference, market, inventory }, state), context.widen ?? 1);
  const conform = {
    rules: pairRules,
    book,
    lastPrice: market.lastPrice,
    centre: model.centre,
    marketMaker: context.marketMaker,
    refreshCost: context.refreshCost,
    minSpreadBps: config.minSpreadBps,
    funds,
  };
  const terms = context.obligations;
  const priceToleranceTicks = config.refresh.priceToleranceTicks;
  const { conformed, gated, obligations } = guardedAndGated(
    conformQuotes({ ...conform, quotes: model.quotes }),
    { terms, model: model.quotes, conform, priceToleranceTicks },
    pairRules,
    gate,
  );
  const diff = diffWithin(gated.quotes, context.liveOrders, diffOptions, terms, obligations);
  const sent = new Set<DesiredQuote>(diff.actions.flatMap((a) => (a.type === 'cancel' ? [] : [a.quote])));
  return {
    result: {
      quotes: gated.quotes.filter((q) => sent.has(q)),
      actions: diff.actions,
      reasons: [...model.reasons, ...conformed.reasons, ...gated.reasons, ...diff.reasons],
      reference,
      diagnostics: { reference: show(reference.price), referenceSource: reference.source, ...model.diagnostics },
      ...(obligations === undefined ? {} : { obligations }),
    },
    nextState: model.state,
  };
}

/** Every quote's distance from the model's centre multiplied by `factor` (a fair-value guard's widening). */
function widened(model: ModelOutput, factor: number): ModelOutput {
  if (factor === 1) return model;
  const f = new Decimal(factor);
  return {
    ...model,
    quotes: model.quotes.map((q) => ({ ...q, price: model.centre.add(q.price.sub(model.centre).mul(f)) })),
  };
}

/** Our orders once the actions are carried out: kept live orders and the new quotes. */
function bookAfter(actions: readonly QuoteAction[]): Array<DesiredQuote | LiveOrder> {
  return actions.flatMap((a): Array<DesiredQuote | LiveOrder> =>
    a.type === 'keep' ? [a.live] : a.type === 'cancel' ? [] : [a.quote],
  );
}
