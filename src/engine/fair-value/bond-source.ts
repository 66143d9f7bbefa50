/**
 * The `bond` fair-value source: the price of the pair's bond from a yield, with the coupon, maturity and issue
 * date of its instrument record (`debtInstrumentData`), settled today (the venue's date: the chains settle at
 * once), per token: the clean or dirty price per 100 nominal times the nominal of one token over 100. The
 * yield is fixed in the strategy or a benchmark yield from a feed plus a spread; its age is the feed's (a fixed
 * yield never ages). A floating-rate note (an `indexBenchmark` without a fixed rate) is not priced.
 */
import type { Clock } from '../../core/clock.ts';
import { toVenueLocal } from '../../core/calendar.ts';
import type { FairValueSourceConfig, PairFairValue } from '../../core/config/fair-value-config.ts';
import { Decimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import type { SourceReading } from '../../core/fair-value/combine.ts';
import { parsePlainDate, priceFromYield, type BondTerms, type Frequency } from '../../core/bond/index.ts';
import { NOT_APPLICABLE, type InstrumentRecord } from './instrument-sources.ts';
import type { FinancialInstrument } from '../../venue/payload/instruments.ts';
import type { JsonFeed } from './json-feed.ts';
import { PolledInputs, PolledSource, type FairValueSource } from './sources.ts';

type BondConfig = Extract<FairValueSourceConfig, { kind: 'bond' }>;

/** The terms of the bond from its instrument record; an error says what is missing. */
export function bondTermsOf(record: FinancialInstrument, config: BondConfig, isin: string): BondTerms {
  const d = record.debtInstrumentData;
  const fail = (m: string) => new DltError('E_FAIR_VALUE_SOURCE', `instrument ${isin}: ${m}`, { details: { isin } });
  if (d == null) throw fail(`${NOT_APPLICABLE}: no debtInstrumentData (not a bond)`);
  if (d.fixedRate == null)
    throw fail(
      d.indexBenchmark == null ? 'debtInstrumentData.fixedRate is missing' : 'a floating-rate note is not priced',
    );
  const maturity = d.maturityDate ?? record.maturityDate;
  if (maturity == null) throw fail('debtInstrumentData.maturityDate is missing');
  if (d.bondIssuanceDate == null) throw fail('debtInstrumentData.bondIssuanceDate is missing');
  return {
    couponPercent: new Decimal(d.fixedRate),
    issue: parsePlainDate(d.bondIssuanceDate, 'bondIssuanceDate'),
    maturity: parsePlainDate(maturity, 'maturityDate'),
    frequency: config.frequency as Frequency,
    dayCount: config.dayCount,
  };
}

const NEVER = Number.MAX_SAFE_INTEGER;

export class BondSource implements FairValueSource {
  readonly kind = 'bond' as const;
  readonly pollMs: number;
  readonly maxAgeMs: number;
  readonly origin: string;
  readonly #config: BondConfig;
  readonly #terms: PolledInputs<BondTerms>;
  readonly #yield: PolledSource | null;
  readonly #clock: Clock;
  readonly #perToken: Decimal;
  readonly #dirty: boolean;
  #termsReadMs: number | null = null;

  constructor(
    config: BondConfig,
    facts: PairFairValue['bond'],
    record: InstrumentRecord,
    yieldFeed: JsonFeed | null,
    clock: Clock,
  ) {
    this.#config = config;
    this.#clock = clock;
    this.#terms = new PolledInputs(
      async () => bondTermsOf(await record.read(), config, record.isin),
      (a, b) => JSON.stringify(a) === JSON.stringify(b),
    );
    const feed = 'feed' in config.yield ? config.yield.feed : null;
    this.#yield =
      feed === null || yieldFeed === null
        ? null
        : new PolledSource(
            { kind: 'bond', pollMs: feed.pollMs, maxAgeMs: feed.maxAgeMs, origin: yieldFeed.endpoint },
            () => yieldFeed.read(),
          );
    this.pollMs = feed?.pollMs ?? config.pollMs;
    this.maxAgeMs = feed?.maxAgeMs ?? NEVER;
    this.origin = `instrument ${record.isin}${this.#yield === null ? '' : `, yield ${this.#yield.origin}`}`;
    this.#perToken = new Decimal(config.nominalPerToken ?? facts?.nominalPerToken ?? '100').div(100);
    this.#dirty = (config.convention ?? facts?.convention ?? 'clean') === 'dirty';
  }

  async refresh(): Promise<boolean> {
    const now = this.#clock.now();
    const termsDue =
      this.#termsReadMs === null || now - this.#termsReadMs >= this.#config.pollMs || this.#terms.value === null;
    const [terms, y] = await Promise.all([
      termsDue ? this.#terms.refresh() : Promise.resolve(false),
      this.#yield?.refresh() ?? Promise.resolve(false),
    ]);
    if (termsDue && this.#terms.error === null) this.#termsReadMs = now;
    return terms || y;
  }

  /** The yield in percent and the time it describes (now for a fixed one), or why there is none. */
  #yieldAt(nowMs: number): { value: Decimal; atMs: number } | string {
    const y = this.#config.yield;
    if ('fixed' in y) return { value: new Decimal(y.fixed), atMs: nowMs };
    const last = this.#yield?.last ?? null;
    if (last === null) return this.#yield?.error ?? 'not read yet';
    return { value: last.value.add(new Decimal(y.spreadBps).div(100)), atMs: last.atMs };
  }

  reading(nowMs: number): SourceReading {
    const base = { kind: this.kind, maxAgeMs: this.maxAgeMs };
    const terms = this.#terms.value;
    const y = this.#yieldAt(nowMs);
    const error = this.#terms.error ?? this.#yield?.error ?? null;
    if (terms === null) return { ...base, value: null, atMs: null, error: this.#terms.error ?? 'not read yet' };
    if (typeof y === 'string') return { ...base, value: null, atMs: null, error: y };
    try {
      const p = priceFromYield(terms, parsePlainDate(toVenueLocal(nowMs).date, 'settlement'), y.value);
      // A model price, not an amount: 12 decimals are far below any tick (accrued interest repeats forever).
      const value = (this.#dirty ? p.dirtyPrice : p.cleanPrice).mul(this.#perToken).toDecimalPlaces(12);
      return { ...base, value, atMs: y.atMs, error };
    } catch (e) {
      return { ...base, value: null, atMs: null, error: e instanceof Error ? e.message : String(e) };
    }
  }
}
