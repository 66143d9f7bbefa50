/**
 * Fair-value sources from the venue's instrument record (`GET /financialinstruments/{id}`): a fund's NAV
 * (`performanceData.nav` of `navLastUpdate`, carried forward by its accrual), and the terms a bond is priced
 * with (`debtInstrumentData`: `fixedRate`, `maturityDate`, `bondIssuanceDate`). The record is found by the
 * pair's ISIN: the instrument list gives its `internalId`, and the ISIN itself is tried when the list does not.
 */
import type { FairValueSourceConfig } from '../../core/config/fair-value-config.ts';
import { Decimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import { accruedNav, navTimeOf } from '../../core/fair-value/nav.ts';
import type { FinancialInstrument, FinancialInstrumentSummary } from '../../venue/payload/instruments.ts';
import { DerivedSource, PolledInputs } from './sources.ts';

/** What the sources need of the venue's REST client. */
export interface InstrumentApi {
  listFinancialInstruments(): Promise<FinancialInstrumentSummary[]>;
  getFinancialInstrument(id: string): Promise<FinancialInstrument>;
}

/** Reads one instrument's record by ISIN; the id is looked up once and kept. */
export class InstrumentRecord {
  readonly isin: string;
  readonly #api: InstrumentApi;
  #id: string | null = null;

  constructor(api: InstrumentApi, isin: string) {
    this.#api = api;
    this.isin = isin;
  }

  async read(): Promise<FinancialInstrument> {
    if (this.#id === null) {
      const listed = (await this.#api.listFinancialInstruments()).find((i) => i.isin === this.isin);
      this.#id = listed?.internalId ?? this.isin;
    }
    return this.#api.getFinancialInstrument(this.#id);
  }
}

/** How a source's reason begins when the instrument is not of its kind (a bond has no NAV, a fund no coupon). */
export const NOT_APPLICABLE = 'not applicable';

function problem(isin: string, message: string): DltError {
  return new DltError('E_FAIR_VALUE_SOURCE', `instrument ${isin}: ${message}`, { details: { isin } });
}

export interface NavInputs {
  readonly nav: Decimal;
  readonly navAtMs: number;
  readonly navDate: string;
}

/** The NAV and its date from an instrument record; an error says what is missing. */
export function navOf(record: FinancialInstrument, isin: string): NavInputs {
  const p = record.performanceData;
  if (p == null) throw problem(isin, `${NOT_APPLICABLE}: no performanceData (not a fund)`);
  if (p.nav == null) throw problem(isin, 'performanceData.nav is missing');
  if (p.navLastUpdate == null) throw problem(isin, 'performanceData.navLastUpdate is missing');
  const navAtMs = navTimeOf(p.navLastUpdate);
  if (navAtMs === null) throw problem(isin, `navLastUpdate ${p.navLastUpdate} is not a date`);
  return { nav: new Decimal(p.nav), navAtMs, navDate: p.navLastUpdate };
}

export function navSource(config: Extract<FairValueSourceConfig, { kind: 'nav' }>, record: InstrumentRecord) {
  const inputs = new PolledInputs(
    async () => navOf(await record.read(), record.isin),
    (a, b) => a.nav.eq(b.nav) && a.navAtMs === b.navAtMs,
  );
  return new DerivedSource(
    { kind: 'nav', pollMs: config.pollMs, maxAgeMs: config.maxAgeMs, origin: `instrument ${record.isin}` },
    inputs,
    (i, nowMs) => ({ value: accruedNav(i.nav, i.navAtMs, nowMs, config.accrual), atMs: i.navAtMs }),
  );
}
