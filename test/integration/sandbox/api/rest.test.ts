/**
 * The REST API of a running sandbox against the specification, after real orders on both chains (ethers on
 * chain A, stellar-sdk on chain B): every endpoint's shape (field names, types, patterns, sort orders), the
 * values those orders imply, the bot's own REST client reading it all (with tokens from the sandbox's token
 * endpoint too), and AppError bodies for 400, 401, 404, 405, 429 and 5xx.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { resolvePair } from '../../../../src/core/pair.ts';
import { dailyNav } from '../../../../src/sandbox/value/nav-schedule.ts';
import { parseInstrument, parseInstrumentList } from '../../../../src/venue/payload/instruments.ts';
import { parsePairPage } from '../../../../src/venue/payload/trading-pairs.ts';
import { VenueRestClient } from '../../../../src/venue/rest-client.ts';
import { RestTransport } from '../../../../src/venue/rest-transport.ts';
import { ClientCredentialsTokens } from '../../../../src/venue/auth/client-credentials.ts';
import { rejected } from '../../../support/errors.ts';
import { bearer, get, until, type Json } from '../../../support/sandbox/api/sandbox-clients.ts';
import { tradersSession } from '../../../support/sandbox/api/traders-session.ts';

const ids: Record<string, bigint> = {};
const BOND = 'tp-evm-bond26-eure';
const FUND = 'tp-wasm-fund1-eure';
const DECIMAL = /^-?[0-9]+(\.[0-9]{1,18})?$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const session = tradersSession();

beforeAll(async () => {
  await Promise.all([
    (async () => {
      await Promise.all([session.t.evmApproveAll('evm-trader'), session.t.evmApproveAll('evm-mm')]);
      ids.s1 = (await session.t.evmOrder('evm-trader', 'BOND26EURe', 'sell', '2', '100.5')).orderId;
      ids.s2 = (await session.t.evmOrder('evm-trader', 'BOND26EURe', 'sell', '1.5', '101')).orderId;
      ids.b1 = (await session.t.evmOrder('evm-mm', 'BOND26EURe', 'buy', '1', '99.5')).orderId;
      ids.b2 = (await session.t.evmOrder('evm-mm', 'BOND26EURe', 'buy', '1', '99.5')).orderId;
      await session.t.evmOrder('evm-mm', 'BOND26EURe', 'buy', '0.5', '100.5');
    })(),
    (async () => {
      await Promise.all([
        session.t.wasmApprove('wasm-trader', 'FUND1EURe'),
        session.t.wasmApprove('wasm-mm', 'FUND1EURe'),
      ]);
      ids.ws = (await session.t.wasmOrder('wasm-trader', 'FUND1EURe', 'sell', '1', '12.5')).orderId;
      ids.wb = (await session.t.wasmOrder('wasm-mm', 'FUND1EURe', 'buy', '1', '12.2')).orderId;
      await session.t.wasmOrder('wasm-mm', 'FUND1EURe', 'buy', '0.5', '0', { type: 'market' });
    })(),
  ]);
  await session.sb.sync();
  // Participant order lists lag the chain by the configured 300 ms.
  await until(
    () => get(session.sb, `/participants/${session.sb.manifest.venue.participantId}/orders`, bearer(session.sb)),
    (r) => r.body.items?.filter((o: Json) => o.remainingQuantity !== o.initialQuantity).length === 2,
    'lagged order list',
  );
});

describe('financial instruments', () => {
  it('lists one instrument per base token, filtered by primary and secondary market', async () => {
    const all = await get(session.sb, '/financialinstruments');
    expect(all.status).toBe(200);
    expect(parseInstrumentList(all.body, 'test').rejected).toEqual([]);
    expect(all.body.map((i: Json) => i.symbol).toSorted()).toEqual(['BOND26', 'FUND1', 'GRN27', 'XBOND26']);
    for (const i of all.body) {
      expect(i).toMatchObject({
        status: 'ACTIVE',
        isin: expect.stringMatching(/^[A-Z]{2}[0-9A-Z]{9}[0-9]$/),
        smartContractAddress: expect.stringMatching(/^(0x)?[0-9a-fA-F]+$/),
      });
    }
    const primary = await get(session.sb, '/financialinstruments?primaryMarket=true');
    expect(primary.body.map((i: Json) => i.symbol).toSorted()).toEqual(['BOND26', 'FUND1']);
    expect(
      (await get(session.sb, '/financialinstruments?query[primaryMarket]=false&secondaryMarket=true')).body
        .map((i: Json) => i.symbol)
        .toSorted(),
    ).toEqual(['GRN27', 'XBOND26']);
    expect(
      (await session.client.listFinancialInstruments({ primaryMarket: true })).map((i) => i.symbol).toSorted(),
    ).toEqual(['BOND26', 'FUND1']);
  });

  it('serves the detail with every field group of the specification that applies to the instrument', async () => {
    const { status, body } = await get(session.sb, '/financialinstruments/fi-bond26');
    expect(status).toBe(200);
    expect(parseInstrument(body, 'test').fullName).toBe('Sandbox Energy 3.25% Green Bond 2031');
    const groups = [
      'linkedEntities',
      'availability',
      'displayData',
      'debtInstrumentData',
      'derivativeData',
      'commodityDerivativeData',
      'interestRateDerivativeData',
      'foreignExchangeDerivativeData',
      'emissionAllowanceData',
      'contractsForDifferenceData',
      'creditDerivativeData',
      'issuerData',
    ];
    expect(groups.filter((g) => body[g] === null || typeof body[g] !== 'object')).toEqual([]);
    expect(body).toMatchObject({
      cfi: expect.stringMatching(/^[A-Z]{6}$/),
      domicile: 'DE',
      protocol: 'EVM_CHAIN',
      mifirIdentifier: 'BOND',
      notionalCurrency1: 'EUR',
      tradingVenue: expect.stringMatching(/^.{1,4}$/),
    });
    // A fixed-rate bond: its terms, no benchmark index, no NAV.
    expect(body.debtInstrumentData).toMatchObject({
      fixedRate: '3.25',
      maturityDate: '2031-12-31',
      bondIssuanceDate: '2025-01-02',
      currency: 'EUR',
      indexBenchmark: null,
    });
    expect(body.performanceData).toBeNull();
    expect((await get(session.sb, '/financialinstruments/fi-xbond26')).body.debtInstrumentData).toMatchObject({
      fixedRate: '1.75',
      maturityDate: '2036-06-30',
      bondIssuanceDate: '2025-01-02',
    });
    expect(body.issuerData.legalAddress).toMatchObject({
      countryCode: 'DE',
      city: expect.any(String),
      street: expect.any(String),
      areaCode: expect.any(String),
    });
    expect((await get(session.sb, '/financialinstruments/fi-fund1')).body.protocol).toBe('WASM_CHAIN');
  });

  it("serves a fund's last published NAV, dated the sandbox date, and no debt group", async () => {
    const fund = (await get(session.sb, '/financialinstruments/fi-fund1')).body;
    const published = session.sb.values.nav(FUND);
    expect(published).not.toBeNull();
    expect(fund.performanceData).toMatchObject({
      nav: published?.value.toDecimalPlaces(6).toFixed(),
      navCurrency: 'EUR',
      navLastUpdate: published?.date,
      navSource: 'Sandbox Fund Administration',
    });
    // Always-open: the NAV of the day before the sandbox's date, published at its midnight.
    expect(fund.performanceData.navLastUpdate).toBe(dailyNav(session.sb.clock.nowMs()).date);
    expect(fund.debtInstrumentData).toBeNull();
    expect(parseInstrument(fund, 'test').performanceData?.nav).toBe(fund.performanceData.nav);
  });
});

describe('trading pairs', () => {
  it('returns every active pair in one page with total_count, whatever the limit', async () => {
    const { body } = await get(session.sb, '/tradingpairs?limit=1&count=true');
    expect(body.total_count).toBe(4);
    expect(body.items).toHaveLength(4);
    const page = parsePairPage(body, 'test');
    expect(page.rejected).toEqual([]);
    expect(new Set(body.items.map((p: Json) => p.symbol)).size).toBe(4);
    const pairs = await session.client.listTradingPairs();
    expect(resolvePair(pairs, { blockChain: 'EVM_CHAIN', baseSymbol: 'BOND26', quoteSymbol: 'EURe' }).id).toBe(BOND);
    expect(resolvePair(pairs, { blockChain: 'EVM_CHAIN', baseSymbol: 'XBOND26', quoteSymbol: 'EURe' }).id).toBe(
      'tp-evm-xbond26-eure',
    );
  });

  it('fills every TradingPair field with the formats of the specification', async () => {
    for (const id of [BOND, FUND]) {
      const p = (await get(session.sb, `/tradingpairs/${id}`)).body;
      expect(p).toMatchObject({
        id,
        creationDate: expect.stringMatching(ISO),
        modificationDate: expect.stringMatching(ISO),
        baseTokenData: { symbol: expect.any(String), isin: expect.any(String), dti: expect.any(String) },
        quoteTokenSymbol: 'EURe',
        quoteTokenEquivalentCurrency: 'EUR',
        tickSizeMode: 'REGULATORY',
        tradingStatus: 'CONTINUOUS_TRADING',
        statusChangeReason: 'START_OF_TRADING_DAY',
        statusChangeReasonText: expect.any(String),
        orderBookVersion: expect.any(String),
      });
      for (const f of [
        'baseTokenInternalScale',
        'quoteTokenInternalScale',
        'baseTokenNativeScale',
        'quoteTokenNativeScale',
      ])
        expect(p[f]).toMatch(/^[0-9]{1,38}$/);
      for (const f of ['minimumOrderValue', 'maximumOrderValue', 'minimumSizeIncrement', 'staticReferencePrice'])
        expect(p[f]).toMatch(DECIMAL);
      for (const f of [
        'priceCollarFactor',
        'maximumMatches',
        'staticThreshold',
        'dynamicThreshold',
        'liquidityBand',
        'makerCommission',
        'takerCommission',
        'marketMakerCommission',
      ])
        expect(Number.isInteger(p[f])).toBe(true);
      for (const f of ['smartContractOrderBook', 'smartContractBase', 'smartContractQuote'])
        expect(p[f]).toMatch(id === BOND ? /^0x[0-9a-fA-F]{40}$/ : /^[0-9a-f]{64}$/);
    }
    const bond = (await get(session.sb, `/tradingpairs/${BOND}`)).body;
    expect(BigInt(bond.baseTokenNativeScale) / BigInt(bond.baseTokenInternalScale)).toBe(10_000n);
    expect((await session.client.getTradingPair(FUND)).blockChain).toBe('WASM_CHAIN_TESTNET');
  });
});

describe('order book snapshots', () => {
  it('lists each resting order, and aggregates by price, best first, with limit per side', async () => {
    const book = (await get(session.sb, `/tradingpairs/${BOND}/orderbook`)).body;
    expect(book).toEqual({
      tradingPairId: BOND,
      buy: [
        { orderType: 'LIMIT', quantity: '1', limit: '99.5' },
        { orderType: 'LIMIT', quantity: '1', limit: '99.5' },
      ],
      sell: [
        { orderType: 'LIMIT', quantity: '1.5', limit: '100.5' },
        { orderType: 'LIMIT', quantity: '1.5', limit: '101' },
      ],
    });
    expect(
      (await session.client.getOrderBook(BOND)).sell.map((l) => `${l.quantity.toFixed()}@${l.limit.toFixed()}`),
    ).toEqual(['1.5@100.5', '1.5@101']);
    expect((await get(session.sb, `/tradingpairs/${BOND}/pricelevels`)).body).toEqual({
      tradingPairId: BOND,
      buy: [{ quantity: '2', limit: '99.5', orderCount: 2 }],
      sell: [
        { quantity: '1.5', limit: '100.5', orderCount: 1 },
        { quantity: '1.5', limit: '101', orderCount: 1 },
      ],
    });
    expect((await get(session.sb, `/tradingpairs/${BOND}/pricelevels?limit=1`)).body.sell).toEqual([
      { quantity: '1.5', limit: '100.5', orderCount: 1 },
    ]);
    expect((await get(session.sb, `/tradingpairs/${FUND}/pricelevels`)).body).toMatchObject({
      buy: [{ quantity: '1', limit: '12.2' }],
      sell: [{ quantity: '0.5', limit: '12.5' }],
    });
    expect((await get(session.sb, '/tradingpairs/tp-evm-xbond26-eure/orderbook')).body).toEqual({
      tradingPairId: 'tp-evm-xbond26-eure',
      buy: [],
      sell: [],
    });
    const levels = await session.client.getPriceLevels(BOND, 5);
    expect([levels.buy[0]?.limit.toFixed(), levels.sell[0]?.limit.toFixed()]).toEqual(['99.5', '100.5']);
  });

  it('reports trades in trade info and OHLC as human decimal strings', async () => {
    const info = (await get(session.sb, `/tradingpairs/${BOND}/tradeinfo`)).body;
    expect(info).toEqual({
      lastPrice: '100.5',
      referencePrice: '100',
      priceChange24h: '0.5',
      tradeVolume24h: '0.5',
      liquidityBand: 4,
      tradingStatus: 'CONTINUOUS_TRADING',
      statusChangeReason: 'START_OF_TRADING_DAY',
      statusChangeReasonText: 'Start of trading day',
      tradingHaltCounter: 0,
    });
    expect((await session.client.getTradeInfo(FUND)).lastPrice?.toFixed()).toBe('12.5');
    const ohlc = (await get(session.sb, `/tradingpairs/${FUND}/ohlc?interval=1h`)).body;
    expect(ohlc.items).toEqual([{ x: expect.any(Number), o: '12.5', h: '12.5', l: '12.5', c: '12.5', v: '0.5' }]);
    // A unix timestamp in seconds, at the start of the hour.
    expect(Number.isSafeInteger(ohlc.items[0].x) && ohlc.items[0].x % 3_600 === 0 && ohlc.items[0].x < 1e11).toBe(true);
    const starting = ohlc.items[0].x;
    // The next hour holds no trade. (The current second is no such bound: within the first second of an hour
    // it is the trade's own interval start, and that interval is rightly included.)
    const nextHour = `starting=${starting + 3_600}&to=${new Date((starting + 7_200) * 1000).toISOString()}`;
    expect((await get(session.sb, `/tradingpairs/${FUND}/ohlc?interval=1h&${nextHour}`)).body.items).toEqual([]);
    expect(
      (await get(session.sb, `/tradingpairs/${FUND}/ohlc?interval=1h&starting=${starting}`)).body.items,
    ).toHaveLength(1);
    const point = (await session.client.getOhlc(BOND, { interval: '1m' }))[0];
    expect(point?.close.toFixed()).toBe('100.5');
    expect((point?.startMs ?? 0) % 60_000).toBe(0);
    expect(Math.abs((point?.startMs ?? 0) - Date.now())).toBeLessThan(3_600_000);
  });
});

describe('participant and wallet orders', () => {
  it('needs the bearer token', async () => {
    const none = await get(session.sb, `/participants/${session.sb.manifest.venue.participantId}/orders`);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({
      code: 'UNAUTHORIZED',
      status: 401,
      message: expect.any(String),
      path: expect.any(String),
      timestamp: expect.stringMatching(ISO),
      details: [],
    });
    expect(
      (
        await get(session.sb, `/wallets/${session.t.wallet('evm-mm').address}/orders`, {
          authorization: 'Bearer wrong',
        })
      ).status,
    ).toBe(401);
  });

  it('lists the open orders of all the participant wallets on both chains, as the venue SDK reads them', async () => {
    const { body } = await get(
      session.sb,
      `/participants/${session.sb.manifest.venue.participantId}/orders`,
      bearer(session.sb),
    );
    const summary = body.items.map((o: Json) => [
      o.tradingPairId,
      o.externalOrderId,
      o.orderKind,
      o.priceLimit,
      o.initialQuantity,
      o.remainingQuantity,
      o.status,
    ]);
    expect(summary).toEqual([
      [BOND, Number(ids.s1), 'SELL', '100.5', '2', '1.5', 'OPEN'],
      [BOND, Number(ids.s2), 'SELL', '101', '1.5', '1.5', 'OPEN'],
      [BOND, Number(ids.b1), 'BUY', '99.5', '1', '1', 'OPEN'],
      [BOND, Number(ids.b2), 'BUY', '99.5', '1', '1', 'OPEN'],
      [FUND, Number(ids.ws), 'SELL', '12.5', '1', '0.5', 'OPEN'],
      [FUND, Number(ids.wb), 'BUY', '12.2', '1', '1', 'OPEN'],
    ]);
    expect(body.next_cursor).toBeUndefined();
    const first = body.items[0];
    expect(first).toEqual({
      id: `${BOND}:${ids.s1}`,
      creationDate: expect.stringMatching(ISO),
      modificationDate: expect.stringMatching(ISO),
      externalOrderId: Number(ids.s1),
      tradingPairId: BOND,
      walletAddress: session.t.wallet('evm-trader').address,
      address: session.t.wallet('evm-trader').address,
      orderKind: 'SELL',
      orderType: 'LIMIT',
      executionCondition: 'NONE',
      initialQuantity: '2',
      remainingQuantity: '1.5',
      priceLimit: '100.5',
      status: 'OPEN',
      statusReason: 'N_A',
      statusChangeTime: first.creationDate,
      finalityStatus: 'NON_FINAL',
      ownerReportingData: { ownerReportingId: 0, decisionReportingId: 0 },
      crossIdentifier: 0,
      // Always open: no trading day ends the order.
      validUntil: null,
    });
    // Partly filled: modified after its creation.
    expect(Date.parse(first.modificationDate)).toBeGreaterThan(Date.parse(first.creationDate));
    const read = await session.client.getParticipantOrders(session.sb.manifest.venue.participantId);
    expect(read.map((o) => o.externalOrderId)).toEqual([ids.s1, ids.s2, ids.b1, ids.b2, ids.ws, ids.wb]);
    expect(read.map((o) => [o.side, o.priceLimit?.toFixed(), o.remainingQuantity?.toFixed()])[0]).toEqual([
      'sell',
      '100.5',
      '1.5',
    ]);
  });

  it('takes the SDK query: trading_pair, count, and pages with limit and cursor', async () => {
    const path = `/participants/${session.sb.manifest.venue.participantId}/orders`;
    const fund = (await get(session.sb, `${path}?trading_pair=${FUND}&count=true&only_open=true`, bearer(session.sb)))
      .body;
    expect([fund.items.map((o: Json) => o.externalOrderId), fund.total_count]).toEqual([
      [Number(ids.ws), Number(ids.wb)],
      2,
    ]);
    const pages: number[][] = [];
    let cursor: string | undefined;
    do {
      const page = (
        await get(session.sb, `${path}?limit=4${cursor === undefined ? '' : `&cursor=${cursor}`}`, bearer(session.sb))
      ).body;
      pages.push(page.items.map((o: Json) => o.externalOrderId));
      cursor = page.next_cursor;
    } while (cursor !== undefined);
    expect(pages).toEqual([[ids.s1, ids.s2, ids.b1, ids.b2].map(Number), [ids.ws, ids.wb].map(Number)]);
    expect(
      (await session.client.getParticipantOrders(session.sb.manifest.venue.participantId, { pageSize: 1 })).map(
        (o) => o.externalOrderId,
      ),
    ).toEqual([ids.s1, ids.s2, ids.b1, ids.b2, ids.ws, ids.wb]);
    expect(
      (await session.client.getWalletOrders(session.t.wallet('evm-mm').address, { tradingPair: BOND })).map(
        (o) => o.externalOrderId,
      ),
    ).toEqual([ids.b1, ids.b2]);
    expect((await get(session.sb, `${path}?cursor=not-ours`, bearer(session.sb))).status).toBe(400);
    expect((await get(session.sb, `${path}?only_open=maybe`, bearer(session.sb))).status).toBe(400);
  });

  it('lists one wallet (chain A addresses in any case) and refuses other wallets', async () => {
    const lower = session.t.wallet('evm-mm').address.toLowerCase();
    expect(
      (await get(session.sb, `/wallets/${lower}/orders`, bearer(session.sb))).body.items.map(
        (o: Json) => o.externalOrderId,
      ),
    ).toEqual([Number(ids.b1), Number(ids.b2)]);
    expect(
      (await session.client.getWalletOrders(session.t.wallet('wasm-trader').address)).map((o) => o.externalOrderId),
    ).toEqual([ids.ws]);
    expect((await get(session.sb, '/wallets/not-an-address/orders', bearer(session.sb))).status).toBe(400);
    const flow = session.sb.manifest.simulatedTraders[0]?.address as string;
    expect((await get(session.sb, `/wallets/${flow}/orders`, bearer(session.sb))).status).toBe(404);
    expect((await get(session.sb, '/participants/someone-else/orders', bearer(session.sb))).status).toBe(404);
  });
});

describe('the token endpoint', () => {
  it('grants client-credentials tokens that open the participant endpoints to the bot client', async () => {
    const o = session.sb.manifest.venue.oauth;
    const tokens = new ClientCredentialsTokens({
      tokenUrl: o.tokenUrl,
      clientId: o.clientId,
      clientSecret: o.clientSecret,
      scope: 'orders:read',
    });
    const c = new VenueRestClient(new RestTransport({ baseUrl: session.sb.manifest.venue.restUrl, tokens }));
    expect((await c.getWalletOrders(session.t.wallet('wasm-trader').address)).map((x) => x.externalOrderId)).toEqual([
      ids.ws,
    ]);
    const res = await fetch(o.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: o.clientId,
        client_secret: o.clientSecret,
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const granted = (await res.json()) as Json;
    expect(granted).toEqual({
      access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      token_type: 'Bearer',
      expires_in: o.expiresIn,
    });
    expect(
      (
        await get(session.sb, `/wallets/${session.t.wallet('evm-mm').address}/orders`, {
          authorization: `Bearer ${granted.access_token}`,
        })
      ).status,
    ).toBe(200);
  });

  it('refuses wrong client credentials with invalid_client, and takes POST only', async () => {
    const o = session.sb.manifest.venue.oauth;
    const tokens = new ClientCredentialsTokens({
      tokenUrl: o.tokenUrl,
      clientId: o.clientId,
      clientSecret: 'not-the-secret',
    });
    const c = new VenueRestClient(
      new RestTransport({ baseUrl: session.sb.manifest.venue.restUrl, tokens, retry: { retries: 0 } }),
    );
    const e = await rejected(c.getWalletOrders(session.t.wallet('evm-mm').address));
    expect(e.code).toBe('E_AUTH_TOKEN');
    expect(e.message).toContain('HTTP 401 invalid_client');
    const getToken = await fetch(o.tokenUrl);
    expect([getToken.status, ((await getToken.json()) as Json).code]).toEqual([405, 'METHOD_NOT_ALLOWED']);
  });
});

describe('errors', () => {
  it('answers AppErrors for unknown resources, malformed parameters and methods', async () => {
    const cases: [string, number][] = [
      ['/tradingpairs/nope', 404],
      ['/tradingpairs/nope/orderbook', 404],
      ['/financialinstruments/nope', 404],
      ['/nothing', 404],
      [`/tradingpairs/${BOND}/pricelevels?limit=0`, 400],
      [`/tradingpairs/${BOND}/orderbook?limit=abc`, 400],
      [`/tradingpairs/${BOND}/ohlc?interval=7m`, 400],
      ['/tradingpairs?cursor=bogus', 400],
      ['/tradingpairs?count=maybe', 400],
      ['/financialinstruments?primaryMarket=yes', 400],
    ];
    for (const [path, status] of cases) {
      const r = await get(session.sb, path);
      expect([path, r.status, typeof r.body.code, typeof r.body.message, r.body.status]).toEqual([
        path,
        status,
        'string',
        'string',
        status,
      ]);
    }
    const post = await fetch(`${session.sb.manifest.venue.restUrl}/tradingpairs`, { method: 'POST' });
    expect([post.status, post.headers.get('allow'), ((await post.json()) as Json).code]).toEqual([
      405,
      'GET',
      'METHOD_NOT_ALLOWED',
    ]);
  });

  it('injects 429 with Retry-After and 5xx for the next calls, and slow answers, through the control endpoint', async () => {
    const faults = `${session.sb.manifest.venue.controlUrl}/faults/rest`;
    const add = (body: unknown) => fetch(faults, { method: 'POST', body: JSON.stringify(body) });
    expect((await add({ path: '/tradingpairs*', status: 429, count: 2, retryAfterSeconds: 0 })).status).toBe(200);
    const first = await get(session.sb, `/tradingpairs/${BOND}`);
    expect([first.status, first.headers.get('retry-after'), first.body.code]).toEqual([429, '0', 'TOO_MANY_REQUESTS']);
    // The bot's client retries the second 429 and then gets the pair.
    expect((await session.client.getTradingPair(BOND)).id).toBe(BOND);
    await add({ path: '/financialinstruments', status: 503, count: 1 });
    expect((await get(session.sb, '/financialinstruments')).body).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
    });
    expect((await get(session.sb, '/financialinstruments')).status).toBe(200);
    await add({ path: '/tradingpairs', delayMs: 400, count: 1 });
    const started = performance.now();
    expect((await get(session.sb, '/tradingpairs')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    expect((await fetch(faults, { method: 'DELETE' })).status).toBe(200);
    expect((await add({ status: 404 })).status).toBe(400);
  });

  it('makes the public chain RPC endpoints fail on demand, while the venue keeps indexing', async () => {
    const rpcFaults = `${session.sb.manifest.venue.controlUrl}/faults/rpc`;
    await fetch(rpcFaults, {
      method: 'POST',
      body: JSON.stringify({ chain: 'evm', count: 1, methods: ['eth_blockNumber'] }),
    });
    await expect(session.t.provider.getBlockNumber()).rejects.toThrow(/injected fault/);
    expect(await session.t.provider.getBlockNumber()).toBeGreaterThan(0);
    await fetch(rpcFaults, { method: 'POST', body: JSON.stringify({ chain: 'wasm', count: 1, mode: 'http-503' }) });
    await expect(session.t.server.getLatestLedger()).rejects.toThrow(/503/);
    expect((await session.t.server.getLatestLedger()).sequence).toBeGreaterThan(0);
    await fetch(rpcFaults, { method: 'POST', body: JSON.stringify({ chain: 'wasm', rate: 1 }) });
    const before = session.sb.followers.wasm.processedLedger;
    await until(
      () => session.sb.followers.wasm.processedLedger,
      (l) => l > before,
      'chain B indexing behind a faulty public RPC',
    );
    await fetch(rpcFaults, { method: 'DELETE' });
  });
});

describe('chain B history', () => {
  it('keeps the configured retention window, an hour of ledgers by default, since it lives in memory', async () => {
    expect(session.sb.config.wasm.retentionLedgers).toBe(720);
    expect(await session.t.server.getHealth()).toMatchObject({
      ledgerRetentionWindow: session.sb.config.wasm.retentionLedgers,
    });
  });
});
