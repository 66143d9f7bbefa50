import { describe, expect, it } from 'vitest';
import { fairValueSourceSchema, type FairValueSourceConfig } from '../../../../src/core/config/fair-value-config.ts';
import { priceFromYield, parsePlainDate } from '../../../../src/core/bond/index.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { BondSource } from '../../../../src/engine/fair-value/bond-source.ts';
import { buildSources, expandUrl, type FairValuePair } from '../../../../src/engine/fair-value/build.ts';
import { InstrumentRecord, navSource } from '../../../../src/engine/fair-value/instrument-sources.ts';
import type { FinancialInstrument } from '../../../../src/venue/payload/instruments.ts';
import { TestClock } from '../../../support/clock.ts';

const d = (s: string) => new Decimal(s);
const ISIN = 'DE000A1B2C34';
const DAY = 86_400_000;

/** The venue's instrument endpoints with one record, found by its internal id. */
function venueWith(record: Partial<FinancialInstrument>) {
  const calls: string[] = [];
  return {
    calls,
    api: {
      listFinancialInstruments: async () => [{ isin: ISIN, internalId: 'fi-bond26' }],
      getFinancialInstrument: async (id: string) => {
        calls.push(id);
        if (id !== 'fi-bond26') throw new Error(`no instrument ${id}`);
        return { fullName: 'x', ...record } as FinancialInstrument;
      },
    },
  };
}

const sourceOf = <K extends FairValueSourceConfig['kind']>(raw: Record<string, unknown>) =>
  fairValueSourceSchema.parse(raw) as Extract<FairValueSourceConfig, { kind: K }>;

describe('the nav source', () => {
  it("reads performanceData by the ISIN's internal id, dated the end of its day, and accrues to now", async () => {
    const v = venueWith({ performanceData: { nav: '104.2', navLastUpdate: '2026-03-01' } });
    const s = navSource(
      sourceOf<'nav'>({ kind: 'nav', accrual: { ratePercent: '3.65' } }),
      new InstrumentRecord(v.api, ISIN),
    );
    expect(await s.refresh()).toBe(true);
    const navAt = Date.UTC(2026, 2, 2);
    const r = s.reading(navAt + 10 * DAY);
    expect(v.calls).toEqual(['fi-bond26']);
    expect(r.atMs).toBe(navAt);
    // 104.2 × (1 + 3.65 % × 10 / 365)
    expect(r.value?.toFixed()).toBe('104.3042');
    expect(await s.refresh()).toBe(false);
  });

  it('says what is missing, and keeps the last good NAV through a failed read', async () => {
    const missing = navSource(sourceOf<'nav'>({ kind: 'nav' }), new InstrumentRecord(venueWith({}).api, ISIN));
    await missing.refresh();
    expect(missing.reading(0)).toMatchObject({
      value: null,
      error: `instrument ${ISIN}: not applicable: no performanceData (not a fund)`,
    });
    let fail = false;
    const v = venueWith({ performanceData: { nav: '99', navLastUpdate: '2026-03-01' } });
    const api = {
      ...v.api,
      getFinancialInstrument: async (id: string) =>
        fail ? Promise.reject(new Error('HTTP 503')) : v.api.getFinancialInstrument(id),
    };
    const s = navSource(sourceOf<'nav'>({ kind: 'nav' }), new InstrumentRecord(api, ISIN));
    await s.refresh();
    fail = true;
    await s.refresh();
    expect(s.reading(Date.UTC(2026, 2, 2))).toMatchObject({ value: d('99'), error: 'HTTP 503' });
  });
});

describe('the bond source', () => {
  const record = {
    debtInstrumentData: { fixedRate: '3.25', maturityDate: '2031-12-31', bondIssuanceDate: '2025-01-02' },
  } as Partial<FinancialInstrument>;
  const now = Date.UTC(2026, 2, 2, 10);
  const terms = {
    couponPercent: d('3.25'),
    issue: parsePlainDate('2025-01-02', 'issue'),
    maturity: parsePlainDate('2031-12-31', 'maturity'),
    frequency: 1 as const,
    dayCount: 'ACT/ACT-ICMA' as const,
  };

  it("prices the instrument's terms at a fixed yield for today's settlement, clean or dirty, per token", async () => {
    const clock = new TestClock(now);
    const reference = priceFromYield(terms, parsePlainDate('2026-03-02', 's'), d('3.1'));
    const clean = new BondSource(
      sourceOf<'bond'>({ kind: 'bond', yield: { fixed: '3.1' } }),
      undefined,
      new InstrumentRecord(venueWith(record).api, ISIN),
      null,
      clock,
    );
    await clean.refresh();
    expect(clean.reading(now)).toMatchObject({
      value: reference.cleanPrice.toDecimalPlaces(12),
      atMs: now,
      error: null,
    });
    const dirty = new BondSource(
      sourceOf<'bond'>({ kind: 'bond', yield: { fixed: '3.1' } }),
      { convention: 'dirty', nominalPerToken: '1000' },
      new InstrumentRecord(venueWith(record).api, ISIN),
      null,
      clock,
    );
    await dirty.refresh();
    expect(dirty.reading(now).value?.toFixed()).toBe(reference.dirtyPrice.mul(10).toDecimalPlaces(12).toFixed());
    expect(reference.accruedInterest.gt(0)).toBe(true);
  });

  it('a floating-rate note and missing terms are not priced, and say why', async () => {
    const frn = new BondSource(
      sourceOf<'bond'>({ kind: 'bond', yield: { fixed: '3' } }),
      undefined,
      new InstrumentRecord(
        venueWith({
          debtInstrumentData: {
            maturityDate: '2030-01-01',
            bondIssuanceDate: '2025-01-01',
            indexBenchmark: { indexName: 'EURIBOR 6M' },
          },
        } as Partial<FinancialInstrument>).api,
        ISIN,
      ),
      null,
      new TestClock(now),
    );
    await frn.refresh();
    expect(frn.reading(now).error).toBe(`instrument ${ISIN}: a floating-rate note is not priced`);
  });

  it("a yield feed plus a spread: the bond value takes the feed's time, and builds from the pair's yield feed", async () => {
    const clock = new TestClock(now);
    const fetch = (async () =>
      new Response(JSON.stringify({ yield: '2.9', timestamp: (now - 3000) / 1000 }))) as typeof globalThis.fetch;
    const pair: FairValuePair = {
      pairId: 'p',
      symbol: 'BOND26EURe',
      baseSymbol: 'BOND26',
      isin: ISIN,
      chain: 'evm',
      baseToken: '0x01',
      facts: {
        yieldFeedUrl: 'https://rates.example/{isin}/yield',
        bond: { convention: 'clean', nominalPerToken: '100' },
      },
    };
    const built = buildSources(
      {
        sources: [sourceOf<'bond'>({ kind: 'bond', yield: { feed: { pricePath: 'yield' }, spreadBps: 20 } })],
        combine: 'first',
        maxDispersionBps: 100,
        guards: { onDeviation: 'pull', widenFactor: 2 },
      },
      pair,
      {
        instruments: venueWith(record).api,
        oracle: async () => ({ value: d('1'), atMs: 0 }),
        headers: () => ({}),
        clock,
        fetch,
      },
    );
    expect(built.problems).toEqual([]);
    const bond = built.sources[0]!;
    expect(bond.origin).toBe(`instrument ${ISIN}, yield https://rates.example/${ISIN}/yield`);
    await bond.refresh();
    const r = bond.reading(now);
    expect(r.atMs).toBe(now - 3000);
    expect(r.value?.toFixed()).toBe(
      priceFromYield(terms, parsePlainDate('2026-03-02', 's'), d('3.1')).cleanPrice.toDecimalPlaces(12).toFixed(),
    );
    expect(expandUrl('https://f.example/{symbol}?b={base}&i={isin}', pair)).toBe(
      `https://f.example/BOND26EURe?b=BOND26&i=${ISIN}`,
    );
  });

  it('leaves out, with why, every source the pair cannot have: a feed without a URL, an oracle it lacks, no ISIN', () => {
    const built = buildSources(
      fairSchemaOf([{ kind: 'feed' }, { kind: 'oracle' }, { kind: 'nav' }]),
      { pairId: 'p', symbol: 'X', baseSymbol: 'X', isin: null, chain: 'wasm', baseToken: 'C', facts: undefined },
      {
        instruments: venueWith({}).api,
        oracle: async () => ({ value: d('1'), atMs: 0 }),
        headers: () => ({}),
        clock: new TestClock(),
      },
    );
    expect(built.sources).toEqual([]);
    expect(built.problems).toEqual([]);
    expect(built.skipped).toEqual([
      'pair X: fairValue.sources.0 (feed): no url, and pair X has no feed of its own (pairs[].fairValue)',
      'pair X: fairValue.sources.1 (oracle): pair X has no oracle (pairs[].fairValue.oracle)',
      'pair X: fairValue.sources.2 (nav): pair X has no ISIN, so its instrument record cannot be found',
    ]);
  });
});

function fairSchemaOf(sources: Array<Record<string, unknown>>) {
  return {
    sources: sources.map((s) => fairValueSourceSchema.parse(s)),
    combine: 'first' as const,
    maxDispersionBps: 100,
    guards: { onDeviation: 'pull' as const, widenFactor: 2 },
  };
}
