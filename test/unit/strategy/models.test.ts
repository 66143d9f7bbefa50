import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { avellanedaStoikovQuotes } from '../../../src/strategy/avellaneda-stoikov.ts';
import { ladderQuotes, type LadderParams } from '../../../src/strategy/ladder.ts';
import { applyInventoryBounds, skewedCentre, skewedSizes, type SkewParams } from '../../../src/strategy/skew.ts';
import type { DesiredQuote } from '../../../src/strategy/types.ts';
import { d, decimalBetween } from '../../support/strategy/builders.ts';
import type { Decimal } from '../../../src/core/decimal.ts';

const text = (qs: readonly DesiredQuote[]) =>
  qs.map((q) => `${q.side}${q.level} ${q.price.toFixed()} x ${q.quantity.toFixed()}`);

describe('spread ladder', () => {
  const params: LadderParams = {
    levels: 3,
    spacingBps: 10,
    sizes: [d('1'), d('2')],
    sizeUnit: 'base',
    bidSpreadBps: 20,
    askSpreadBps: 30,
  };

  it('puts level n at its side spread plus n spacings from the centre, sizes repeating the last', () => {
    // 20, 30, 40 bp below 100 and 30, 40, 50 bp above.
    expect(text(ladderQuotes(d('100'), params))).toEqual([
      'buy0 99.8 x 1',
      'buy1 99.7 x 2',
      'buy2 99.6 x 2',
      'sell0 100.3 x 1',
      'sell1 100.4 x 2',
      'sell2 100.5 x 2',
    ]);
  });
  it('sizes in quote units are order values divided by each quote price, cut toward zero past the size grid', () => {
    const qs = ladderQuotes(d('100'), { ...params, levels: 1, sizeUnit: 'quote', sizes: [d('50')] });
    // The exact quotient, or below it by less than any 18-decimal size step.
    const gaps = qs.map((q) => d('50').div(q.price).sub(q.quantity));
    expect(gaps.map((gap: Decimal) => gap.gte(0) && gap.lt(d('1e-20')))).toEqual([true, true]);
  });
  it('a level at or below zero gets no quantity instead of a negative one', () => {
    const [bid] = ladderQuotes(d('100'), { ...params, levels: 1, sizeUnit: 'quote', bidSpreadBps: 10_000 });
    expect(bid?.price.toFixed()).toBe('0');
    expect(bid?.quantity.toFixed()).toBe('0');
  });
});

describe('inventory skew', () => {
  const skew: SkewParams = { targetInventory: d('10'), maxInventory: d('5'), priceSkewBps: 40, sizeSkew: 0.5 };
  const quotes = ladderQuotes(d('100'), {
    levels: 2,
    spacingBps: 10,
    sizes: [d('2')],
    sizeUnit: 'base',
    bidSpreadBps: 10,
    askSpreadBps: 10,
  });

  it('moves the centre against the position, in proportion up to the full deviation', () => {
    expect(skewedCentre(d('100'), d('0'), skew).toFixed()).toBe('100');
    expect(skewedCentre(d('100'), d('2.5'), skew).toFixed()).toBe('99.8'); // half of 40 bp down when long
    expect(skewedCentre(d('100'), d('-5'), skew).toFixed()).toBe('100.4');
    expect(skewedCentre(d('100'), d('-50'), skew).toFixed()).toBe('100.4'); // clamped at full deviation
  });
  it('shrinks only the side that adds to the position', () => {
    const long = skewedSizes(quotes, d('2.5'), skew); // u = 0.5: bids keep 1 - 0.5 * 0.5
    expect(long.filter((q) => q.side === 'buy').map((q) => q.quantity.toFixed())).toEqual(['1.5', '1.5']);
    expect(long.filter((q) => q.side === 'sell').map((q) => q.quantity.toFixed())).toEqual(['2', '2']);
    const short = skewedSizes(quotes, d('-5'), skew);
    expect(short.filter((q) => q.side === 'sell').map((q) => q.quantity.toFixed())).toEqual(['1', '1']);
  });
  it('quotes no bids at +max or beyond and no asks at -max or beyond', () => {
    const atMax = applyInventoryBounds(quotes, d('5'), d('5'));
    expect(atMax.quotes.every((q) => q.side === 'sell')).toBe(true);
    expect(atMax.reasons.map((r) => `${r.side}${r.level} ${r.rule} ${r.action}`)).toEqual([
      'buy0 inventory-bound dropped',
      'buy1 inventory-bound dropped',
    ]);
    expect(applyInventoryBounds(quotes, d('-6'), d('5')).quotes.every((q) => q.side === 'buy')).toBe(true);
  });
  it('cuts sizes so that filling every quote of a side stays within the bound', () => {
    fc.assert(
      fc.property(
        decimalBetween(-12, 12, 3),
        decimalBetween(0.5, 10, 1),
        fc.array(decimalBetween(0.001, 4, 3), { minLength: 1, maxLength: 6 }),
        (deviation, max, sizes) => {
          const raw = sizes.flatMap((s, level) => [
            { side: 'buy' as const, price: d('99'), quantity: s, level },
            { side: 'sell' as const, price: d('101'), quantity: s, level },
          ]);
          const { quotes: bounded } = applyInventoryBounds(raw, deviation, max);
          const total = (side: string) =>
            bounded.filter((q) => q.side === side).reduce((a, q) => a.add(q.quantity), d(0));
          expect(deviation.add(total('buy')).lte(max) || total('buy').isZero()).toBe(true);
          expect(deviation.sub(total('sell')).gte(max.neg()) || total('sell').isZero()).toBe(true);
          // Never larger than asked, and nearer levels are served first.
          for (const q of bounded)
            expect(q.quantity.lte(raw.find((r) => r.side === q.side && r.level === q.level)?.quantity ?? d(0))).toBe(
              true,
            );
        },
      ),
    );
  });
});

describe('Avellaneda-Stoikov', () => {
  const params = { riskAversion: 0.5, orderBookLiquidity: 2000, size: d('2'), targetInventory: d('10') };
  const input = { reference: d('100'), variance: d('0.000001'), horizonSeconds: d('400'), baseInventory: d('14') };

  it('follows the formulas: r = s(1 - q g s2 tau), delta = s(g s2 tau + (2/g) ln(1 + g/k))', () => {
    const out = avellanedaStoikovQuotes(input, params);
    const risk = 0.5 * 1e-6 * 400; // gamma * sigma^2 * tau = 0.0002
    const q = (14 - 10) / 2; // two lots long
    const r = 100 * (1 - q * risk);
    const delta = 100 * (risk + (2 / 0.5) * Math.log1p(0.5 / 2000));
    expect(out.q.toNumber()).toBe(2);
    expect(out.reservation.toNumber()).toBeCloseTo(r, 10);
    expect(out.spread.toNumber()).toBeCloseTo(delta, 10);
    const [bid, ask] = out.quotes;
    expect(bid?.price.toNumber()).toBeCloseTo(r - delta / 2, 10);
    expect(ask?.price.toNumber()).toBeCloseTo(r + delta / 2, 10);
    expect([bid?.quantity.toFixed(), ask?.quantity.toFixed()]).toEqual(['2', '2']);
  });
  it('at the close only the liquidity term is left and the reservation is the reference', () => {
    const out = avellanedaStoikovQuotes({ ...input, horizonSeconds: d('0') }, params);
    expect(out.reservation.toFixed()).toBe('100');
    expect(out.spread.toNumber()).toBeCloseTo(100 * 4 * Math.log1p(0.00025), 12);
  });
  it('leans against the inventory and widens with risk: more volatility or time, a wider spread', () => {
    fc.assert(
      fc.property(
        decimalBetween(-20, 40, 2),
        decimalBetween(0, 0.0001, 8),
        decimalBetween(1, 30_000, 0),
        (inv, variance, tau) => {
          const out = avellanedaStoikovQuotes(
            { reference: d('100'), variance, horizonSeconds: tau, baseInventory: inv },
            params,
          );
          // Long (above the target of 10) lowers the reservation price, short raises it.
          const side = variance.isZero() ? 0 : 0 - inv.cmp(d('10'));
          expect(out.reservation.cmp(d('100'))).toBe(side);
          const wider = avellanedaStoikovQuotes(
            { reference: d('100'), variance: variance.add('0.00001'), horizonSeconds: tau.add(60), baseInventory: inv },
            params,
          );
          expect(wider.spread.gt(out.spread)).toBe(true);
          const [bid, ask] = out.quotes;
          expect(bid && ask && bid.price.lt(ask.price)).toBe(true);
        },
      ),
    );
  });
});
