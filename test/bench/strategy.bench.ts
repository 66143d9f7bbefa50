/**
 * Strategy throughput: one full computation (reference price, model, conformance to the venue rules, diff
 * against live orders) for the sandbox's 3-level ladder and for Avellaneda-Stoikov, side by side. Each call
 * sees the book one tick away from where the live orders were placed, so it does real diff work, and the
 * Avellaneda-Stoikov call folds one new sample into its volatility estimate.
 */
import { readFileSync } from 'node:fs';
import { parseStrategyConfig } from '../../src/core/config/load.ts';
import { Decimal } from '../../src/core/decimal.ts';
import { parseTradingPair } from '../../src/core/pair.ts';
import { derivePairRules } from '../../src/core/rules.ts';
import { computeQuotes, type StrategyState } from '../../src/strategy/registry.ts';
import type { LiveOrder, MarketView, QuoteContext, StrategyResult } from '../../src/strategy/types.ts';
import { compare, fmt, type Row } from './harness.ts';

export const title = 'strategy';

const d = (s: string) => new Decimal(s);
const root = new URL('../../', import.meta.url);
const strategy = (name: string) =>
  parseStrategyConfig(readFileSync(new URL(`strategies/${name}.yaml`, root), 'utf8'), name);
const rules = derivePairRules(
  parseTradingPair(JSON.parse(readFileSync(new URL('test/fixtures/pairs/evm-pair.json', root), 'utf8'))),
);

const NOW = Date.UTC(2026, 2, 2, 9);
const marketAt = (bid: string, ask: string): MarketView => ({
  bids: [
    { price: d(bid), quantity: d('5') },
    { price: d('99'), quantity: d('20') },
  ],
  asks: [
    { price: d(ask), quantity: d('3') },
    { price: d('101'), quantity: d('20') },
  ],
  lastPrice: d('100'),
  staticReferencePrice: d('100'),
  tradeInfo: null,
  nowMs: NOW,
  msUntilClose: 3_600_000,
});
const inventory = { base: { free: d('10'), locked: d('0') }, quote: { free: d('100000'), locked: d('0') } };

/** A chain cost of 0.02 quote units per refresh, a wallet without the market-maker flag. */
const context = (live: LiveOrder[]): QuoteContext => ({ marketMaker: false, refreshCost: d('0.02'), liveOrders: live });
const quotes = (r: StrategyResult) => r.quotes.length;

/** Live orders as the previous computation (one tick lower) left them. */
function liveFrom(result: StrategyResult): LiveOrder[] {
  return result.quotes.map((q, i) => ({ id: String(i), side: q.side, price: q.price, quantity: q.quantity }));
}

export function run(): Row[] {
  const ladder = strategy('ladder');
  const as = strategy('avellaneda-stoikov');
  const before = marketAt('99.75', '100.25');
  const now = marketAt('99.8', '100.3');

  const ladderLive = liveFrom(computeQuotes(ladder, before, inventory, rules, context([]), {}).result);
  const asFirst = computeQuotes(as, { ...before, nowMs: NOW - 2000 }, inventory, rules, context([]), {});
  const asState: StrategyState = asFirst.nextState;
  const asLive = liveFrom(asFirst.result);

  const [l, a] = compare([
    { name: 'ladder', fn: () => computeQuotes(ladder, now, inventory, rules, context(ladderLive), {}) },
    { name: 'avellaneda-stoikov', fn: () => computeQuotes(as, now, inventory, rules, context(asLive), asState) },
  ]) as [ReturnType<typeof compare>[0], ReturnType<typeof compare>[0]];
  const lq = quotes(computeQuotes(ladder, now, inventory, rules, context(ladderLive), {}).result);
  const aq = quotes(computeQuotes(as, now, inventory, rules, context(asLive), asState).result);
  return [
    {
      benchmark: title,
      measure: `ladder.yaml, 3 levels a side (${lq} quotes): computations/s`,
      value: fmt(l.opsPerSecond),
      baseline: `${fmt(l.nsPerOp / 1000, 1)} us each`,
    },
    {
      benchmark: title,
      measure: `avellaneda-stoikov.yaml (${aq} quotes): computations/s`,
      value: fmt(a.opsPerSecond),
      baseline: `${fmt(l.opsPerSecond)} (ladder)`,
      ratio: `${fmt(a.opsPerSecond / l.opsPerSecond, 2)}x`,
    },
    { benchmark: title, measure: 'ladder quotes/s', value: fmt(l.opsPerSecond * lq) },
    {
      benchmark: title,
      measure: 'avellaneda-stoikov quotes/s',
      value: fmt(a.opsPerSecond * aq),
      baseline: `${fmt(a.nsPerOp / 1000, 1)} us each`,
    },
  ];
}
