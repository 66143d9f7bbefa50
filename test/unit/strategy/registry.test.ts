import { readFileSync } from 'node:fs';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseStrategyConfig } from '../../../src/core/config/load.ts';
import { derivePairRules } from '../../../src/core/rules.ts';
import { computeQuotes, MODELS } from '../../../src/strategy/registry.ts';
import type { MarketView } from '../../../src/strategy/types.ts';
import { pairWith } from '../../support/pairs.ts';
import {
  context,
  d,
  decimalBetween,
  evmRules,
  inventory,
  levels,
  liveOrder,
  market,
  violations,
} from '../../support/strategy/builders.ts';

const strategy = (name: string) =>
  parseStrategyConfig(readFileSync(new URL(`../../../strategies/${name}.yaml`, import.meta.url), 'utf8'), name);
const ladder = strategy('ladder');
const skewed = strategy('skewed-ladder');
const as = strategy('avellaneda-stoikov');
const rules = evmRules();

/** The market `ms` after 09:00 with the book half a unit wide around `mid`. */
function at(ms: number, mid: string): MarketView {
  const m = d(mid);
  return market({
    nowMs: Date.UTC(2026, 2, 2, 9) + ms,
    bids: [{ price: m.sub('0.25'), quantity: d(5) }],
    asks: [{ price: m.add('0.25'), quantity: d(5) }],
  });
}

describe('the strategy registry', () => {
  it('has a model for every kind of the schema', () => {
    expect(Object.keys(MODELS).toSorted()).toEqual(['avellaneda-stoikov', 'ladder']);
  });

  it('the sandbox ladder quotes three valid levels a side on both fixture pairs', () => {
    const wasm = derivePairRules(pairWith('wasm-pair'));
    const wasmMarket = market({
      bids: levels(['12.3', '50']),
      asks: levels(['12.4', '50']),
      lastPrice: d('12.34'),
      staticReferencePrice: d('12.34'),
    });
    for (const [r, m] of [
      [rules, market()],
      [wasm, wasmMarket],
    ] as const) {
      const { result } = computeQuotes(ladder, m, inventory('100', '100000'), r, context(), {});
      expect(result.quotes.filter((q) => q.side === 'buy')).toHaveLength(3);
      expect(result.quotes.filter((q) => q.side === 'sell')).toHaveLength(3);
      for (const q of result.quotes) expect(violations(q, r, m.lastPrice)).toEqual([]);
      expect(result.actions.every((a) => a.type === 'place')).toBe(true);
    }
  });

  it('takes the reference from the book without our own orders', () => {
    // Our bid at 100.1 tops the book; without it the mid is (99.8 + 100.3) / 2.
    const m = market({ bids: levels(['100.1', '1'], ['99.8', '5']) });
    const { result } = computeQuotes(
      ladder,
      m,
      inventory(),
      rules,
      context({ liveOrders: [liveOrder('1', 'buy', '100.1', '1')] }),
      {},
    );
    expect(result.reference).toEqual({ price: d('100.05'), source: 'mid' });
  });

  it('takes out of the book our orders whose cancellation is on its way, which it neither keeps nor cancels again', () => {
    // Our old bid at 100.1 still shows while its cancel travels; our new bid at 99.9 rests. Counted as someone
    // else's, the old bid would make the mid (100.1 + 100.3) / 2 = 100.2, and the next round would chase it.
    const m = market({ bids: levels(['100.1', '1'], ['99.9', '1'], ['99.8', '5']) });
    const live = [liveOrder('2', 'buy', '99.9', '1')];
    const { result } = computeQuotes(
      ladder,
      m,
      inventory(),
      rules,
      context({ liveOrders: live, ownOrders: [...live, liveOrder('1', 'buy', '100.1', '1')] }),
      {},
    );
    expect(result.reference).toEqual({ price: d('100.05'), source: 'mid' });
    expect(result.actions.filter((a) => a.type === 'cancel' && a.orderId === '1')).toEqual([]);
  });

  it('with no reference available quotes nothing and cancels what is live', () => {
    const config = { ...ladder, referencePrice: ['mid' as const] };
    const { result } = computeQuotes(
      config,
      market({ asks: [] }),
      inventory(),
      rules,
      context({ liveOrders: [liveOrder('9', 'buy', '99', '1')] }),
      {},
    );
    expect(result.quotes).toEqual([]);
    expect(result.actions).toEqual([{ type: 'cancel', orderId: '9', side: 'buy' }]);
    expect(result.reasons.map((r) => r.rule)).toEqual(['no-reference']);
  });

  it('uses the static reference price of the market view over the pair record for the collar', () => {
    // The pair record says 100 (collar [80, 120]); the day's static reference is 130.
    const m = market({
      bids: levels(['129.8', '5']),
      asks: levels(['130.3', '5']),
      lastPrice: d('130'),
      staticReferencePrice: d('130'),
    });
    const { result } = computeQuotes(ladder, m, inventory('100', '100000'), rules, context(), {});
    expect(result.quotes).toHaveLength(6);
    const stale = computeQuotes(
      ladder,
      { ...m, staticReferencePrice: null },
      inventory('100', '100000'),
      rules,
      context(),
      {},
    );
    expect(stale.result.quotes).toEqual([]);
  });

  it('leans the skewed ladder against its inventory', () => {
    // Target 10, max 10: at 20 the bids stop, at 0 the asks stop (nothing to sell either).
    const long = computeQuotes(skewed, market(), inventory('20', '100000'), rules, context(), {}).result;
    expect(long.quotes.every((q) => q.side === 'sell')).toBe(true);
    const short = computeQuotes(skewed, market(), inventory('0', '100000'), rules, context(), {}).result;
    expect(short.quotes.every((q) => q.side === 'buy')).toBe(true);
    const flat = computeQuotes(skewed, market(), inventory('10', '100000'), rules, context(), {}).result;
    expect(flat.quotes).toHaveLength(4);
  });

  it('carries the Avellaneda-Stoikov volatility state from call to call', () => {
    const first = computeQuotes(as, at(0, '100'), inventory(), rules, context(), {});
    expect(first.nextState.volatility?.samples).toBe(0);
    const second = computeQuotes(as, at(2000, '100.5'), inventory(), rules, context(), first.nextState);
    expect(second.nextState.volatility?.samples).toBe(1);
    // A 0.5 % move in two seconds is far above the 0.00005 prior: sigma rises.
    expect(Number(second.result.diagnostics.sigma)).toBeGreaterThan(Number(first.result.diagnostics.sigma));
    expect(JSON.parse(JSON.stringify(second.nextState))).toEqual(second.nextState);
  });

  it('without a horizon Avellaneda-Stoikov quotes nothing; with one configured it quotes', () => {
    const closed = market({ msUntilClose: null });
    const none = computeQuotes(
      as,
      closed,
      inventory(),
      rules,
      context({ liveOrders: [liveOrder('3', 'sell', '101', '1')] }),
      {},
    ).result;
    expect(none.quotes).toEqual([]);
    expect(none.reasons.map((r) => r.rule)).toEqual(['no-horizon']);
    expect(none.actions).toEqual([{ type: 'cancel', orderId: '3', side: 'sell' }]);
    const fixed = parseStrategyConfig(
      readFileSync(new URL('../../../strategies/avellaneda-stoikov.yaml', import.meta.url), 'utf8').replace(
        '# horizonMs: 3600000',
        'horizonMs: 600000',
      ),
      'fixed',
    );
    expect(fixed.kind === 'avellaneda-stoikov' && fixed.avellanedaStoikov.horizonMs).toBe(600_000);
    expect(computeQuotes(fixed, closed, inventory(), rules, context(), {}).result.quotes).toHaveLength(2);
  });
});

describe('every strategy file, for random markets and inventories', () => {
  it('returns only quotes the venue accepts, the same for the same inputs, without touching them', () => {
    const configs = [ladder, skewed, as];
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 }),
        decimalBetween(92, 108, 2),
        decimalBetween(0.05, 1.5, 2),
        fc.option(decimalBetween(95, 105, 2), { nil: null }),
        decimalBetween(0, 30, 1),
        decimalBetween(0, 5000, 0),
        fc.boolean(),
        decimalBetween(0, 0.5, 2),
        (which, mid, halfSpread, last, base, quote, marketMaker, refreshCost) => {
          const m = market({
            bids: [{ price: mid.sub(halfSpread).toDecimalPlaces(1), quantity: d(3) }],
            asks: [{ price: mid.add(halfSpread).toDecimalPlaces(1), quantity: d(3) }],
            lastPrice: last,
          });
          const inv = inventory(base.toFixed(), quote.toFixed());
          const ctx = context({ marketMaker, refreshCost, liveOrders: [liveOrder('x', 'buy', '95', '1')] });
          const config = configs[which] as (typeof configs)[number];
          const snapshot = JSON.stringify([m, inv, ctx]);
          const once = computeQuotes(config, m, inv, rules, ctx, {});
          const again = computeQuotes(config, m, inv, rules, ctx, {});
          expect(again).toEqual(once);
          expect(JSON.stringify([m, inv, ctx])).toBe(snapshot);
          for (const q of once.result.quotes) expect(violations(q, rules, last)).toEqual([]);
          const sent = once.result.actions.flatMap((a) => (a.type === 'cancel' ? [] : [a.quote]));
          expect(sent.toSorted((a, b) => a.price.cmp(b.price))).toEqual(
            once.result.quotes.toSorted((a, b) => a.price.cmp(b.price)),
          );
        },
      ),
      { numRuns: 60 },
    );
  });
});
