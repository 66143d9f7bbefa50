/**
 * The simulated traders' decisions: replayable from a seed, maker ladders and taker orders that every venue
 * rule accepts (the core's own checks), reconciliation that keeps good quotes and replaces the rest, the
 * informed taker that trades only against a level mispriced against the true value, and the maker's lagged
 * view of the true value.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { DEFAULT_ORDER_OPTIONS } from '../../../../src/core/order-terms.ts';
import { checkOrder, derivePairRules } from '../../../../src/core/rules.ts';
import { LaggedReference } from '../../../../src/sandbox/flow/lagged.ts';
import {
  informedOrder,
  makerLadder,
  reconcileSide,
  takerOrder,
  withReference,
} from '../../../../src/sandbox/flow/quotes.ts';
import { SeededRandom } from '../../../../src/sandbox/flow/random.ts';
import { completePair } from '../../../../src/sandbox/evm/pair-params.ts';
import { DEFAULT_PAIRS } from '../../../../src/sandbox/venue/default-pairs.ts';

const settings = { levels: 3, spreadBps: 60, stepBps: 25 };
const rulesOf = DEFAULT_PAIRS.map((d) => derivePairRules(completePair(d.pair), d.overrides ?? {}));

describe('seeded random source', () => {
  it('replays the same sequence for a seed, and forks independently of later draws', () => {
    const a = new SeededRandom(42);
    const b = new SeededRandom(42);
    expect(Array.from({ length: 5 }, () => a.next())).toEqual(Array.from({ length: 5 }, () => b.next()));
    expect(new SeededRandom(1).next()).not.toBe(new SeededRandom(2).next());
    const r = new SeededRandom(9);
    const values = Array.from({ length: 1000 }, () => r.int(3, 5));
    expect(new Set(values)).toEqual(new Set([3, 4, 5]));
    expect(new SeededRandom(7).fork('x').next()).toBe(new SeededRandom(7).fork('x').next());
  });
});

describe('maker ladder', () => {
  it('quotes distinct, rule-abiding prices on both sides of any fair value in the band, for every default pair', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: DEFAULT_PAIRS.length - 1 }),
        fc.double({ min: -0.1, max: 0.1, noNaN: true }),
        fc.nat(),
        (i, move, seed) => {
          const rules = rulesOf[i] as (typeof rulesOf)[number];
          const ref = rules.staticReferencePrice as Decimal;
          const fair = ref.mul(new Decimal(1).add(move.toFixed(6)));
          const ladder = makerLadder(fair, rules, settings, new SeededRandom(seed));
          // Inside the fair value's band (half the tighter of collar and static threshold) the ladder is full.
          const band = Math.min(rules.staticThresholdBps, Number(rules.priceCollarBps)) / 20_000;
          expect(Math.abs(move) > band * 0.9 || ladder.length === 6).toBe(true);
          for (const side of ['buy', 'sell'] as const) {
            const prices = ladder.filter((q) => q.side === side).map((q) => q.price.toFixed());
            expect(new Set(prices).size).toBe(prices.length);
          }
          expect(ladder.filter((q) => q.side === 'buy').every((q) => q.price.lt(fair))).toBe(true);
          expect(ladder.filter((q) => q.side === 'sell').every((q) => q.price.gt(fair))).toBe(true);
          for (const q of ladder)
            expect(
              checkOrder({ ...DEFAULT_ORDER_OPTIONS, side: q.side, quantity: q.quantity, price: q.price }, rules),
            ).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps quotes inside the window, cancels the others, and fills the free places', () => {
    const rules = rulesOf[0] as (typeof rulesOf)[number];
    const fair = new Decimal(100);
    const ladder = makerLadder(fair, rules, settings, new SeededRandom(1));
    const own = [
      { orderId: 1n, price: new Decimal('99.7') },
      { orderId: 2n, price: new Decimal('99.95') },
      { orderId: 3n, price: new Decimal('90') },
    ];
    const r = reconcileSide('buy', own, ladder, fair, settings);
    expect(r.cancel).toEqual([2n, 3n]);
    expect(r.place.map((q) => q.price.toFixed())).toEqual(['99.45', '99.2']);
  });
});

describe('taker order', () => {
  const rules = withReference(rulesOf[0] as (typeof rulesOf)[number], new Decimal(100));
  const top = {
    bestAsk: { price: new Decimal('100.3'), quantity: new Decimal('3.5') },
    bestBid: { price: new Decimal('99.7'), quantity: new Decimal('1') },
  };

  it('hits only the best level, with a valid size no larger than it', () => {
    for (let seed = 0; seed < 50; seed++) {
      const o = takerOrder(top, new Decimal(100), new Decimal(100), rules, new SeededRandom(seed));
      expect(o).toBeDefined();
      const level = o?.side === 'buy' ? top.bestAsk : top.bestBid;
      expect(o?.price.eq(level.price)).toBe(true);
      expect(o?.quantity.lte(level.quantity)).toBe(true);
      expect(
        checkOrder(
          {
            ...DEFAULT_ORDER_OPTIONS,
            side: o?.side ?? 'buy',
            quantity: o?.quantity ?? new Decimal(0),
            price: o?.price ?? new Decimal(0),
          },
          rules,
        ),
      ).toEqual([]);
    }
  });

  it('stays away from a level that would risk a volatility halt, and from an empty side', () => {
    const far = {
      bestAsk: { price: new Decimal('104.5'), quantity: new Decimal('10') },
      bestBid: { price: new Decimal('95.5'), quantity: new Decimal('10') },
    };
    expect(
      Array.from({ length: 20 }, (_, s) =>
        takerOrder(far, new Decimal(100), new Decimal(100), rules, new SeededRandom(s)),
      ),
    ).toEqual(Array(20).fill(undefined));
    expect(
      Array.from({ length: 20 }, (_, s) => takerOrder({}, new Decimal(100), undefined, rules, new SeededRandom(s))),
    ).toEqual(Array(20).fill(undefined));
  });
});

describe('informed taker', () => {
  const rules = withReference(rulesOf[0] as (typeof rulesOf)[number], new Decimal(100));
  const top = {
    bestAsk: { price: new Decimal('100.3'), quantity: new Decimal('3.5') },
    bestBid: { price: new Decimal('99.7'), quantity: new Decimal('1') },
  };
  const decide = (trueValue: string, edgeBps = 0, seed = 1, book = top) =>
    informedOrder(book, new Decimal(trueValue), new Decimal(100), rules, edgeBps, new SeededRandom(seed));

  it('does nothing while the true value lies between the best bid and the best ask', () => {
    for (const v of ['99.7', '99.9', '100', '100.3']) expect([v, decide(v)]).toEqual([v, undefined]);
  });

  it('buys the best ask below the true value and sells to the best bid above it, at the level, within its size', () => {
    for (let seed = 0; seed < 30; seed++) {
      const buy = decide('100.31', 0, seed);
      expect(buy?.side).toBe('buy');
      expect(buy?.price.toFixed()).toBe('100.3');
      expect(buy?.quantity.lte('3.5')).toBe(true);
      const sell = decide('99.6', 0, seed);
      expect([sell?.side, sell?.price.toFixed(), sell?.quantity.lte(1)]).toEqual(['sell', '99.7', true]);
      for (const o of [buy, sell])
        expect(
          checkOrder(
            {
              ...DEFAULT_ORDER_OPTIONS,
              side: o?.side ?? 'buy',
              quantity: o?.quantity as Decimal,
              price: o?.price as Decimal,
            },
            rules,
          ),
        ).toEqual([]);
    }
  });

  it('wants the mispricing beyond its edge', () => {
    // 100.3 is 29.9 bp below 100.6: an edge of 30 bp holds it back, 29 bp lets it buy.
    expect(decide('100.6', 30)).toBeUndefined();
    expect(decide('100.6', 29)?.side).toBe('buy');
  });

  it('keeps the volatility precautions: no trade at a level too far from the last price', () => {
    const far = {
      bestAsk: { price: new Decimal('104.5'), quantity: new Decimal('10') },
      bestBid: { price: new Decimal('95.5'), quantity: new Decimal('10') },
    };
    expect(decide('110', 0, 1, far)).toBeUndefined();
    expect(decide('90', 0, 1, far)).toBeUndefined();
    expect(informedOrder({}, new Decimal(120), undefined, rules, 0, new SeededRandom(1))).toBeUndefined();
  });
});

describe("the background maker's lagged view", () => {
  it('closes half the distance to the true value per half-life of wall time', () => {
    const view = new LaggedReference(new Decimal(100), 0, 60_000);
    expect(view.update(new Decimal(102), 60_000).toFixed()).toBe('101');
    expect(view.update(new Decimal(102), 120_000).toFixed()).toBe('101.5');
    // Time does not run backwards: an older reading moves nothing.
    expect(view.update(new Decimal(90), 100_000).toFixed()).toBe('101.5');
    expect(new LaggedReference(new Decimal(100), 0, 0).update(new Decimal(103), 1).toFixed()).toBe('103');
  });
});
