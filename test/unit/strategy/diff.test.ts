import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decimal } from '../../../src/core/decimal.ts';
import { diffQuotes, transactionCount, type DiffOptions } from '../../../src/strategy/diff.ts';
import { quoteCost } from '../../../src/strategy/sizing.ts';
import type { DesiredQuote, LiveOrder, QuoteAction } from '../../../src/strategy/types.ts';
import { d, evmRules, liveOrder, quote } from '../../support/strategy/builders.ts';

// Chain A fixture pair: tick 0.05 below 100 and 0.1 from 100; dynamic threshold [95, 105] around 100.
const rules = evmRules();
const options = (over: Partial<DiffOptions> = {}): DiffOptions => ({
  rules,
  lastPrice: d('100'),
  priceToleranceTicks: 1,
  sizeTolerance: d('0'),
  marketMaker: false,
  funds: { base: d('1000'), quote: d('1000000') },
  ...over,
});
const text = (actions: readonly QuoteAction[]) =>
  actions.map((a) => {
    if (a.type === 'cancel') return `cancel ${a.orderId}`;
    const q = `${a.quote.side} ${a.quote.price.toFixed()} x ${a.quote.quantity.toFixed()}`;
    return a.type === 'place' ? `place ${q}` : `${a.type} ${a.orderId} ${q}`;
  });

describe('diffing desired quotes against live orders', () => {
  it('keeps a live order within the price and size tolerance: no transaction', () => {
    const out = diffQuotes([quote('buy', '99.5', '1')], [liveOrder('7', 'buy', '99.55', '1')], options());
    expect(text(out.actions)).toEqual(['keep 7 buy 99.5 x 1']);
    expect(transactionCount(out.actions)).toBe(0);
  });

  it('replaces an order that moved beyond the tolerance or changed size, placing before cancelling', () => {
    expect(
      text(diffQuotes([quote('buy', '99.5', '1')], [liveOrder('7', 'buy', '99.6', '1')], options()).actions),
    ).toEqual(['replace 7 buy 99.5 x 1']);
    expect(
      text(diffQuotes([quote('buy', '99.5', '1')], [liveOrder('7', 'buy', '99.5', '1.5')], options()).actions),
    ).toEqual(['replace 7 buy 99.5 x 1']);
    const tolerant = options({ sizeTolerance: d('0.5'), priceToleranceTicks: 2 });
    expect(
      text(diffQuotes([quote('buy', '99.5', '1')], [liveOrder('7', 'buy', '99.6', '1.5')], tolerant).actions),
    ).toEqual(['keep 7 buy 99.5 x 1']);
  });

  it('cancels live orders no longer desired, first, and places new quotes', () => {
    const out = diffQuotes(
      [quote('sell', '101', '1')],
      [liveOrder('1', 'buy', '99', '1'), liveOrder('2', 'buy', '98', '1')],
      options(),
    );
    expect(text(out.actions)).toEqual(['cancel 1', 'cancel 2', 'place sell 101 x 1']);
    expect(transactionCount(out.actions)).toBe(3);
  });

  it('matches keeps so that as many live orders as possible stay', () => {
    // The ladder moved up one tick: 99.5 can keep 99.55 and 99.55 can keep 99.6. Taking the exact match
    // 99.55 for 99.55 first would leave 99.5 without a keep and cost a replace.
    const out = diffQuotes(
      [quote('buy', '99.55', '1'), quote('buy', '99.5', '1', 1)],
      [liveOrder('a', 'buy', '99.6', '1'), liveOrder('b', 'buy', '99.55', '1')],
      options(),
    );
    expect(transactionCount(out.actions)).toBe(0);
  });

  it('replaces an order within tolerance whose price the venue would no longer accept', () => {
    // 94.95 is one tick from 95 but outside the dynamic threshold [95, 105].
    const out = diffQuotes([quote('buy', '95', '1')], [liveOrder('7', 'buy', '94.95', '1')], options());
    expect(text(out.actions)).toEqual(['replace 7 buy 95 x 1']);
  });

  it('judges the same live order again when the last price or the bands move, and alike while they stay', () => {
    const live = [liveOrder('7', 'buy', '94.95', '1')];
    const want = [quote('buy', '95', '1')];
    const p99 = d('99');
    const rounds = [p99, d('100'), p99, p99].map((lastPrice) =>
      text(diffQuotes(want, live, options({ lastPrice })).actions),
    );
    // Within the dynamic threshold of 99 ([94.05, 103.95]) the order stays; of 100 ([95, 105]) it does not.
    expect(rounds).toEqual([
      ['keep 7 buy 95 x 1'],
      ['replace 7 buy 95 x 1'],
      ['keep 7 buy 95 x 1'],
      ['keep 7 buy 95 x 1'],
    ]);
    const narrow = { ...rules, dynamicThresholdBps: 10 };
    expect(text(diffQuotes(want, live, options({ lastPrice: p99, rules: narrow })).actions)).toEqual([
      'replace 7 buy 95 x 1',
    ]);
  });
  it('replaces an order within tolerance that would not stay strictly below our asks', () => {
    const out = diffQuotes(
      [quote('buy', '99.9', '1'), quote('sell', '100', '1')],
      [liveOrder('7', 'buy', '100', '1')],
      options({ priceToleranceTicks: 2 }),
    );
    expect(text(out.actions)).toEqual(['replace 7 buy 99.9 x 1', 'place sell 100 x 1']);
    expect(out.reasons.map((r) => r.rule)).toEqual(['kept-order-replaced']);
  });

  it('never places an order across one of ours still resting: after a jump up the asks move first', () => {
    const out = diffQuotes(
      [quote('buy', '101', '1'), quote('sell', '101.5', '1')],
      [liveOrder('b', 'buy', '100', '1'), liveOrder('a', 'sell', '100.5', '1')],
      options(),
    );
    expect(text(out.actions)).toEqual(['replace a sell 101.5 x 1', 'replace b buy 101 x 1']);
  });

  it('cancels first when the funds cannot carry the new order beside the old, and drops what cannot be funded', () => {
    // Old bid 1 @ 99 costs 99.198 (value plus 20 bp), the new one 1 @ 99.5 costs 99.699: 100 fits one at a time.
    const out = diffQuotes(
      [quote('buy', '99.5', '1')],
      [liveOrder('7', 'buy', '99', '1')],
      options({ funds: { base: d('0'), quote: d('100') } }),
    );
    expect(text(out.actions)).toEqual(['cancel 7', 'place buy 99.5 x 1']);
    const broke = diffQuotes(
      [quote('buy', '99.5', '1')],
      [liveOrder('7', 'buy', '99', '1')],
      options({ funds: { base: d('0'), quote: d('99.5') } }),
    );
    expect(text(broke.actions)).toEqual(['cancel 7']);
    expect(broke.reasons.map((r) => `${r.rule} ${r.action}`)).toEqual(['funds dropped']);
  });
});

/** A side of a book on the 0.1 grid around 100, strictly on its side of `split`. */
const sideOf = (side: 'buy' | 'sell', split: number) =>
  fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { maxLength: 4 }).chain((steps) =>
    fc.tuple(...steps.map(() => fc.constantFrom('0.5', '1', '1.5'))).map((sizes) =>
      steps.map((k, i) => ({
        side,
        price: d(split).add(d(side === 'buy' ? -k : k - 1).div(10)),
        quantity: d(sizes[i] as string),
      })),
    ),
  );

interface Resting {
  readonly side: 'buy' | 'sell';
  readonly price: Decimal;
  readonly quantity: Decimal;
}

/** What our orders of a side commit, as the approval would be (value plus commission for bids). */
const committed = (orders: Iterable<Resting>, side: 'buy' | 'sell') =>
  [...orders]
    .filter((o) => o.side === side)
    .reduce((a, o) => a.add(quoteCost(o.side, o.price, o.quantity, rules, false)), d(0));

const crossesAny = (q: Resting, resting: Iterable<Resting>) =>
  [...resting].some((r) => r.side !== q.side && (q.side === 'buy' ? r.price.lte(q.price) : r.price.gte(q.price)));

/** The fixture's tick: 0.05 below 100, 0.1 from 100. */
const tickOf = (p: Decimal) => (p.lt(100) ? d('0.05') : d('0.1'));

const book = (split: number) => fc.tuple(sideOf('buy', split), sideOf('sell', split)).map(([b, a]) => [...b, ...a]);

describe('diffing, for random live and desired books', () => {
  it('carries out to the desired book without ever crossing our own orders or over-committing funds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 985, max: 1015 }).chain((m) => book(m / 10)),
        fc.integer({ min: 985, max: 1015 }).chain((m) => book(m / 10)),
        fc.record({ base: fc.integer({ min: 0, max: 8 }), quote: fc.integer({ min: 0, max: 800 }) }),
        fc.integer({ min: 0, max: 2 }),
        (liveRaw, desiredRaw, extra, tolerance) => {
          const live: LiveOrder[] = liveRaw.map((o, i) => ({ ...o, id: `L${i}` }));
          const desired: DesiredQuote[] = desiredRaw.map((q, i) => ({ ...q, level: i }));
          // Funds at least what the live orders already commit, plus a random margin.
          const funds = {
            base: committed(live, 'sell').add(extra.base),
            quote: committed(live, 'buy').add(extra.quote),
          };
          const out = diffQuotes(desired, live, options({ funds, priceToleranceTicks: tolerance, lastPrice: null }));

          // Replay the actions, noting anything that would cross our own orders or over-commit funds.
          const resting = new Map<string, Resting>(live.map((l) => [l.id, l]));
          const problems: string[] = [];
          let placed = 0;
          for (const a of out.actions) {
            if (a.type === 'cancel' && !resting.delete(a.orderId)) problems.push(`cancel of unknown ${a.orderId}`);
            if (a.type === 'keep' && !resting.has(a.orderId)) problems.push(`keep of unknown ${a.orderId}`);
            if (a.type === 'place' || a.type === 'replace') {
              if (crossesAny(a.quote, resting.values()))
                problems.push(`${a.quote.side} ${a.quote.price.toFixed()} crosses ours`);
              resting.set(`new${placed++}`, a.quote);
              const limit = a.quote.side === 'buy' ? funds.quote : funds.base;
              if (committed(resting.values(), a.quote.side).gt(limit))
                problems.push(`${a.quote.side} side over-committed`);
            }
            if (a.type === 'replace' && !resting.delete(a.orderId)) problems.push(`replace of unknown ${a.orderId}`);
          }
          expect(problems).toEqual([]);
          // What rests at the end: the kept orders and the new quotes, one per desired quote, nothing else.
          const dropped = out.reasons.filter((r) => r.action === 'dropped').length;
          expect(resting.size).toBe(desired.length - dropped);
          // No keep was missed: no desired quote that is sent anew could have kept a live order that goes
          // (unless a keep was given up because it would have crossed our other side).
          const keptIds = new Set(out.actions.flatMap((a) => (a.type === 'keep' ? [a.orderId] : [])));
          const keptQuotes = new Set(out.actions.flatMap((a) => (a.type === 'keep' ? [a.quote] : [])));
          const released = out.reasons.some((r) => r.rule === 'kept-order-replaced');
          for (const q of desired.filter((x) => !keptQuotes.has(x))) {
            for (const l of live.filter((x) => !keptIds.has(x.id) && x.side === q.side)) {
              const couldKeep =
                l.price.sub(q.price).abs().lte(tickOf(q.price).mul(tolerance)) && l.quantity.eq(q.quantity);
              expect(released || !couldKeep).toBe(true);
            }
          }
          expect(transactionCount(out.actions)).toBeLessThanOrEqual(live.length + desired.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
