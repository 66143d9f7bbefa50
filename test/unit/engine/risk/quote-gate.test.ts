import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { resolveLimits } from '../../../../src/engine/risk/limits.ts';
import { gateQuotes } from '../../../../src/engine/risk/quote-gate.ts';
import type { DesiredQuote } from '../../../../src/strategy/types.ts';

const d = (s: string) => new Decimal(s);
const q = (side: 'buy' | 'sell', level: number, quantity: string, price = '100'): DesiredQuote => ({
  side,
  level,
  quantity: d(quantity),
  price: d(price),
});
const ladder = [
  q('buy', 0, '1', '99'),
  q('buy', 1, '2', '98'),
  q('buy', 2, '3', '97'),
  q('sell', 0, '1', '101'),
  q('sell', 1, '2', '102'),
];

describe('risk gate on quotes', () => {
  it('passes everything without limits', () => {
    expect(gateQuotes({ quotes: ladder, position: d('0'), mark: d('100'), limits: resolveLimits({}) }).quotes).toEqual(
      ladder,
    );
  });
  it('keeps only the bids that cannot take the position past maxInventory, nearest first', () => {
    const r = gateQuotes({
      quotes: ladder,
      position: d('5'),
      mark: d('100'),
      limits: resolveLimits({ maxInventory: '8' }),
    });
    expect(r.quotes.filter((x) => x.side === 'buy').map((x) => x.level)).toEqual([0, 1]);
    expect(r.cuts).toEqual([{ side: 'buy', level: 2, rule: 'maxInventory', detail: 'would pass the position cap 8' }]);
  });
  it('turns the notional limit into a position cap at the mark', () => {
    const r = gateQuotes({
      quotes: ladder,
      position: d('0'),
      mark: d('100'),
      limits: resolveLimits({ maxNotional: '250' }),
    });
    expect(r.quotes.filter((x) => x.side === 'buy').map((x) => x.level)).toEqual([0]);
  });
  it('says a cap that does not divide evenly in twelve significant digits, not two hundred', () => {
    const r = gateQuotes({
      quotes: ladder,
      position: d('0'),
      mark: d('3'),
      limits: resolveLimits({ maxNotional: '10' }),
    });
    expect(r.cuts.map((c) => c.detail)).toContain('would pass the position cap 3.33333333333');
  });
  it('works the cap out again when the mark or the limits change, and alike while they stay', () => {
    const limits = resolveLimits({ maxNotional: '250' });
    const mark = d('100');
    const bidsAt = (m: Decimal, l = limits) =>
      gateQuotes({ quotes: ladder, position: d('0'), mark: m, limits: l })
        .quotes.filter((x) => x.side === 'buy')
        .map((x) => x.level);
    expect([bidsAt(mark), bidsAt(mark), bidsAt(d('50')), bidsAt(mark)]).toEqual([[0], [0], [0, 1], [0]]);
    expect(bidsAt(mark, resolveLimits({ maxNotional: '600' }))).toEqual([0, 1, 2]);
  });
  it('drops orders above the maximum order value', () => {
    const r = gateQuotes({
      quotes: ladder,
      position: d('0'),
      mark: null,
      limits: resolveLimits({ maxOrderValue: '150' }),
    });
    expect(r.quotes.map((x) => `${x.side}${x.level}`)).toEqual(['buy0', 'sell0']);
  });
  it('keeps the nearest levels of both sides under maxOpenOrders', () => {
    const r = gateQuotes({ quotes: ladder, position: d('0'), mark: null, limits: resolveLimits({ maxOpenOrders: 3 }) });
    expect(r.quotes.map((x) => `${x.side}${x.level}`).toSorted()).toEqual(['buy0', 'buy1', 'sell0']);
    expect(r.cuts.map((c) => c.rule)).toEqual(['maxOpenOrders', 'maxOpenOrders']);
  });
  it('pair overrides win over the defaults', () => {
    expect(resolveLimits({ maxInventory: '5', maxOpenOrders: 4 }, { maxInventory: '9' })).toMatchObject({
      maxOpenOrders: 4,
    });
    expect(resolveLimits({ maxInventory: '5' }, { maxInventory: '9' }).maxInventory?.toFixed()).toBe('9');
  });
});
