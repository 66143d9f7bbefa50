import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseStrategyConfig } from '../../../src/core/config/load.ts';
import { QuoteMemo, sameQuoteInputs, type QuoteInputs } from '../../../src/strategy/memo.ts';
import { computeQuotes, type QuoteGate } from '../../../src/strategy/registry.ts';
import type { DesiredQuote } from '../../../src/strategy/types.ts';
import { context, d, evmRules, inventory, liveOrder, market } from '../../support/strategy/builders.ts';

const strategy = (name: string) =>
  parseStrategyConfig(readFileSync(new URL(`../../../strategies/${name}.yaml`, import.meta.url), 'utf8'), name);
const ladder = strategy('ladder');
const as = strategy('avellaneda-stoikov');
const fairLadder = strategy('fair-ladder');
const rules = evmRules();
const NINE = Date.UTC(2026, 2, 2, 9);

/** A gate that keeps the bids only: whether it ran shows in the quotes. */
const bidsOnly: QuoteGate = (quotes: readonly DesiredQuote[]) => ({
  quotes: quotes.filter((q) => q.side === 'buy'),
  reasons: [],
});
const keepAll: QuoteGate = (quotes: readonly DesiredQuote[]) => ({ quotes, reasons: [] });

/** Whether two calls that differ only in the fair value ask the same question. */
const inputs = (fair: unknown): QuoteInputs => ({
  market: market(),
  inventory: inventory(),
  context: context({ fairValue: fair as never }),
  state: {},
  gate: [false, undefined],
});
const sameFair = (a: unknown, b: unknown) => sameQuoteInputs('ladder', inputs(a), inputs(b));

describe('the quote memo', () => {
  it('answers a call with the same inputs from the last output, equal to what the registry computes', () => {
    const memo = new QuoteMemo();
    const m = market({ nowMs: NINE });
    const first = memo.compute(ladder, m, inventory(), rules, context(), {});
    const again = memo.compute(ladder, market({ nowMs: NINE }), inventory(), rules, context(), {});
    expect(again).toBe(first);
    expect(memo.reused).toBe(1);
    expect(again).toEqual(computeQuotes(ladder, m, inventory(), rules, context(), {}));
  });

  it('computes again when any input changes by value: fair value, our orders, inventory, book', () => {
    const memo = new QuoteMemo();
    const base = memo.compute(fairLadder, market(), inventory(), rules, context({ fairValue: d('100') }), {});
    const moved = memo.compute(fairLadder, market(), inventory(), rules, context({ fairValue: d('100.5') }), {});
    expect(moved.result.reference?.price.toFixed()).toBe('100.5');
    expect(moved).not.toBe(base);
    const ours = memo.compute(
      fairLadder,
      market(),
      inventory(),
      rules,
      context({ fairValue: d('100.5'), liveOrders: [liveOrder('1', 'buy', '99', '1')] }),
      {},
    );
    expect(ours.result.actions.some((a) => a.type === 'cancel' || a.type === 'replace')).toBe(true);
    memo.compute(fairLadder, market(), inventory('1', '1'), rules, context(), {});
    memo.compute(
      fairLadder,
      market({ asks: [{ price: d('100.4'), quantity: d(5) }] }),
      inventory('1', '1'),
      rules,
      context(),
      {},
    );
    expect(memo.reused).toBe(0);
  });

  it('reads the gate from its inputs: other inputs compute again, and so does a call without a gate', () => {
    const memo = new QuoteMemo();
    const cut = memo.compute(ladder, market(), inventory(), rules, context(), {}, { gate: bidsOnly, inputs: [d(1)] });
    expect(cut.result.quotes.every((q) => q.side === 'buy')).toBe(true);
    const all = memo.compute(ladder, market(), inventory(), rules, context(), {}, { gate: keepAll, inputs: [d(2)] });
    expect(all.result.quotes.some((q) => q.side === 'sell')).toBe(true);
    memo.compute(ladder, market(), inventory(), rules, context(), {});
    expect(memo.reused).toBe(0);
  });

  it('lets the time differ for the ladder, which does not read it, but not for a model that does', () => {
    const memo = new QuoteMemo();
    memo.compute(ladder, market({ nowMs: NINE }), inventory(), rules, context(), {});
    memo.compute(ladder, market({ nowMs: NINE + 1000 }), inventory(), rules, context(), {});
    expect(memo.reused).toBe(1);
    const timed = new QuoteMemo();
    timed.compute(as, market({ nowMs: NINE }), inventory(), rules, context(), {});
    timed.compute(as, market({ nowMs: NINE + 1000 }), inventory(), rules, context(), {});
    expect(timed.reused).toBe(0);
  });

  it('never reuses across configurations or rules, nor when an input is not plain data', () => {
    const memo = new QuoteMemo();
    memo.compute(ladder, market(), inventory(), rules, context(), {});
    memo.compute(strategy('ladder'), market(), inventory(), rules, context(), {});
    memo.compute(ladder, market(), inventory(), evmRules(), context(), {});
    const odd = { ...context(), extra: new Map([[1, 2]]) };
    memo.compute(ladder, market(), inventory(), rules, odd, {});
    memo.compute(ladder, market(), inventory(), rules, odd, {});
    const another = { ...context(), extra: new Map([[1, 2]]) };
    memo.compute(ladder, market(), inventory(), rules, another, {});
    expect(memo.reused).toBe(0);
  });

  it('tells zero from negative zero and text from numbers, and 1 from 1.0 not', () => {
    expect(sameFair(d('0'), d('-0'))).toBe(false);
    expect(sameFair(d('1'), d('1.0'))).toBe(true);
    expect(sameFair(d('1'), d('1.0000001'))).toBe(false);
    expect(sameFair('1', 1)).toBe(false);
    expect(sameFair(0, -0)).toBe(false);
  });
});
