import { describe, expect, it } from 'vitest';
import { parseBotConfig } from '../../../src/core/config/load.ts';
import { obligationTerms } from '../../../src/core/config/obligations-config.ts';
import { Decimal } from '../../../src/core/decimal.ts';
import {
  absenceLeftMs,
  assessQuotes,
  measurePresence,
  ObligationRules,
  type BookQuote,
  type ObligationTerms,
  type PresenceInput,
  type QuoteSpan,
} from '../../../src/core/obligations.ts';
import type { PairScales } from '../../../src/core/units.ts';
import { quotesComply } from '../../../src/core/obligation-search.ts';

/** Prices at 3 decimals, quantities at 2. */
const SCALES: PairScales = { baseInternal: 100n, quoteInternal: 1000n, baseNative: 10n ** 18n, quoteNative: 10n ** 6n };
const px = (p: string) => BigInt(new Decimal(p).mul(1000).toFixed());
const qty = (q: string) => BigInt(new Decimal(q).mul(100).toFixed());
const bid = (p: string, q: string): BookQuote => ({ side: 'buy', price: px(p), quantity: qty(q) });
const ask = (p: string, q: string): BookQuote => ({ side: 'sell', price: px(p), quantity: qty(q) });

const TERMS: ObligationTerms = {
  maxSpread: { unit: 'bps', value: new Decimal(100) },
  minSize: { unit: 'base', value: new Decimal(10) },
  target: 0.9,
  maxSizeRatio: 0.5,
  stressedSpreadMultiplier: new Decimal(2),
};
const rules = (over: Partial<ObligationTerms> = {}) => new ObligationRules({ ...TERMS, ...over }, SCALES);

describe('assessQuotes', () => {
  it('a bid and an ask of the minimum size inside the spread are compliant', () => {
    const a = assessQuotes([bid('99.8', '10'), ask('100.2', '12')], rules(), false);
    expect(a.compliant).toBe(true);
    expect(a.spreadBps).toBeCloseTo(40, 6);
    expect(a.maxSpreadBps).toBe(100);
    expect([a.bidSize?.toFixed(), a.askSize?.toFixed()]).toEqual(['10', '12']);
  });

  it('judges the spread limit exactly: 100 bp of the midpoint passes, one tick more does not', () => {
    // (100.5 - 99.5) / 100 = 100 bp exactly.
    expect(assessQuotes([bid('99.5', '10'), ask('100.5', '10')], rules(), false).compliant).toBe(true);
    const wide = assessQuotes([bid('99.5', '10'), ask('100.501', '10')], rules(), false);
    expect({ compliant: wide.compliant, shortfall: wide.shortfall }).toEqual({ compliant: false, shortfall: 'spread' });
  });

  it('widens the limit by the multiplier while the market is stressed', () => {
    const q = [bid('99', '10'), ask('101', '10')];
    expect(assessQuotes(q, rules(), false).compliant).toBe(false);
    const stressed = assessQuotes(q, rules(), true);
    expect([stressed.compliant, stressed.maxSpreadBps]).toEqual([true, 200]);
  });

  it('an absolute spread limit is a quote amount', () => {
    const r = rules({ maxSpread: { unit: 'quote', value: new Decimal('0.5') } });
    expect(assessQuotes([bid('99.75', '10'), ask('100.25', '10')], r, false).compliant).toBe(true);
    expect(assessQuotes([bid('99.75', '10'), ask('100.251', '10')], r, false).compliant).toBe(false);
  });

  it('a side below the minimum size does not count, in base units or by value', () => {
    expect(assessQuotes([bid('99.9', '9.99'), ask('100.1', '10')], rules(), false).shortfall).toBe('size');
    const byValue = rules({ minSize: { unit: 'quote', value: new Decimal(1000) } });
    // 10 at 99.9 is worth 999; 10.02 at 99.9 is 1000.998.
    expect(assessQuotes([bid('99.9', '10'), ask('100.1', '10')], byValue, false).shortfall).toBe('size');
    expect(assessQuotes([bid('99.9', '10.02'), ask('100.1', '10')], byValue, false).compliant).toBe(true);
  });

  it('sides of comparable size: the larger exceeds the smaller by at most half of the larger', () => {
    expect(assessQuotes([bid('99.9', '20'), ask('100.1', '10')], rules(), false).compliant).toBe(true);
    const uneven = assessQuotes([bid('99.9', '20.01'), ask('100.1', '10')], rules(), false);
    expect([uneven.compliant, uneven.shortfall]).toEqual([false, 'ratio']);
  });

  it('looks past the best levels for a pair that meets every term', () => {
    // The best bid is too small beside the ask; the second bid is comparable and still inside the spread.
    const a = assessQuotes(
      [bid('99.9', '40'), bid('99.8', '12'), ask('100.1', '12'), ask('101', '100')],
      rules(),
      false,
    );
    expect(a.compliant).toBe(true);
    expect(a.bid).toEqual(bid('99.8', '12'));
  });

  it('one side missing is named', () => {
    expect(assessQuotes([ask('100.1', '10')], rules(), false).shortfall).toBe('no-bid');
    expect(assessQuotes([bid('99.9', '10')], rules(), false).shortfall).toBe('no-ask');
  });

  it('gives the verdict alone, as quotesComply, for every case above', () => {
    const cases: Array<[BookQuote[], ObligationRules, boolean]> = [
      [[bid('99.5', '10'), ask('100.5', '10')], rules(), false],
      [[bid('99.5', '10'), ask('100.501', '10')], rules(), false],
      [[bid('99.5', '10'), ask('100.501', '10')], rules(), true],
      [[bid('99.9', '9.99'), ask('100.1', '10')], rules(), false],
      [[bid('99.9', '20.01'), ask('100.1', '10')], rules(), false],
      [[bid('99.9', '40'), bid('99.8', '12'), ask('100.1', '12'), ask('101', '100')], rules(), false],
      [[ask('100.1', '10')], rules(), false],
    ];
    const verdicts = cases.map(([q, r, stressed]) => quotesComply(q, r, stressed));
    expect(verdicts).toEqual(cases.map(([q, r, stressed]) => assessQuotes(q, r, stressed).compliant));
    expect(verdicts).toEqual([true, false, true, false, false, true, false]);
  });
});

const pair = (obligations: string) => `
sandbox: { embedded: true }
pairs:
  - { blockChain: EVM_CHAIN, base: B, quote: Q, wallet: w, strategy: s.yaml, obligations: ${obligations} }
`;
const problemsOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    return (e as { details: { problems: string[] } }).details.problems.join('\n');
  }
  return '';
};

describe('obligations in the configuration', () => {
  it('compiles to terms with the documented defaults', () => {
    const c = parseBotConfig(pair('{ maxSpreadBps: 80, minValue: "500", presenceTarget: 85 }'), 'test.yaml');
    const o = c.pairs[0]?.obligations;
    if (o === undefined) throw new Error('no obligations parsed');
    expect({ ...o }).toEqual({
      maxSpreadBps: 80,
      minValue: '500',
      presenceTarget: 85,
      maxSizeRatio: 0.5,
      stressedSpreadMultiplier: 1,
      stressedAfterHaltMs: 0,
      alertMarginMs: 1_800_000,
      guard: true,
    });
    const t = obligationTerms(o);
    expect([
      t.maxSpread.unit,
      t.maxSpread.value.toFixed(),
      t.minSize.unit,
      t.minSize.value.toFixed(),
      t.target,
    ]).toEqual(['bps', '80', 'quote', '500', 0.85]);
  });

  it('refuses both or neither of a pair of alternatives, and lists every problem', () => {
    const problems = problemsOf(() =>
      parseBotConfig(pair('{ maxSpreadBps: 80, maxSpread: "1", presenceTarget: 185, maxSizeRatio: 2 }'), 'test.yaml'),
    );
    for (const key of [
      'presenceTarget',
      'maxSizeRatio',
      'set exactly one of maxSpreadBps and maxSpread',
      'set exactly one of minSize and minValue',
    ])
      expect(problems).toContain(key);
  });
});

const spans = (from: number, to: number, b = '99.9', a = '100.1', q = '10'): QuoteSpan[] => [
  { ...bid(b, q), from, to },
  { ...ask(a, q), from, to },
];

describe('measurePresence', () => {
  const H = 3_600_000;
  const day = { from: 0, to: 10 * H };
  const base: PresenceInput = {
    ...day,
    observedFrom: 0,
    schedule: [{ from: H, to: 9 * H }],
    runs: [{ from: 0, to: 10 * H }],
    market: [
      { atMs: 0, state: 'closed' },
      { atMs: H, state: 'continuous' },
      { atMs: 9 * H, state: 'closed' },
    ],
    exceptions: [],
    stressed: [],
    quotes: spans(H, 9 * H),
    rules: rules(),
  };

  it('counts continuous trading time only, and the time our quotes met the terms in it', () => {
    const r = measurePresence({ ...base, quotes: spans(2 * H, 8 * H) });
    expect([r.continuousMs, r.presentMs, r.ratio, r.closedMs]).toEqual([8 * H, 6 * H, 0.75, 2 * H]);
  });

  it('leaves halts and declared exceptional circumstances out of both sides of the ratio', () => {
    const r = measurePresence({
      ...base,
      market: [...base.market, { atMs: 3 * H, state: 'halted' }, { atMs: 4 * H, state: 'continuous' }],
      exceptions: [{ from: 6 * H, to: 7 * H }],
      quotes: spans(H, 3 * H).concat(spans(4 * H, 6 * H)),
    });
    expect([r.continuousMs, r.presentMs, r.haltedMs, r.exceptionMs]).toEqual([6 * H, 4 * H, H, H]);
    expect(r.segments.filter((s) => s.state === 'halted').map((s) => [s.from, s.to])).toEqual([[3 * H, 4 * H]]);
  });

  it('counts scheduled time while the bot was not running as absence, even with orders on the book', () => {
    const r = measurePresence({
      ...base,
      runs: [
        { from: 0, to: 3 * H },
        { from: 5 * H, to: 10 * H },
      ],
    });
    expect([r.continuousMs, r.presentMs, r.downMs]).toEqual([8 * H, 6 * H, 2 * H]);
  });

  it('a stop after the market closed is no absence until the next session; a crash in a halt is', () => {
    // The bot stops at 9 h after seeing the close at 9 h (always open: no calendar, the schedule is the day).
    const stopped = measurePresence({
      ...base,
      schedule: [{ from: 0, to: 10 * H }],
      runs: [{ from: 0, to: 9 * H }],
      market: [
        { atMs: 0, state: 'continuous' },
        { atMs: 9 * H, state: 'closed' },
      ],
    });
    expect([stopped.continuousMs, stopped.downMs]).toEqual([9 * H, 0]);
    const crashed = measurePresence({
      ...base,
      runs: [
        { from: 0, to: 3 * H },
        { from: 4 * H, to: 10 * H },
      ],
      market: [...base.market, { atMs: 2 * H, state: 'halted' }, { atMs: 4 * H, state: 'continuous' }],
    });
    expect([crashed.downMs, crashed.haltedMs]).toEqual([H, H]);
  });

  it('a quote too wide counts only while the market is stressed', () => {
    const r = measurePresence({
      ...base,
      quotes: spans(H, 9 * H, '99', '101'),
      stressed: [{ from: 2 * H, to: 3 * H }],
    });
    expect([r.presentMs, r.continuousMs]).toEqual([H, 8 * H]);
  });

  it('a partial fill that takes a side below the minimum ends the presence at the fill', () => {
    const quotes: QuoteSpan[] = [
      { ...bid('99.9', '10'), from: H, to: 9 * H },
      { ...ask('100.1', '10'), from: H, to: 5 * H },
      { ...ask('100.1', '4'), from: 5 * H, to: 9 * H },
    ];
    expect(measurePresence({ ...base, quotes }).presentMs).toBe(4 * H);
  });

  it('nothing counts before the pair was first observed', () => {
    const r = measurePresence({ ...base, observedFrom: 5 * H });
    expect([r.continuousMs, r.presentMs]).toEqual([4 * H, 4 * H]);
  });
});

describe('absenceLeftMs', () => {
  it('is the absence from now on that still reaches the target', () => {
    // 3 h of 4 h present, 5 h to go, target 80 %: (3 + 5 - x) / 9 >= 0.8 while x <= 0.8 h.
    const H = 3_600_000;
    expect(absenceLeftMs(3 * H, 4 * H, 5 * H, 0.8)).toBeCloseTo(0.8 * H, 3);
    expect(absenceLeftMs(H, 4 * H, 0, 0.8)).toBeLessThan(0);
  });
});
