/**
 * The obligation guard inside `computeQuotes`: one bid and one ask within the terms take priority over the
 * model's wishes, venue rules and funds still bind, and a limit that forces a breach is named.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseStrategyConfig } from '../../../src/core/config/load.ts';
import { Decimal } from '../../../src/core/decimal.ts';
import { tickDown, tickUp } from '../../../src/core/ticks.ts';
import { meetsTerms, meetsTermsAfterAFill } from '../../../src/strategy/obligation-guard.ts';
import { computeQuotes, type QuoteGate } from '../../../src/strategy/registry.ts';
import type { GuardTerms } from '../../../src/strategy/types.ts';
import { context, d, evmRules, inventory, liveOrder, market, violations } from '../../support/strategy/builders.ts';

const parsed = parseStrategyConfig(
  readFileSync(new URL('../../../strategies/ladder.yaml', import.meta.url), 'utf8'),
  'ladder',
);
if (parsed.kind !== 'ladder') throw new Error('ladder.yaml is not a ladder');
const ladder = parsed;
/** The ladder 150 bp out a side: a 300 bp spread, three times what the terms allow. */
const wide = { ...ladder, ladder: { ...ladder.ladder, bidSpreadBps: 150, askSpreadBps: 150 } };
const rules = evmRules();
const TERMS: GuardTerms = {
  maxSpread: { unit: 'bps', value: new Decimal(100) },
  minSize: { unit: 'base', value: new Decimal(5) },
  maxSizeRatio: 0.5,
};
const rich = inventory('1000', '1000000');

/** A risk gate at its position cap: every bid removed. */
const noBids: QuoteGate = (quotes) => ({
  quotes: quotes.filter((q) => q.side === 'sell'),
  reasons: quotes
    .filter((q) => q.side === 'buy')
    .map((q) => ({
      side: q.side,
      level: q.level,
      rule: 'risk',
      action: 'dropped',
      detail: 'maxInventory: would pass the position cap 0',
      limit: 'maxInventory',
    })),
});

const spreadBps = (quotes: readonly { side: string; price: Decimal }[]) => {
  const bid = quotes.filter((q) => q.side === 'buy').reduce((m, q) => Decimal.max(m, q.price), d(0));
  const ask = quotes.filter((q) => q.side === 'sell').reduce((m, q) => Decimal.min(m, q.price), d(1e9));
  return ask.sub(bid).div(ask.add(bid).div(2)).mul(10_000).toNumber();
};

describe('checking quotes against the terms', () => {
  it('judges a quote again by what it holds now, and the same quote objects alike each time', () => {
    const bid = { side: 'buy' as const, level: 0, price: d('99.6'), quantity: d('5') };
    const ask = { side: 'sell' as const, level: 0, price: d('100.2'), quantity: d('5') };
    expect([meetsTerms([bid, ask], TERMS, rules), meetsTerms([bid, ask], TERMS, rules)]).toEqual([true, true]);
    // The same objects with another price or size (never done to a quote, but not trusted either).
    const moved = { ...ask };
    expect(meetsTerms([bid, moved], TERMS, rules)).toBe(true);
    Object.assign(moved, { price: d('101.2') });
    expect(meetsTerms([bid, moved], TERMS, rules)).toBe(false);
    Object.assign(moved, { price: d('100.2'), quantity: d('1') });
    expect(meetsTerms([bid, moved], TERMS, rules)).toBe(false);
    expect(meetsTerms([bid, liveOrder('9', 'sell', '100.2', '5')], TERMS, rules)).toBe(true);
  });
});

describe('the obligation guard', () => {
  it('pulls a model that quotes too wide inside the maximum spread at the minimum size, and keeps its deeper levels', () => {
    const without = computeQuotes(wide, market(), rich, rules, context(), {}).result;
    expect(meetsTerms(without.quotes, TERMS, rules)).toBe(false);
    expect(without.obligations).toBeUndefined();

    const { result } = computeQuotes(wide, market(), rich, rules, context({ obligations: TERMS }), {});
    expect(result.obligations).toEqual({ status: 'guarded' });
    expect(meetsTerms(result.quotes, TERMS, rules)).toBe(true);
    expect(spreadBps(result.quotes)).toBeLessThanOrEqual(100);
    const level0 = result.quotes.filter((q) => q.level === 0);
    expect(level0.every((q) => q.quantity.gte(5))).toBe(true);
    // A reserve a tick behind each guarded quote, of its size: a fill of either leaves the terms met.
    const reserves = result.quotes.filter((q) => q.level === 1);
    expect(
      reserves
        .map((r) => ({ side: r.side, price: r.price.toFixed(), quantity: r.quantity.toFixed() }))
        .toSorted((a, b) => a.side.localeCompare(b.side)),
    ).toEqual(
      level0
        .map((q) => ({
          side: q.side,
          price: (q.side === 'buy' ? tickDown(q.price, rules.tick) : tickUp(q.price, rules.tick)).toFixed(),
          quantity: q.quantity.toFixed(),
        }))
        .toSorted((a, b) => a.side.localeCompare(b.side)),
    );
    expect(meetsTermsAfterAFill(result.quotes, TERMS, rules)).toBe(true);
    expect(meetsTermsAfterAFill(without.quotes, TERMS, rules)).toBe(false);
    // The model's deeper levels stay, behind the reserves.
    expect(result.quotes.filter((q) => q.level > 1).length).toBe(4);
    for (const q of result.quotes) expect(violations(q, rules, d(100))).toEqual([]);
    expect(result.reasons.filter((r) => r.rule === 'obligations').map((r) => r.side)).toEqual(['buy', 'sell']);
  });

  it('leaves a model that meets the terms as it is', () => {
    const tight = { ...ladder, ladder: { ...ladder.ladder, sizeUnit: 'base' as const, sizes: ['10'] } };
    const plain = computeQuotes(tight, market(), rich, rules, context(), {}).result;
    const guarded = computeQuotes(tight, market(), rich, rules, context({ obligations: TERMS }), {}).result;
    expect(guarded.obligations).toEqual({ status: 'compliant' });
    expect(guarded.quotes).toEqual(plain.quotes);
  });

  it('overrides the fee floor, which is the model’s wish, not the venue’s rule', () => {
    const costly = {
      ...ladder,
      minSpreadBps: 300,
      ladder: { ...ladder.ladder, sizeUnit: 'base' as const, sizes: ['10'] },
    };
    const { result } = computeQuotes(costly, market(), rich, rules, context({ obligations: TERMS }), {});
    expect(result.obligations).toEqual({ status: 'guarded' });
    expect(spreadBps(result.quotes.filter((q) => q.level === 0))).toBeLessThanOrEqual(100);
  });

  it('makes the two sides comparable: the larger is cut to at most twice the smaller', () => {
    const lopsided = { ...wide, ladder: { ...wide.ladder, sizeUnit: 'base' as const, sizes: ['30'] }, skew: undefined };
    const terms = { ...TERMS, minSize: { unit: 'base' as const, value: new Decimal(5) } };
    // The skewless ladder asks for 30 a side; the wallet holds only 12 base to sell, so funds cut the ask to 12.
    const { result } = computeQuotes(
      lopsided,
      market(),
      inventory('12', '1000000'),
      rules,
      context({ obligations: terms }),
      {},
    );
    const bid = result.quotes.find((q) => q.side === 'buy' && q.level === 0);
    const ask = result.quotes.find((q) => q.side === 'sell' && q.level === 0);
    expect(result.obligations).toEqual({ status: 'guarded' });
    expect([bid?.quantity.toFixed(), ask?.quantity.toFixed()]).toEqual(['24', '12']);
  });

  it('names funds when the wallet cannot hold the minimum size', () => {
    const { result } = computeQuotes(
      wide,
      market(),
      inventory('2', '1000000'),
      rules,
      context({ obligations: TERMS }),
      {},
    );
    expect(result.obligations).toMatchObject({ status: 'breach', limit: 'funds' });
  });

  it('names the risk limit when the gate cuts what met the terms', () => {
    const { result } = computeQuotes(wide, market(), rich, rules, context({ obligations: TERMS }), {}, noBids);
    expect(result.obligations).toMatchObject({ status: 'breach', limit: 'risk:maxInventory' });
  });

  it('replaces a live order the refresh tolerance would keep when keeping it breaks the terms', () => {
    const tolerant = { ...wide, refresh: { priceToleranceTicks: 1, sizeTolerance: '100' } };
    const first = computeQuotes(tolerant, market(), rich, rules, context({ obligations: TERMS }), {}).result;
    const bid = first.quotes.find((q) => q.side === 'buy' && q.level === 0);
    const ask = first.quotes.find((q) => q.side === 'sell' && q.level === 0);
    if (bid === undefined || ask === undefined) throw new Error('no guarded quotes');
    const reserve = (side: 'buy' | 'sell') => first.quotes.find((q) => q.side === side && q.level === 1);
    const bidReserve = reserve('buy');
    const askReserve = reserve('sell');
    if (bidReserve === undefined || askReserve === undefined) throw new Error('no reserves');
    // Live: the right prices, but the bid and its reserve hold 1 (below the minimum of 5); the size tolerance
    // alone would keep them.
    const live = [
      liveOrder('1', 'buy', bid.price.toFixed(), '1'),
      liveOrder('3', 'buy', bidReserve.price.toFixed(), '1'),
      liveOrder('2', 'sell', ask.price.toFixed(), ask.quantity.toFixed()),
      liveOrder('4', 'sell', askReserve.price.toFixed(), askReserve.quantity.toFixed()),
    ];
    const { result } = computeQuotes(
      tolerant,
      market(),
      rich,
      rules,
      context({ obligations: TERMS, liveOrders: live }),
      {},
    );
    // Both undersized bids are replaced by the guarded bid and its reserve; the asks, of the right size, stay.
    const replaced = result.actions.flatMap((a) =>
      a.type === 'replace' && a.quote.side === 'buy' && a.quote.level <= 1 ? [a.orderId] : [],
    );
    expect(replaced.toSorted()).toEqual(['1', '3']);
    expect(
      result.actions
        .filter((a) => a.type === 'keep')
        .map((a) => a.orderId)
        .toSorted(),
    ).toEqual(['2', '4']);
    expect(meetsTermsAfterAFill(result.quotes, TERMS, rules)).toBe(true);
  });
});
