/**
 * The sandbox's true values: a fund's walk stays in its band and accrues on the sandbox clock, its NAV is
 * published at the sandbox day boundary (accelerated clock, always-open) or at the close (calendar); a bond's
 * value is its yield priced clean or dirty per token, its start yield solved to the static reference price,
 * and its yield moves with the price kept in the band.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CALENDAR, venueLocalToInstant } from '../../../../src/core/calendar.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { accruedInterest, parsePlainDate, priceFromYield } from '../../../../src/core/bond/index.ts';
import { SeededRandom } from '../../../../src/sandbox/flow/random.ts';
import { BondValue, settlementAt } from '../../../../src/sandbox/value/bond-value.ts';
import { bondQuoteOf } from '../../../../src/sandbox/value/build.ts';
import { FundValue } from '../../../../src/sandbox/value/fund-value.ts';
import { closingNav, dailyNav } from '../../../../src/sandbox/value/nav-schedule.ts';
import { TrueValues } from '../../../../src/sandbox/value/true-values.ts';
import { walkStep } from '../../../../src/sandbox/value/walk.ts';
import { SandboxClock } from '../../../../src/sandbox/venue/clock.ts';
import { DEFAULT_PAIRS } from '../../../../src/sandbox/venue/default-pairs.ts';

const YEAR = 365 * 86_400_000;
const T0 = Date.parse('2026-11-26T10:00:00Z');
const seedOf = (symbol: string) => {
  const d = DEFAULT_PAIRS.find((p) => p.pair.symbol === symbol);
  if (d === undefined) throw new Error(symbol);
  return d;
};

describe('the banded walk', () => {
  it('walks inside its band around the anchor', () => {
    const anchor = new Decimal(100);
    const s = { volatility: 0.5, bandBps: 500, random: new SeededRandom(3) };
    let v = anchor;
    const seen = Array.from({ length: 500 }, () => (v = walkStep(v, 600_000, anchor, s)));
    expect(seen.every((x) => x.gte(95) && x.lte(105))).toBe(true);
    expect(new Set(seen.map((x) => x.toFixed())).size).toBeGreaterThan(100);
  });
});

function accruingFund(): FundValue {
  return new FundValue({
    start: new Decimal('12.34'),
    startMs: T0,
    accrualPercent: new Decimal(2),
    volatility: 0,
    bandBps: 1000,
    random: new SeededRandom(1),
  });
}

describe('fund', () => {
  it('accrues 2 % a year on the sandbox clock, and less than the start value before it', () => {
    const f = accruingFund();
    expect(f.value(T0).toFixed()).toBe('12.34');
    expect(f.value(T0 + YEAR).toFixed()).toBe('12.5868');
    expect(f.value(T0 - YEAR / 2).toFixed()).toBe('12.2166');
  });

  it('walks around its accruing anchor: an unmoved walk keeps the accrual, a new reference moves the anchor', () => {
    const f = accruingFund();
    f.step(3_600_000, T0 + YEAR, new Decimal('12.34'));
    expect(f.value(T0 + YEAR).toFixed()).toBe('12.5868');
    // The close set a new reference price: the value is pulled towards it (and its accrual from then on).
    f.step(10 * 3_600_000, T0 + YEAR, new Decimal('13'));
    expect(
      f
        .value(T0 + YEAR)
        .toDecimalPlaces(12)
        .toFixed(),
    ).toBe('13');
    f.shock(100);
    expect(
      f
        .value(T0 + YEAR)
        .toDecimalPlaces(12)
        .toFixed(),
    ).toBe('13.13');
  });
});

function walkingFund(): FundValue {
  return new FundValue({
    start: new Decimal('12.34'),
    startMs: Date.parse('2026-03-02T22:50:00Z'),
    accrualPercent: new Decimal(2),
    volatility: 0.02,
    bandBps: 1000,
    random: new SeededRandom(5),
  });
}

const closeOf = (date: string) => venueLocalToInstant(date, 17 * 60);

describe('NAV publication', () => {
  it('always-open with an accelerated clock: at each sandbox midnight, the value of that moment dated the day that ended', () => {
    let wall = 1_000_000;
    // 23:50 in Berlin (CET), 2400 times faster: a wall second is 40 sandbox minutes.
    const clock = new SandboxClock({
      mode: 'accelerated',
      speed: 2400,
      startMs: Date.parse('2026-03-02T22:50:00Z'),
      wallMs: () => wall,
    });
    const model = walkingFund();
    const values = new TrueValues({
      pairs: [{ id: 'F', symbol: 'FUND1EURe', model, anchor: () => new Decimal('12.34') }],
      nowMs: () => clock.nowMs(),
      wallMs: () => wall,
      sampleMs: 250,
      navSchedule: dailyNav,
    });
    const midnight2 = Date.parse('2026-03-01T23:00:00Z');
    expect(values.nav('F')).toEqual({ atMs: midnight2, date: '2026-03-01', value: model.value(midnight2) });
    clock.begin();
    wall += 125;
    values.sample();
    expect(values.nav('F')?.date).toBe('2026-03-01');
    wall += 875;
    values.sample();
    const midnight3 = Date.parse('2026-03-02T23:00:00Z');
    expect(values.nav('F')).toEqual({ atMs: midnight3, date: '2026-03-02', value: model.value(midnight3) });
    // A clock moved by hand publishes when the NAV is read, without waiting for a sample.
    clock.advance(2 * 86_400_000);
    expect(values.nav('F')?.date).toBe('2026-03-04');
  });

  it('calendar: at the close of each trading day, dated that day; weekends and holidays publish nothing', () => {
    const schedule = closingNav({ ...DEFAULT_CALENDAR, holidays: ['2026-12-24', '2026-12-25'] });
    // Monday 2026-03-02 16:59 Berlin: the last close is Friday's.
    expect(schedule(closeOf('2026-03-02') - 60_000)).toEqual({ atMs: closeOf('2026-02-27'), date: '2026-02-27' });
    expect(schedule(closeOf('2026-03-02'))).toEqual({ atMs: closeOf('2026-03-02'), date: '2026-03-02' });
    expect(schedule(closeOf('2026-12-26')).date).toBe('2026-12-23');
  });

  it('always-open across the autumn clock change: one publication per date', () => {
    const dates = Array.from(
      { length: 6 },
      (_, i) => dailyNav(Date.parse('2026-10-24T10:00:00Z') + i * 86_400_000).date,
    );
    expect(dates).toEqual(['2026-10-23', '2026-10-24', '2026-10-25', '2026-10-26', '2026-10-27', '2026-10-28']);
    expect(dailyNav(Date.parse('2026-10-25T23:30:00Z'))).toEqual({
      atMs: Date.parse('2026-10-25T23:00:00Z'),
      date: '2026-10-25',
    });
  });
});

function bond(symbol: string, yieldVolatilityBps = 0, random = new SeededRandom(2)) {
  const d = seedOf(symbol);
  const q = bondQuoteOf(d.instrument, symbol);
  const start = new Decimal(d.pair.staticReferencePrice as string);
  return { q, start, model: new BondValue({ ...q, start, startMs: T0, yieldVolatilityBps, bandBps: 400, random }) };
}

describe('bond', () => {
  it('has annual ACT/ACT-ICMA terms from the instrument seed, and the convention of its pair', () => {
    const { q } = bond('XBOND26EURe');
    expect(q.terms).toMatchObject({ frequency: 1, dayCount: 'ACT/ACT-ICMA', couponPercent: new Decimal('1.75') });
    expect([q.terms.issue, q.terms.maturity]).toEqual([
      parsePlainDate('2025-01-02', 'i'),
      parsePlainDate('2036-06-30', 'm'),
    ]);
    expect([q.convention, q.nominalPerToken.toFixed()]).toEqual(['dirty', '100']);
    expect(bondQuoteOf(seedOf('GRN27EURe').instrument, 'g').nominalPerToken.toFixed()).toBe('50');
  });

  it('solves its start yield so that it is worth the static reference price at the start', () => {
    for (const symbol of ['BOND26EURe', 'XBOND26EURe', 'GRN27EURe']) {
      const { model, start } = bond(symbol);
      expect([symbol, model.value(T0).sub(start).abs().lt('1e-9')]).toEqual([symbol, true]);
      expect(model.yieldPercent().gt(0) && model.yieldPercent().lt(6)).toBe(true);
    }
  });

  it('prices its yield at the sandbox date, clean or dirty per token', () => {
    const settlement = parsePlainDate('2026-11-26', 's');
    for (const symbol of ['BOND26EURe', 'XBOND26EURe', 'GRN27EURe']) {
      const { q, model } = bond(symbol);
      const p = priceFromYield(q.terms, settlement, model.yieldPercent());
      const per100 = q.convention === 'dirty' ? p.dirtyPrice : p.cleanPrice;
      expect(model.value(T0).eq(per100.mul(q.nominalPerToken).div(100))).toBe(true);
    }
    const x = bond('XBOND26EURe');
    const clean = priceFromYield(x.q.terms, settlement, x.model.yieldPercent()).cleanPrice;
    expect(x.model.value(T0).sub(clean).sub(accruedInterest(x.q.terms, settlement)).abs().lt('1e-150')).toBe(true);
  });

  it('holds the settlement within the life of the bond', () => {
    const { q } = bond('BOND26EURe');
    expect(settlementAt(q.terms, Date.parse('2024-05-01T12:00:00Z'))).toEqual(q.terms.issue);
    expect(settlementAt(q.terms, Date.parse('2040-05-01T12:00:00Z'))).toEqual(parsePlainDate('2031-12-30', 'x'));
    // The Berlin date, not the UTC one.
    expect(settlementAt(q.terms, Date.parse('2026-11-26T23:30:00Z'))).toEqual(parsePlainDate('2026-11-27', 'x'));
  });

  it('moves its yield and keeps the price inside the band around the reference price', () => {
    const { model, start } = bond('BOND26EURe', 80, new SeededRandom(9));
    const yields = new Set<string>();
    let atEdge = 0;
    for (let i = 0; i < 60; i++) {
      model.step(1_800_000, T0, start);
      const v = model.value(T0);
      expect(v.gte(start.mul(0.96).sub('1e-9')) && v.lte(start.mul(1.04).add('1e-9'))).toBe(true);
      if (v.sub(start).abs().sub(4).abs().lt('1e-9')) atEdge++;
      yields.add(model.yieldPercent().toFixed(6));
    }
    expect(yields.size).toBeGreaterThan(20);
    expect(atEdge).toBeGreaterThan(0);
  });

  it('a shock of +100 bp moves the price by 1 %', () => {
    const { model, start } = bond('BOND26EURe');
    model.shock(100, T0);
    expect(model.value(T0).div(start).sub('1.01').abs().lt('1e-9')).toBe(true);
  });
});
