/**
 * `dlt-mm report` on a state file written the way the bot writes it: the figures of the page, the JSON and the
 * CSV agree with the day, every chart is an SVG drawn now, and the page needs nothing from a network.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { venueLocalToInstant } from '../../../src/core/calendar.ts';
import { Decimal } from '../../../src/core/decimal.ts';
import { newOrder } from '../../../src/core/order-state.ts';
import { writeReport, type ReportFiles } from '../../../src/cli/commands/report.ts';
import { openStore } from '../../../src/store/store.ts';
import { fileCliIo } from '../../support/cli-io.ts';
import { FakeRestVenue } from '../../support/venue/fake-rest-venue.ts';

const DAY = '2026-03-02';
const at = (hh: number, mm: number) => venueLocalToInstant(DAY, hh * 60 + mm);
const MIN = 60_000;
let dir: string;
let files: ReportFiles;
let json: Record<string, unknown> & { pairs: Array<Record<string, unknown>> };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dltmm-report-'));
  writeFileSync(
    join(dir, 'bot.yaml'),
    "sandbox: { manifest: m.json }\nstore: { path: state.sqlite }\ncalendar: { enabled: true }\nevaluation: { chainFeeRate: { evm: '2000' } }\n",
  );
  let clock = at(7, 0);
  const store = openStore(join(dir, 'state.sqlite'), () => clock);
  const o = store.obligations;
  o.savePair({
    pairId: 'p1',
    symbol: 'BOND26EURe',
    chain: 'evm',
    wallet: '0xaa',
    scales: { baseInternal: '100', quoteInternal: '1000', baseNative: '100000000', quoteNative: '1000000' },
    obligations: {
      maxSpreadBps: 100,
      minSize: '10',
      presenceTarget: 80,
      maxSizeRatio: 0.5,
      stressedSpreadMultiplier: 1,
      stressedAfterHaltMs: 0,
      alertMarginMs: 0,
      guard: true,
    },
    calendar: { enabled: true, holidays: [], open: '08:00', close: '17:00', clearingDelayMinutes: 5 },
  });
  // Runs 07:00-12:00 and 12:30-18:00: half an hour of downtime inside the session.
  const r1 = o.startRun(at(7, 0));
  o.stopRun(r1, at(12, 0));
  const r2 = o.startRun(at(12, 30));
  o.stopRun(r2, at(18, 0));
  o.recordMarket('p1', at(7, 0), 'closed', 'OUT_OF_TRADING');
  o.recordMarket('p1', at(8, 0), 'continuous', 'CONTINUOUS_TRADING');
  o.recordMarket('p1', at(10, 0), 'halted', 'AUTOMATIC_TRADING_HALT');
  o.recordMarket('p1', at(10, 30), 'continuous', 'CONTINUOUS_TRADING');
  o.recordMarket('p1', at(12, 30), 'continuous', 'CONTINUOUS_TRADING');
  o.recordMarket('p1', at(17, 0), 'closed', 'OUT_OF_TRADING');
  // Quotes at 99.9 / 100.1 (20 bp), 10 each: from 08:00 to 16:00, leaving at 16:00 (an hour absent).
  for (const [id, side, price] of [
    [1n, 'buy', 99_900n],
    [2n, 'sell', 100_100n],
  ] as const) {
    o.rested({
      chain: 'evm',
      wallet: '0xaa',
      pairId: 'p1',
      orderId: id,
      side,
      price,
      quantity: 1_000n,
      atMs: at(8, 0),
      height: 1n,
    });
    o.ended({ chain: 'evm', wallet: '0xaa', pairId: 'p1', orderId: id, atMs: at(16, 0), height: 9n, kind: 'cancel' });
  }
  o.declare({
    kind: 'exception',
    pairId: null,
    fromMs: at(14, 0),
    toMs: at(14, 15),
    reason: 'market data feed failed',
    source: 'command',
  });
  const b = o.openBreach('p1', 'risk:maxInventory', 'would pass the position cap 20', at(15, 0));
  o.closeBreach(b, at(15, 5));
  for (let t = at(8, 0); t < at(17, 0); t += 15 * MIN) {
    const k = (t - at(8, 0)) / (60 * MIN);
    o.addSample({
      pairId: 'p1',
      atMs: t,
      mark: '100',
      // The value the attribution marks to: the fair value below.
      value: (100 + k / 100).toFixed(2),
      position: String(k),
      realised: (k / 10).toFixed(2),
      unrealised: '0.5',
      fees: (k / 100).toFixed(3),
      bid: '99.9',
      ask: '100.1',
      spreadBps: 20,
      maxSpreadBps: 100,
      compliant: true,
      presence: 0.9,
    });
    // The fair value a little above the mid of others, a deviation guard in force for the last hour.
    store.fairValues.add({
      pairId: 'p1',
      atMs: t,
      fair: (100 + k / 100).toFixed(2),
      source: 'feed',
      othersMid: '100',
      action: k >= 8 ? 'widen' : 'quote',
      guards: k >= 8 ? ['deviation'] : [],
    });
  }
  // One order rejected, one filled (a maker fill), and their transactions with fees.
  clock = at(9, 0);
  store.orders.create(newOrder({ clientOrderId: 7n, pairId: 'p1', side: 'buy', quantity: 500n, price: 99_000n }), {
    wallet: '0xaa',
    chain: 'evm',
  });
  store.orders.apply('0xaa', 7n, { type: 'Refused', code: 'E_VENUE_MARKET_CLOSED', reason: 'closed' });
  store.orders.create(newOrder({ clientOrderId: 8n, pairId: 'p1', side: 'sell', quantity: 500n, price: 100_100n }), {
    wallet: '0xaa',
    chain: 'evm',
    level: 0,
  });
  store.orders.apply('0xaa', 8n, { type: 'SubmissionSent', txHash: '0xt1' });
  store.orders.apply('0xaa', 8n, { type: 'Accepted', orderId: 3n });
  store.orders.apply('0xaa', 8n, { type: 'Rested', quantity: 500n });
  store.orders.apply(
    '0xaa',
    8n,
    { type: 'Filled', fillId: 'f1', quantity: 500n, price: 100_100n, role: 'maker' },
    {
      fillId: 'f1',
      wallet: '0xaa',
      clientOrderId: 8n,
      pairId: 'p1',
      side: 'sell',
      role: 'maker',
      quantity: 500n,
      price: 100_100n,
      baseDelta: -500_000_000n,
      // 5 × 100.1 less the commission
      quoteDelta: 500_450_000n,
      fee: 50_000n,
      txHash: '0xf',
      height: 5n,
      atMs: at(9, 30),
    },
  );
  store.transactions.recordSigned({
    txHash: '0xt1',
    chain: 'evm',
    wallet: '0xaa',
    source: '0xaa',
    sequence: 1n,
    kind: 'place',
    clientOrderId: 8n,
    raw: '0x',
  });
  store.transactions.mark('0xt1', 'included', null, 21_000n * 30_000_000_000n);
  store.transactions.recordSigned({
    txHash: '0xt2',
    chain: 'evm',
    wallet: '0xaa',
    source: '0xaa',
    sequence: 2n,
    kind: 'cancel',
    clientOrderId: null,
    raw: '0x',
  });
  store.transactions.mark('0xt2', 'failed', null, 1_000n);
  // The fill's value when the bot learnt of it, a second and a minute later.
  for (const [horizonMs, value] of [
    [0, '100.05'],
    [1_000, '100.06'],
    [60_000, '100.2'],
  ] as const)
    store.evaluation.addMark({ fillId: 'f1', pairId: 'p1', horizonMs, value, atMs: at(9, 30) + horizonMs });
  store.close();
  files = await writeReport('bot.yaml', fileCliIo(dir, []), { day: DAY, out: join(dir, 'out'), nowMs: at(20, 0) });
  json = JSON.parse(readFileSync(files.json, 'utf8')) as typeof json;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the trading-day report', () => {
  it('measures the day: continuous trading 08:00-17:00 less the halt and the exception, present until 16:00 except while the bot was down', () => {
    const c = json.pairs[0]?.compliance as Record<string, number | boolean>;
    // 9 h of session - 30 min halt - 15 min exception = 8 h 15 min counted; 30 min of it down.
    expect(c.continuousMs).toBe(8.25 * 3_600_000);
    expect(c.downMs).toBe(30 * MIN);
    // Present 08:00-16:00 less halt (30), exception (15), downtime (30): 6 h 45 min.
    expect(c.presentMs).toBe(6.75 * 3_600_000);
    expect(c.presence).toBeCloseTo(6.75 / 8.25, 12);
    expect(c.met).toBe(true);
    expect(c.haltedMs).toBe(30 * MIN);
  });

  it('writes the page, the JSON and the CSV tables beside each other', () => {
    expect(files.html.endsWith('dlt-mm-2026-03-02.html')).toBe(true);
    const csv = readFileSync(files.csv.find((f) => f.endsWith('-compliance.csv')) as string, 'utf8')
      .trim()
      .split('\n');
    expect(csv[0]).toBe(
      'pair,symbol,target,presence,met,continuous_s,present_s,down_s,halted_s,exception_s,max_spread,min_size,size_ratio,guard,breaches',
    );
    expect(
      csv[1]?.startsWith(
        `p1,BOND26EURe,0.8,${6.75 / 8.25},true,29700,24300,1800,1800,900,100 bp,10 base,0.5,true,risk:maxInventory`,
      ),
    ).toBe(true);
    const fills = readFileSync(files.csv.find((f) => f.endsWith('-fills.csv')) as string, 'utf8')
      .trim()
      .split('\n');
    expect(fills[1]).toBe(`p1,${new Date(at(9, 30)).toISOString()},sell,maker,5,100.1,0.05,0xf`);
    const tx = readFileSync(files.csv.find((f) => f.endsWith('-transactions.csv')) as string, 'utf8')
      .trim()
      .split('\n');
    expect(tx.slice(1)).toEqual([
      'evm,0xaa,cancel,1,0,1,0,1000,0.000000000000001',
      'evm,0xaa,place,1,1,0,0,630000000000000,0.00063',
    ]);
    expect(json.rejections).toEqual([{ pairId: 'p1', reason: 'E_VENUE_MARKET_CLOSED', count: 1 }]);
  });

  it('draws every chart as SVG at report time, and the page fetches nothing', () => {
    expect(files.charts).toEqual([
      'presence-p1',
      'pnl-p1',
      'inventory-p1',
      'spread-p1',
      'fills-p1',
      'fair-p1',
      'markout-p1',
      'transactions',
      'rejections',
    ]);
    const html = readFileSync(files.html, 'utf8');
    for (const id of files.charts) {
      const figure = new RegExp(
        `<figure class="chart" id="chart-${id}"[^>]*>.*?<svg[^>]*width="(\\d+)"[^>]*height="(\\d+)"[\\s\\S]*?</svg></figure>`,
      ).exec(html);
      expect({ id, drawn: figure !== null && Number(figure[1]) > 0 && Number(figure[2]) > 0 }).toEqual({
        id,
        drawn: true,
      });
    }
    expect(html).not.toMatch(/<script|<link|<img|<iframe|url\(|@import|src=|href="http/i);
    expect(html).toContain('Presence');
    expect(html).toContain('market data feed failed');
    expect(html).toContain("fair value against our best quotes and the mid of others' book");
  });

  it('keeps the fair value samples in the JSON, with their source and guards', () => {
    const json = JSON.parse(readFileSync(files.json, 'utf8')) as {
      pairs: Array<{ fairValues: Array<{ fair: string; source: string; guards: string[] }> }>;
    };
    const samples = json.pairs[0]!.fairValues;
    expect(samples).toHaveLength(36);
    expect(samples[0]).toMatchObject({ fair: '100.00', source: 'feed', guards: [] });
    expect(samples.at(-1)).toMatchObject({ fair: '100.09', guards: ['deviation'] });
  });

  it('attributes the PnL marked to the fair value: spread capture + inventory result - commissions - chain fees, exactly', () => {
    const a = (json.pairs[0] as { evaluation: { attribution: Record<string, string | number | null> } }).evaluation
      .attribution;
    expect(a).toEqual({
      // sold 5 at 100.1 when the value was 100.05
      spreadCapture: '0.25',
      // short 5 from 100.05 to the day's last value, 100.09
      inventory: '-0.2',
      commissions: '0.05',
      // 0.00063 ETH at 2000 (the failed cancel names no order: no pair's)
      chainFees: '1.26',
      total: '-1.26',
      openingPosition: '0',
      openingValue: null,
      closingPosition: '-5',
      closingValue: '100.09',
      unvalued: 0,
    });
    const d = (k: string) => new Decimal(a[k] as string);
    expect(d('spreadCapture').add(d('inventory')).sub(d('commissions')).sub(d('chainFees')).eq(d('total'))).toBe(true);
    const csv = readFileSync(files.csv.find((f) => f.endsWith('-attribution.csv')) as string, 'utf8')
      .trim()
      .split('\n');
    expect(csv[1]).toBe('p1,-1.26,0.25,-0.2,0.05,1.26,0,,-5,100.09,0');
  });

  it('gives the markouts by horizon and side, by ladder level, the worst fills, and their curve', () => {
    const e = (
      json.pairs[0] as {
        evaluation: {
          markouts: Array<{ horizonMs: number; side: string; fills: number; quote: string; bps: string | null }>;
          levels: Array<{ horizonMs: number; level: number; bps: string | null }>;
          worst: Array<{ markout: string; horizonMs: number; level: number | null }>;
        };
      }
    ).evaluation;
    expect(e.markouts.filter((m) => m.side === 'sell').map((m) => [m.horizonMs, m.fills, m.quote])).toEqual([
      [1_000, 1, '0.2'],
      [60_000, 1, '-0.5'],
    ]);
    expect(e.markouts.find((m) => m.side === 'buy')?.bps).toBeNull();
    expect(new Decimal(e.levels.find((l) => l.horizonMs === 60_000)!.bps!).toFixed(6)).toBe(
      new Decimal('-0.5').div('500.5').mul(10_000).toFixed(6),
    );
    expect(e.worst.map((w) => [w.markout, w.horizonMs, w.level])).toEqual([['-0.5', 60_000, 0]]);
    const html = readFileSync(files.html, 'utf8');
    expect(html).toContain('PnL attribution');
    expect(html).toContain('Worst fills at 1 min');
    const csv = readFileSync(files.csv.find((f) => f.endsWith('-markouts.csv')) as string, 'utf8')
      .trim()
      .split('\n');
    expect(csv).toContain(
      'p1,60000,sell,1,-0.5,' + e.markouts.find((m) => m.horizonMs === 60_000 && m.side === 'sell')!.bps,
    );
  });
});

const trade = (atMs: number, price: string | number, quantity: string | number) => ({
  tradingDateTime: new Date(atMs).toISOString(),
  price,
  quantity,
  priceNotation: 'MONE',
  venueOfExecution: '21XX',
});

describe("the market context: the venue's public trades of the day beside ours", () => {
  it('is read from the venue the manifest names, when the report is made: count, volume, VWAP and last price per side', async () => {
    const venue = await FakeRestVenue.start();
    try {
      venue.route('/posttrade/recent', {
        body: {
          items: [
            trade(at(21, 0), '120', '1'), // after the report was made: not of the day so far
            trade(at(15, 0), 100.2, 3), // JSON numbers, read by their exact text
            trade(at(9, 30), '100.1', '5'),
            { ...trade(at(9, 0), '100', '1'), price: 'n/a' }, // malformed: skipped
            trade(at(8, 0) - 86_400_000, '90', '2'), // the day before
          ],
        },
      });
      writeFileSync(
        join(dir, 'm2.json'),
        JSON.stringify({
          venue: {
            restUrl: venue.baseUrl,
            wsUrl: 'ws://127.0.0.1:1/event/realtime',
            wsHost: 'h',
            dateHeader: 'x-amz-date',
            apiKey: 'k',
            participantId: 'p',
            accessToken: 't',
          },
          chains: {},
          wallets: [],
        }),
      );
      writeFileSync(join(dir, 'bot2.yaml'), readFileSync(join(dir, 'bot.yaml'), 'utf8').replace('m.json', 'm2.json'));
      const with2 = await writeReport('bot2.yaml', fileCliIo(dir, []), {
        day: DAY,
        out: join(dir, 'out2'),
        nowMs: at(20, 0),
      });
      expect(venue.requestsTo('/posttrade/recent').map((r) => r.query)).toEqual([{ tradingpair: 'p1', limit: '1000' }]);
      const market = (JSON.parse(readFileSync(with2.json, 'utf8')) as typeof json).pairs[0]?.market;
      expect(market).toEqual({
        // 5 at 100.1 and 3 at 100.2: (500.5 + 300.6) / 8
        venue: { count: 2, volume: '8', vwap: '100.1375', lastPrice: '100.2' },
        ours: { count: 1, volume: '5', vwap: '100.1', lastPrice: '100.1' },
        complete: true,
        reachesFromMs: null,
        venueNote: null,
      });
      const html = readFileSync(with2.html, 'utf8');
      expect(html).toContain('<h3>Market context</h3>');
      expect(html).toContain('<td class="num">100.1375</td>');
    } finally {
      await venue.close();
    }
  });

  it('says so when no venue could be read, and still gives our side', () => {
    expect(json.pairs[0]?.market).toEqual({
      venue: null,
      ours: { count: 1, volume: '5', vwap: '100.1', lastPrice: '100.1' },
      complete: null,
      reachesFromMs: null,
      venueNote:
        'no venue in the configuration (venue.restUrl, or a readable sandbox.manifest): public trades not read',
    });
  });
});
