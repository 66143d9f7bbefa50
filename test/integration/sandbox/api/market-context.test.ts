/**
 * The venue's two market-context sources on a running sandbox, after real trades on both chains: the public
 * post-trade feed (`GET /posttrade/recent`, no token, newest first, `tradingpair` and `limit`) and the
 * WebSocket `ticker` channel (`ticker/*` and one pair, in the documentation's field names and, switched by the
 * control API, the venue SDK's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../../src/telemetry/metrics.ts';
import { MarketDataFeed } from '../../../../src/market/feed.ts';
import { MarketDataClient } from '../../../../src/venue/market-data/ws-client.ts';
import { VenueRestClient } from '../../../../src/venue/rest-client.ts';
import { RestTransport } from '../../../../src/venue/rest-transport.ts';
import { EventsProbe, type Json } from '../../../support/sandbox/events-probe.ts';
import { control, get, until } from '../../../support/sandbox/api/sandbox-clients.ts';
import { tradersSession } from '../../../support/sandbox/api/traders-session.ts';
import { metricValue } from '../../../support/venue/metric-value.ts';

const probes: EventsProbe[] = [];
const BOND = 'BOND26EURe';
const FUND = 'FUND1EURe';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const session = tradersSession();

beforeAll(async () => {
  await Promise.all([
    (async () => {
      await Promise.all([session.t.evmApproveAll('evm-trader'), session.t.evmApproveAll('evm-mm')]);
      await session.t.evmOrder('evm-trader', BOND, 'sell', '1', '100.5');
      await session.t.evmOrder('evm-mm', BOND, 'buy', '0.5', '100.5');
    })(),
    (async () => {
      await Promise.all([session.t.wasmApprove('wasm-trader', FUND), session.t.wasmApprove('wasm-mm', FUND)]);
      await session.t.wasmOrder('wasm-trader', FUND, 'sell', '1', '12.5');
      await session.t.wasmOrder('wasm-mm', FUND, 'buy', '0.5', '0', { type: 'market' });
    })(),
  ]);
  await session.sb.sync();
});

afterAll(async () => {
  for (const p of probes) p.close();
});

async function probe(): Promise<EventsProbe> {
  const p = await EventsProbe.open(session.sb.manifest.venue.wsUrl, {
    host: session.sb.manifest.venue.wsHost,
    apiKey: session.sb.manifest.venue.apiKey,
    dateHeader: session.sb.manifest.venue.dateHeader,
    nowMs: session.sb.clock.nowMs(),
  });
  probes.push(p);
  return p;
}

describe('GET /posttrade/recent', () => {
  it('lists the trades of both chains without a token, newest first, in the documented fields', async () => {
    const r = await get(session.sb, '/posttrade/recent');
    expect(r.status).toBe(200);
    const items: Json[] = r.body.items;
    expect(items).toHaveLength(2);
    const times = items.map((i) => Date.parse(i.tradingDateTime));
    expect(times).toEqual(times.toSorted((a, b) => b - a));
    const bond = items.find((i) => i.price === '100.5');
    expect(bond).toEqual({
      tradingDateTime: expect.stringMatching(ISO),
      isin: session.sb.state.pairBySymbol(BOND)?.record.baseTokenData?.isin,
      price: '100.5',
      priceCurrency: 'EUR',
      priceNotation: 'MONE',
      quantity: '0.5',
      venueOfExecution: '21XX',
      publicationDateTime: expect.stringMatching(ISO),
      transactionIdentificationCode: expect.stringMatching(new RegExp(`^${session.t.pair(BOND).id}-\\d+$`)),
      notionalAmount: '50.25',
      notionalCurrency: 'EUR',
    });
    expect(items.find((i) => i.price === '12.5')).toMatchObject({ quantity: '0.5', notionalAmount: '6.25' });
  });

  it('filters by tradingpair (id or symbol) and bounds the list by limit; refuses an unknown pair and a bad limit', async () => {
    const byId = await get(session.sb, `/posttrade/recent?tradingpair=${session.t.pair(FUND).id}`);
    expect(byId.body.items.map((i: Json) => i.price)).toEqual(['12.5']);
    const bySymbol = await get(session.sb, `/posttrade/recent?tradingpair=${BOND}`);
    expect(bySymbol.body.items.map((i: Json) => i.price)).toEqual(['100.5']);
    expect((await get(session.sb, '/posttrade/recent?limit=1')).body.items).toHaveLength(1);
    expect((await get(session.sb, '/posttrade/recent?tradingpair=nope')).status).toBe(404);
    expect((await get(session.sb, '/posttrade/recent?limit=0')).status).toBe(400);
  });
});

describe('the bot reading the post-trade feed', () => {
  it('gets the trade made on the sandbox as exact decimals, for one pair, without a token', async () => {
    const rest = new VenueRestClient(new RestTransport({ baseUrl: session.sb.manifest.venue.restUrl }));
    const trades = await rest.getRecentPostTrades({ tradingPair: session.t.pair(BOND).id, limit: 10 });
    expect(trades).toHaveLength(1);
    expect(trades.map((x) => [x.price.toFixed(), x.quantity.toFixed(), x.notionalAmount?.toFixed()])).toEqual([
      ['100.5', '0.5', '50.25'],
    ]);
    expect(trades[0]?.tradedAtMs).toBeGreaterThan(0);
    expect(await rest.getRecentPostTrades()).toHaveLength(2);
  });
});

describe('the ticker channel', () => {
  it('sends every market on ticker/* and one on ticker/bytradingpair, then what changed, in both field-name shapes', async () => {
    const p = await probe();
    p.subscribe('all', 'ticker/*');
    p.subscribe('one', `ticker/bytradingpair/${FUND}`);
    const all = await p.waitFor((m) => m.type === 'data' && m.id === 'all', 'ticker/* data');
    expect(all.channel).toBe('ticker');
    expect(all.data.map((d: Json) => d.symbol).toSorted()).toEqual(
      session.sb.state
        .activePairs()
        .map((x) => x.symbol)
        .toSorted(),
    );
    expect(all.data.find((d: Json) => d.symbol === BOND)).toEqual({
      symbol: BOND,
      lastPrice: 100.5,
      bestBid: null,
      bestBidQuantity: null,
      bestAsk: 100.5,
      bestAskQuantity: 0.5,
      time: expect.stringMatching(ISO),
    });
    const one = await p.waitFor((m) => m.type === 'data' && m.id === 'one', 'ticker of one pair');
    expect(one.data).toEqual([
      {
        symbol: FUND,
        lastPrice: 12.5,
        bestBid: null,
        bestBidQuantity: null,
        bestAsk: 12.5,
        bestAskQuantity: 0.5,
        time: expect.stringMatching(ISO),
      },
    ]);

    // A new best bid on chain A: ticker/* says it, the FUND subscription hears nothing.
    let mark = p.messages.length;
    await session.t.evmOrder('evm-mm', BOND, 'buy', '2', '99.5');
    const change = await p.waitFor((m) => m.id === 'all' && m.data?.[0]?.bestBid === 99.5, 'the new bid', mark);
    expect(change.data).toEqual([expect.objectContaining({ symbol: BOND, bestBid: 99.5, bestBidQuantity: 2 })]);
    expect(p.data(mark).filter((m) => m.id === 'one')).toEqual([]);

    // The SDK's names: strings, bestBuyLimit / bestSellLimit, time in epoch milliseconds.
    expect((await control(session.sb, 'POST', '/ws/ticker', { fieldNames: 'sdk' })).body).toEqual({
      fieldNames: 'sdk',
      frozen: false,
    });
    try {
      mark = p.messages.length;
      await session.t.wasmOrder('wasm-mm', FUND, 'buy', '0.5', '12.2');
      const sdk = await p.waitFor((m) => m.id === 'one' && m.type === 'data', 'the SDK-shaped ticker', mark);
      expect(sdk.data).toEqual([
        {
          symbol: FUND,
          lastPrice: '12.5',
          bestBuyLimit: '12.2',
          bestBuyQuantity: '0.5',
          bestSellLimit: '12.5',
          bestSellQuantity: '0.5',
          time: expect.any(Number),
        },
      ]);
    } finally {
      await control(session.sb, 'POST', '/ws/ticker', { fieldNames: 'documentation' });
    }
  });
});

describe('the bot following the ticker', () => {
  it("reads its market's ticker in both field-name shapes, and counts a disagreement with the book that outlasts the grace", async () => {
    const metrics = createMetrics();
    const client = new MarketDataClient({
      url: session.sb.manifest.venue.wsUrl,
      host: session.sb.manifest.venue.wsHost,
      apiKey: session.sb.manifest.venue.apiKey,
      dateHeader: session.sb.manifest.venue.dateHeader,
      metrics,
    });
    const rest = new VenueRestClient(new RestTransport({ baseUrl: session.sb.manifest.venue.restUrl }));
    const feed = new MarketDataFeed({ client, rest, ticker: { graceMs: 300 }, metrics });
    const mismatches = () => metricValue(metrics, 'dltmm_venue_ticker_book_mismatch_total', { market: FUND });
    try {
      feed.add({ symbol: FUND, pairId: session.t.pair(FUND).id });
      client.start();
      // The documentation's shape (the sandbox's default): numbers.
      const first = await until(
        () => feed.ticker(FUND),
        (x) => x !== undefined && feed.book(FUND) !== undefined,
        'a ticker and a book',
      );
      expect([first?.lastPrice, first?.bestBid, first?.bestAsk].map((d) => d?.toFixed())).toEqual([
        '12.5',
        '12.2',
        '12.5',
      ]);
      expect(feed.book(FUND)?.buy[0]?.limit.toFixed()).toBe('12.2');

      // The SDK's shape: strings under bestBuyLimit / bestSellLimit, read the same.
      await control(session.sb, 'POST', '/ws/ticker', { fieldNames: 'sdk' });
      await session.t.wasmOrder('wasm-mm', FUND, 'buy', '0.5', '12.3');
      const sdk = await until(
        () => feed.ticker(FUND),
        (x) => x?.bestBid?.toFixed() === '12.3',
        'the SDK-shaped ticker',
      );
      expect([sdk?.bestBidQuantity?.toFixed(), sdk?.bestAsk?.toFixed()]).toEqual(['0.5', '12.5']);
      expect(await mismatches()).toBe(0);

      // A frozen ticker while the book moves: the disagreement outlasts the grace and is counted once.
      await control(session.sb, 'POST', '/ws/ticker', { fieldNames: 'documentation', frozen: true });
      await session.t.wasmOrder('wasm-mm', FUND, 'buy', '0.5', '12.4');
      await until(mismatches, (n) => n === 1, 'the mismatch counted');
      expect(feed.book(FUND)?.buy[0]?.limit.toFixed()).toBe('12.4');
      expect(feed.ticker(FUND)?.bestBid?.toFixed()).toBe('12.3');
    } finally {
      await control(session.sb, 'POST', '/ws/ticker', { fieldNames: 'documentation', frozen: false });
      feed.close();
      await client.close();
    }
  });
});
