import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { markoutOf, MarkoutSum, ValueTimeline } from '../../../../src/core/evaluation/markouts.ts';

const d = (v: string | number) => new Decimal(v);

describe('markouts', () => {
  it('a buy earns when the value rises after it, a sell when it falls; bp of the fill price', () => {
    const buy = markoutOf({ side: 'buy', quantity: d(2), price: d(100) }, d('100.5'));
    const sell = markoutOf({ side: 'sell', quantity: d(2), price: d(100) }, d('100.5'));
    expect([buy.quote.toFixed(), buy.bps.toFixed(), sell.quote.toFixed(), sell.bps.toFixed()]).toEqual([
      '1',
      '50',
      '-1',
      '-50',
    ]);
  });

  it('aggregates volume-weighted: Σ markout / Σ traded value', () => {
    const s = new MarkoutSum();
    expect(s.bps).toBeNull();
    s.add({ side: 'buy', quantity: d(1), price: d(100) }, d(101)); // +1 on 100
    s.add({ side: 'sell', quantity: d(3), price: d(100) }, d(101)); // -3 on 300
    expect({ quote: s.quote.toFixed(), notional: s.notional.toFixed(), bps: s.bps?.toFixed(), fills: s.fills }).toEqual(
      {
        quote: '-2',
        notional: '400',
        bps: '-50',
        fills: 2,
      },
    );
  });
});

describe('value timeline', () => {
  it('answers the value in force at a moment, none before the first', () => {
    const t = new ValueTimeline();
    t.push(1_000, d(100));
    t.push(2_000, d(101));
    t.push(2_500, d(101)); // unchanged: not stored again
    t.push(3_000, d(99));
    expect([t.at(999), t.at(1_000), t.at(1_999), t.at(2_600), t.at(10_000)].map((v) => v?.toFixed() ?? null)).toEqual([
      null,
      '100',
      '100',
      '101',
      '99',
    ]);
    expect(t.size).toBe(3);
  });

  it('refuses a time that goes back, and replaces a value pushed twice at one moment', () => {
    const t = new ValueTimeline();
    t.push(1_000, d(100));
    t.push(1_000, d(102));
    expect(t.at(1_000)?.toFixed()).toBe('102');
    expect(() => t.push(999, d(1))).toThrow(RangeError);
  });

  it('forgets what was superseded before a moment but keeps the value in force then', () => {
    const t = new ValueTimeline();
    for (let i = 0; i < 5_000; i++) t.push(i * 10, d(i));
    t.forgetBefore(40_005);
    expect(t.at(40_005)?.toFixed()).toBe('4000');
    expect(t.at(39_990)).toBeNull();
    expect(t.size).toBe(1_000);
    expect(t.at(49_990)?.toFixed()).toBe('4999');
  });
});
