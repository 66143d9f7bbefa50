/**
 * The true value of each of the sandbox's pairs, built from what the venue knows of it: a fund from its
 * accrual rate, a bond from its coupon, issue and maturity dates and how the venue quotes it (annual coupons,
 * ACT/ACT-ICMA, the sandbox's convention for every bond), each starting at the pair's static reference price
 * and banded as the simulated market needs it. Seeded from the flow's seed.
 */
import type { CalendarConfig } from '../../core/calendar.ts';
import { Decimal } from '../../core/decimal.ts';
import { derivePairRules } from '../../core/rules.ts';
import { parsePlainDate, type BondTerms } from '../../core/bond/index.ts';
import { DEFAULT_ISSUE_DATE, type InstrumentSeed } from '../api/instruments.ts';
import type { VenuePair } from '../api/venue-state.ts';
import { SeededRandom } from '../flow/random.ts';
import { BondValue, type BondQuote } from './bond-value.ts';
import { FundValue } from './fund-value.ts';
import { closingNav, dailyNav } from './nav-schedule.ts';
import { TrueValues } from './true-values.ts';
import { bandBpsOf, type ValueModel } from './walk.ts';

export interface TrueValueSettings {
  readonly seed: number;
  /** Funds: relative standard deviation per sqrt(hour) of wall time. */
  readonly volatility: number;
  /** Bonds: the yield's standard deviation per sqrt(hour) of wall time, basis points. */
  readonly yieldVolatilityBps: number;
  /** Share of the distance to the anchor (a bond: its start yield) closed per hour. */
  readonly reversionPerHour: number;
  readonly sampleMs: number;
  readonly mode: 'always-open' | 'calendar';
  readonly calendar: CalendarConfig;
}

/** How the sandbox's bonds pay and are quoted: annual coupons, ACT/ACT-ICMA, the seed's dates and convention. */
export function bondQuoteOf(seed: InstrumentSeed, where: string): BondQuote {
  const terms: BondTerms = {
    couponPercent: new Decimal(seed.couponPercent ?? '0'),
    issue: parsePlainDate(seed.issueDate ?? DEFAULT_ISSUE_DATE, `${where}.issueDate`),
    maturity: parsePlainDate(seed.maturityDate ?? '', `${where}.maturityDate`),
    frequency: 1,
    dayCount: 'ACT/ACT-ICMA',
  };
  return {
    terms,
    convention: seed.convention ?? 'clean',
    nominalPerToken: new Decimal(seed.nominalPerToken ?? '100'),
  };
}

function modelOf(p: VenuePair, s: TrueValueSettings, random: SeededRandom, startMs: number): ValueModel {
  const bandBps = bandBpsOf(derivePairRules(p.record, p.overrides));
  const start = p.status.staticReferencePrice;
  if (p.instrument.kind === 'bond')
    return new BondValue({
      ...bondQuoteOf(p.instrument, p.id),
      start,
      startMs,
      yieldVolatilityBps: s.yieldVolatilityBps,
      reversionPerHour: s.reversionPerHour,
      bandBps,
      random,
    });
  return new FundValue({
    start,
    startMs,
    accrualPercent: new Decimal(p.instrument.accrualPercent ?? '0'),
    volatility: s.volatility,
    reversionPerHour: s.reversionPerHour,
    bandBps,
    random,
  });
}

export function buildTrueValues(pairs: readonly VenuePair[], s: TrueValueSettings, nowMs: () => number): TrueValues {
  const root = new SeededRandom(s.seed).fork('true value');
  const startMs = nowMs();
  return new TrueValues({
    pairs: pairs.map((p) => ({
      id: p.id,
      symbol: p.symbol,
      model: modelOf(p, s, root.fork(p.id), startMs),
      anchor: () => p.status.staticReferencePrice,
    })),
    nowMs,
    sampleMs: s.sampleMs,
    navSchedule: s.mode === 'calendar' ? closingNav(s.calendar) : dailyNav,
  });
}
