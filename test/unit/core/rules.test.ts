import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.ts';
import { DEFAULT_ORDER_OPTIONS, type OrderTerms } from '../../../src/core/order-terms.ts';
import {
  assertOrder,
  bandAround,
  checkCollar,
  checkDynamicThreshold,
  checkOrder,
  checkSize,
  checkStaticThreshold,
  checkValue,
  derivePairRules,
  minimumValueWithMargin,
} from '../../../src/core/rules.ts';
import { thrown } from '../../support/errors.ts';
import { pairWith } from '../../support/pairs.ts';

const d = (s: string) => new Decimal(s);
const rules = derivePairRules(pairWith('evm-pair'));
const order = (over: Partial<OrderTerms>): OrderTerms => ({
  ...DEFAULT_ORDER_OPTIONS,
  side: 'buy',
  quantity: d('1'),
  price: d('100'),
  ...over,
});

describe('deriving the rules of a pair', () => {
  it('reads every rule field of the pair', () => {
    expect(rules.chain).toBe('evm');
    expect(rules.sizeIncrement.toFixed()).toBe('0.5');
    expect(rules.minimumSize.toFixed()).toBe('0.5');
    expect(rules.priceCollarBps).toBe(2000n);
    expect(rules.commissions).toEqual({ makerBps: 10, takerBps: 20, marketMakerBps: 5 });
    expect(rules.tick.source).toBe('REGULATORY band 4');
  });
  it('lists every missing field needed for trading at once', () => {
    const e = thrown(() =>
      derivePairRules(
        pairWith('evm-pair', { minimumOrderValue: undefined, makerCommission: undefined, liquidityBand: 9 }),
      ),
    );
    const missing = (e.details.missing as string[]).join('\n');
    expect(e.code).toBe('E_PAIR_RULES_MISSING');
    expect(missing).toMatch(/minimumOrderValue/);
    expect(missing).toMatch(/makerCommission/);
    expect(missing).toMatch(/liquidityBand/);
  });
  it('uses the quote internal scale as the tick in GRANULAR mode and lets overrides win', () => {
    const granular = derivePairRules(pairWith('evm-pair', { tickSizeMode: 'GRANULAR' }));
    expect(granular.tick).toMatchObject({ kind: 'fixed' });
    expect(checkOrder(order({ price: d('100.0001'), quantity: d('1') }), granular).map((v) => v.rule)).not.toContain(
      'tick',
    );
    const overridden = derivePairRules(pairWith('evm-pair', { tickSizeMode: 'SOMETHING_NEW' }), {
      tick: { fixed: '0.25' },
    });
    expect(checkOrder(order({ price: d('100.25') }), overridden).map((v) => v.rule)).not.toContain('tick');
    expect(() => derivePairRules(pairWith('evm-pair', { tickSizeMode: 'SOMETHING_NEW' }))).toThrow(/tickSizeMode/);
  });
});

const band7 = (changes: Record<string, unknown> = {}) =>
  pairWith('evm-pair', {
    liquidityBand: 7,
    quoteTokenInternalScale: '100000000',
    staticReferencePrice: '1',
    ...changes,
  });
const rulesOfTick = (r: ReturnType<typeof derivePairRules>) =>
  r.tick.kind === 'fixed' ? { source: r.tick.source, tick: r.tick.tick.toFixed() } : { source: r.tick.source };
const ticks = (price: string, r: ReturnType<typeof derivePairRules>) =>
  checkOrder(order({ price: d(price), quantity: d('20') }), r).filter((v) => v.rule === 'tick');

describe('liquidity band 7: the granular tick mode', () => {
  it('quotes seven-decimal prices, whatever tickSizeMode says', () => {
    for (const mode of ['REGULATORY', 'GRANULAR', 'SOMETHING_NEW', undefined]) {
      const r = derivePairRules(band7({ tickSizeMode: mode }));
      expect(rulesOfTick(r)).toEqual({ source: 'band 7 (granular: 7 decimal places)', tick: '0.0000001' });
      expect(ticks('0.9999999', r)).toEqual([]);
      expect(ticks('1.0000001', r)).toEqual([]);
      expect(ticks('0.99999995', r).map((v) => v.numbers)).toEqual([
        { price: '0.99999995', tick: '0.0000001', below: '0.9999999', above: '1' },
      ]);
      expect(ticks('0.99999995', r)[0]?.message).toMatch(/band 7 \(granular: 7 decimal places\)/);
    }
  });
  it('uses one unit of a coarser quote internal scale, and says so', () => {
    const r = derivePairRules(band7({ quoteTokenInternalScale: '10000', staticReferencePrice: '100' }));
    expect(rulesOfTick(r)).toEqual({
      source: 'band 7 (granular: one unit of the quote internal scale 10000, coarser than 7 decimal places)',
      tick: '0.0001',
    });
    expect(derivePairRules(band7({ quoteTokenInternalScale: '10000000' })).tick).toMatchObject({
      source: 'band 7 (granular: 7 decimal places)',
    });
  });
  it('on a scale that nests with neither, takes the finest seven-decimal price the scale represents', () => {
    const r = derivePairRules(band7({ quoteTokenInternalScale: '4000000' }));
    expect(rulesOfTick(r)).toEqual({
      source: 'band 7 (granular: 0.0000005, the finest 7-decimal tick the quote internal scale 4000000 represents)',
      tick: '0.0000005',
    });
    expect(ticks('0.9999995', r)).toEqual([]);
    expect(ticks('0.9999999', r).map((v) => v.rule)).toEqual(['tick']);
  });
  it('lets the per-pair tick override win over band 7', () => {
    const fixed = derivePairRules(band7(), { tick: { fixed: '0.001' } });
    expect(rulesOfTick(fixed)).toEqual({ source: 'per-pair fixed tick', tick: '0.001' });
    expect(ticks('0.9999999', fixed).map((v) => v.rule)).toEqual(['tick']);
    const table = derivePairRules(band7(), { tick: { table: [{ from: '0', tick: '0.00001' }] } });
    expect(table.tick.source).toBe('per-pair tick table');
  });
  it('still refuses a band outside 1..7, naming the rule', () => {
    for (const band of [0, 8, 9]) {
      const e = thrown(() => derivePairRules(pairWith('evm-pair', { liquidityBand: band })));
      expect(e.code).toBe('E_PAIR_RULES_MISSING');
      expect(e.details.missing).toEqual([
        `liquidityBand: REGULATORY tick sizes need a band 1..6 (band 7 is the granular tick mode), got ${band}`,
      ]);
    }
  });
});

describe('size', () => {
  it('is the minimum plus a whole multiple of the increment', () => {
    expect(checkSize(d('0.5'), rules)).toBeNull();
    expect(checkSize(d('3'), rules)).toBeNull();
    const v = checkSize(d('1.2'), rules);
    expect(v?.code).toBe('E_RULE_SIZE');
    expect(v?.numbers).toMatchObject({ nearestBelow: '1', nearestAbove: '1.5' });
  });
  it('honours a minimum that is not a multiple of the increment', () => {
    const r = derivePairRules(pairWith('evm-pair'), { minimumSize: '0.7' });
    expect(checkSize(d('0.7'), r)).toBeNull();
    expect(checkSize(d('1.2'), r)).toBeNull();
    expect(checkSize(d('1'), r)?.code).toBe('E_RULE_SIZE');
    expect(checkSize(d('0.2'), r)?.numbers.nearestAbove).toBe('0.7');
  });
});

describe('order value', () => {
  it('refuses an order at exactly the minimum value because of the safety margin', () => {
    expect(minimumValueWithMargin(rules).toFixed()).toBe('10.2');
    // Another margin on the same minimum, then the first again: each its own value.
    const margins = [500, 200, 0, 200].map((valueMarginBps) => minimumValueWithMargin({ ...rules, valueMarginBps }));
    expect(margins.map((v) => v.toFixed())).toEqual(['10.5', '10.2', '10', '10.2']);
    expect(checkValue(d('20'), d('0.5'), rules)?.code).toBe('E_RULE_VALUE_MIN');
    expect(checkValue(d('20.4'), d('0.5'), rules)).toBeNull();
  });
  it('refuses a value above the maximum', () => {
    expect(checkValue(d('100'), d('10000'), rules)).toBeNull();
    expect(checkValue(d('100.1'), d('10000'), rules)?.numbers).toMatchObject({
      value: '1001000',
      maximumOrderValue: '1000000',
    });
  });
  it('the margin is configurable', () => {
    const noMargin = derivePairRules(pairWith('evm-pair'), { valueMarginBps: 0 });
    expect(checkValue(d('20'), d('0.5'), noMargin)).toBeNull();
  });
});

describe('collar and thresholds', () => {
  it('computes a band for each reference and width, the same again when asked again', () => {
    const reference = d('100');
    const first = [
      bandAround(reference, 2000),
      bandAround(reference, '1000'),
      bandAround(reference, d('500')),
      bandAround(d('50'), 2000),
    ];
    const again = [
      bandAround(reference, 2000),
      bandAround(reference, '1000'),
      bandAround(reference, d('500')),
      bandAround(d('50'), 2000),
    ];
    const text = (bands: typeof first) => bands.map((b) => `${b.lower.toFixed()}..${b.upper.toFixed()}`);
    expect(text(first)).toEqual(['80..120', '90..110', '95..105', '40..60']);
    expect(text(again)).toEqual(text(first));
  });
  it('keeps the limit price inside the collar around the static reference price', () => {
    expect(checkCollar(d('80'), rules)).toBeNull();
    expect(checkCollar(d('120'), rules)).toBeNull();
    expect(checkCollar(d('120.1'), rules)?.numbers).toMatchObject({ lower: '80', upper: '120' });
    expect(checkCollar(d('79.9'), rules)?.code).toBe('E_RULE_COLLAR');
  });
  it('checks the static threshold around the static reference and the dynamic one around the last price', () => {
    expect(checkStaticThreshold(d('110'), rules)).toBeNull();
    expect(checkStaticThreshold(d('110.1'), rules)?.code).toBe('E_RULE_STATIC_THRESHOLD');
    expect(checkDynamicThreshold(d('105'), d('100'), rules)).toBeNull();
    expect(checkDynamicThreshold(d('94.9'), d('100'), rules)?.code).toBe('E_RULE_DYNAMIC_THRESHOLD');
    expect(checkDynamicThreshold(d('50'), null, rules)).toBeNull();
  });
  it('a zero factor disables a band', () => {
    const open = derivePairRules(pairWith('evm-pair', { priceCollarFactor: 0, staticThreshold: 0 }));
    expect(checkCollar(d('1000'), open)).toBeNull();
    expect(checkStaticThreshold(d('1000'), open)).toBeNull();
  });
});

describe('checking an order', () => {
  it('returns every rule broken with its numbers', () => {
    const broken = checkOrder(
      order({ quantity: d('1.2'), price: d('130.05'), validity: 'gtd', lifetimeDays: 91 }),
      rules,
    );
    expect(broken.map((v) => v.rule).toSorted()).toEqual(['collar', 'lifetime', 'size', 'static-threshold', 'tick']);
  });
  it('accepts lifetime 90 with GTD and refuses 91 or a lifetime without GTD', () => {
    expect(checkOrder(order({ validity: 'gtd', lifetimeDays: 90 }), rules)).toEqual([]);
    expect(checkOrder(order({ validity: 'gtd', lifetimeDays: 91 }), rules).map((v) => v.code)).toEqual([
      'E_RULE_LIFETIME',
    ]);
    expect(checkOrder(order({ validity: 'gfd', lifetimeDays: 5 }), rules).map((v) => v.code)).toEqual([
      'E_RULE_LIFETIME',
    ]);
  });
  it('throws one error carrying all violations', () => {
    expect(() => assertOrder(order({ quantity: d('1.2'), price: d('100.01') }), rules)).toThrow(
      expect.objectContaining({ code: 'E_RULES_BROKEN' }),
    );
    expect(() => assertOrder(order({ price: d('100.01') }), rules)).toThrow(
      expect.objectContaining({ code: 'E_RULE_TICK' }),
    );
    expect(() => assertOrder(order({}), rules)).not.toThrow();
  });
  it('refuses a limit order without a positive price', () => {
    expect(checkOrder(order({ price: d('0') }), rules).map((v) => v.code)).toContain('E_RULE_PRICE');
  });
});
