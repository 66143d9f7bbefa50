/** Builders and generators shared by the strategy tests. */
import * as fc from 'fast-check';
import { Decimal } from '../../../src/core/decimal.ts';
import { DEFAULT_ORDER_OPTIONS } from '../../../src/core/order-terms.ts';
import { checkOrder, derivePairRules, type PairOverrides, type PairRules } from '../../../src/core/rules.ts';
import type {
  BookLevel,
  DesiredQuote,
  Inventory,
  LiveOrder,
  MarketView,
  QuoteContext,
} from '../../../src/strategy/types.ts';
import { pairWith } from '../pairs.ts';

export const d = (s: string | number) => new Decimal(s);

/** The chain A fixture pair: tick 0.05 below 100 and 0.1 from 100 (band 4), size 0.5 + k * 0.5, values 10..1e6. */
export function evmRules(changes: Record<string, unknown> = {}, overrides: PairOverrides = {}): PairRules {
  return derivePairRules(pairWith('evm-pair', changes), overrides);
}

export const levels = (...pairs: Array<[string, string]>): BookLevel[] =>
  pairs.map(([price, quantity]) => ({ price: d(price), quantity: d(quantity) }));

export function market(over: Partial<MarketView> = {}): MarketView {
  return {
    bids: levels(['99.8', '5']),
    asks: levels(['100.3', '3']),
    lastPrice: d('100'),
    staticReferencePrice: d('100'),
    tradeInfo: null,
    nowMs: Date.UTC(2026, 2, 2, 9, 0, 0),
    msUntilClose: 3_600_000,
    ...over,
  };
}

export function inventory(base = '10', quote = '10000', locked: { base?: string; quote?: string } = {}): Inventory {
  return {
    base: { free: d(base), locked: d(locked.base ?? '0') },
    quote: { free: d(quote), locked: d(locked.quote ?? '0') },
  };
}

export function context(over: Partial<QuoteContext> = {}): QuoteContext {
  return { marketMaker: false, refreshCost: d('0'), liveOrders: [], ...over };
}

export const quote = (side: 'buy' | 'sell', price: string, quantity: string, level = 0): DesiredQuote => ({
  side,
  price: d(price),
  quantity: d(quantity),
  level,
});
export const liveOrder = (id: string, side: 'buy' | 'sell', price: string, quantity: string): LiveOrder => ({
  id,
  side,
  price: d(price),
  quantity: d(quantity),
});

/** Every venue rule the core knows, for a quote as a limit order of the default options. */
export function violations(q: DesiredQuote, rules: PairRules, lastPrice: Decimal | null) {
  return checkOrder({ ...DEFAULT_ORDER_OPTIONS, side: q.side, price: q.price, quantity: q.quantity }, rules, {
    lastPrice,
  });
}

/** A decimal with `digits` fraction digits between lo and hi (integers in units of 10^-digits). */
export const decimalBetween = (lo: number, hi: number, digits: number) =>
  fc
    .integer({ min: Math.round(lo * 10 ** digits), max: Math.round(hi * 10 ** digits) })
    .map((n) => new Decimal(n).div(10 ** digits));

/** Pair rules across tick regimes, size grids, value limits, collars, thresholds, matches and commissions. */
export const arbitraryRules = fc
  .record({
    tick: fc.oneof(
      fc
        .integer({ min: 1, max: 6 })
        .map((band) => ({ pair: { tickSizeMode: 'REGULATORY', liquidityBand: band }, overrides: {} })),
      fc.constantFrom('0.01', '0.05', '0.25', '1').map((fixed) => ({ pair: {}, overrides: { tick: { fixed } } })),
      fc.constant({ pair: { tickSizeMode: 'GRANULAR' }, overrides: {} }),
    ),
    increment: fc.constantFrom('0.001', '0.01', '0.5', '1'),
    minimumSize: fc.option(fc.constantFrom('0.7', '2', '0.003'), { nil: undefined }),
    minimumOrderValue: fc.constantFrom('1', '5', '10', '100'),
    maximumOrderValue: fc.constantFrom('500', '5000', '1000000'),
    priceCollarFactor: fc.constantFrom(0, 300, 2000),
    staticThreshold: fc.constantFrom(0, 200, 1000),
    dynamicThreshold: fc.constantFrom(0, 150, 500),
    maximumMatches: fc.integer({ min: 0, max: 4 }),
    makerCommission: fc.integer({ min: 0, max: 30 }),
    takerCommission: fc.integer({ min: 0, max: 40 }),
    marketMakerCommission: fc.integer({ min: 0, max: 10 }),
    staticReferencePrice: fc.constantFrom('0.85', '12.34', '100', '1000'),
  })
  .map((r) =>
    derivePairRules(
      pairWith('evm-pair', {
        ...r.tick.pair,
        minimumSizeIncrement: r.increment,
        minimumOrderValue: r.minimumOrderValue,
        maximumOrderValue: r.maximumOrderValue,
        priceCollarFactor: r.priceCollarFactor,
        staticThreshold: r.staticThreshold,
        dynamicThreshold: r.dynamicThreshold,
        maximumMatches: r.maximumMatches,
        makerCommission: r.makerCommission,
        takerCommission: r.takerCommission,
        marketMakerCommission: r.marketMakerCommission,
        staticReferencePrice: r.staticReferencePrice,
      }),
      { ...r.tick.overrides, ...(r.minimumSize === undefined ? {} : { minimumSize: r.minimumSize }) },
    ),
  );

/** A price within +-spreadPct of `centre`, with four fraction digits. */
export const priceNear = (centre: Decimal, spreadPct: number) =>
  fc
    .integer({ min: -spreadPct * 100, max: spreadPct * 100 })
    .map((bp) => centre.mul(d(10_000 + bp).div(10_000)).toDecimalPlaces(4));
