import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appError, FakeRestVenue } from '../../support/venue/fake-rest-venue.ts';
import { metricValue } from '../../support/venue/metric-value.ts';
import { ACCESS_TOKEN, restHarness } from '../../support/venue/rest-harness.ts';
import { loadPairFixture } from '../../support/pairs.ts';
import { rejected } from '../../support/errors.ts';

let venue: FakeRestVenue;
beforeEach(async () => {
  venue = await FakeRestVenue.start();
});
afterEach(async () => {
  await venue.close();
});

const evm = loadPairFixture('evm-pair');
const wasm = loadPairFixture('wasm-pair');

describe('venue REST client against a spec-shaped server', () => {
  it('reads every public endpoint into typed values, without sending a token', async () => {
    const id = String(evm.id);
    venue
      .route('/tradingpairs', { body: { items: [evm, wasm], next_cursor: null, total_count: 2 } })
      .route(`/tradingpairs/${id}`, { body: evm })
      .route(`/tradingpairs/${id}/tradeinfo`, {
        body: {
          lastPrice: '101.2',
          referencePrice: '100',
          priceChange24h: '1.2',
          tradeVolume24h: '50',
          liquidityBand: 4,
          tradingStatus: 'CONTINUOUS_TRADING',
          statusChangeReason: 'START_OF_TRADING_DAY',
          tradingHaltCounter: 0,
        },
      })
      .route(`/tradingpairs/${id}/pricelevels`, {
        body: {
          tradingPairId: id,
          buy: [
            ['3', '101'],
            ['1.5', '100.5'],
          ],
          sell: [{ quantity: '2', limit: '101.5' }],
        },
      })
      .route(`/tradingpairs/${id}/orderbook`, {
        body: {
          tradingPairId: id,
          buy: [
            ['1', '101'],
            ['2', '101'],
          ],
          sell: [],
        },
      })
      .route(`/tradingpairs/${id}/ohlc`, { body: [{ x: 1772442000000, o: '100', h: '102', l: '99', c: '101' }] })
      .route('/financialinstruments', { body: [{ symbol: 'BOND26', fullName: 'Bond 2026', isin: 'DE000A1B2C34' }] })
      .route('/financialinstruments/inst-1', { body: { fullName: 'Bond 2026', symbol: 'BOND26' } });
    const { client } = restHarness(venue);

    expect((await client.listTradingPairs()).map((p) => p.id)).toEqual([evm.id, wasm.id]);
    expect((await client.getTradingPair(id)).smartContractOrderBook).toBe(evm.smartContractOrderBook);
    expect((await client.getTradeInfo(id)).lastPrice?.toFixed()).toBe('101.2');
    const levels = await client.getPriceLevels(id, 10);
    expect(levels.buy.map((l) => `${l.quantity.toFixed()}@${l.limit.toFixed()}`)).toEqual(['3@101', '1.5@100.5']);
    expect(levels.sell[0]?.limit.toFixed()).toBe('101.5');
    expect((await client.getOrderBook(id, 5)).buy).toHaveLength(2);
    expect((await client.getOhlc(id, { interval: '1h' }))[0]?.close.toFixed()).toBe('101');
    expect((await client.listFinancialInstruments({ primaryMarket: true, secondaryMarket: false }))[0]?.symbol).toBe(
      'BOND26',
    );
    expect((await client.getFinancialInstrument('inst-1')).fullName).toBe('Bond 2026');

    expect(venue.requests.map((r) => [r.path, r.query])).toEqual([
      ['/tradingpairs', { count: 'true' }],
      [`/tradingpairs/${id}`, {}],
      [`/tradingpairs/${id}/tradeinfo`, {}],
      [`/tradingpairs/${id}/pricelevels`, { limit: '10' }],
      [`/tradingpairs/${id}/orderbook`, { limit: '5' }],
      [`/tradingpairs/${id}/ohlc`, { interval: '1h' }],
      ['/financialinstruments', { primaryMarket: 'true', secondaryMarket: 'false' }],
      ['/financialinstruments/inst-1', {}],
    ]);
    expect(venue.requests.filter((r) => r.headers.authorization !== undefined)).toEqual([]);
  });

  it('follows next_cursor when the list pages (items.length below total_count)', async () => {
    venue
      .queue('/tradingpairs', { body: { items: [evm], next_cursor: 'page-2', total_count: 2 } })
      .route('/tradingpairs', (req) =>
        req.query.cursor === 'page-2'
          ? { body: { items: [wasm], total_count: 2 } }
          : appError(400, 'BAD_CURSOR', 'bad cursor'),
      );
    const { client } = restHarness(venue);
    expect((await client.listTradingPairs({ pageSize: 1 })).map((p) => p.id)).toEqual([evm.id, wasm.id]);
    expect(venue.requests.map((r) => r.query)).toEqual([
      { limit: '1', count: 'true' },
      { cursor: 'page-2', limit: '1', count: 'true' },
    ]);
  });

  it('sends the bearer token to participant and wallet endpoints and reads their open orders', async () => {
    venue
      .requireBearer(ACCESS_TOKEN)
      .route('/participants/p-7/orders', {
        body: { orders: [{ externalOrderId: '12345678901234567890', walletId: 'w' }] },
      })
      .route('/wallets/0xAbC/orders', { body: { orders: [{ externalOrderId: 7 }] } });
    const { client } = restHarness(venue);
    expect((await client.getParticipantOrders('p-7')).map((o) => o.externalOrderId)).toEqual([12345678901234567890n]);
    expect((await client.getWalletOrders('0xAbC')).map((o) => o.externalOrderId)).toEqual([7n]);
    expect(venue.requests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${ACCESS_TOKEN}`,
      `Bearer ${ACCESS_TOKEN}`,
    ]);
    expect(venue.requests.map((r) => r.query)).toEqual([
      { only_open: 'true', count: 'true' },
      { only_open: 'true', count: 'true' },
    ]);
  });

  it("pages through an order list with the SDK's query and cursor until total_count", async () => {
    venue
      .queue('/wallets/0xAbC/orders', {
        body: { items: [{ externalOrderId: '1', orderKind: 'BUY' }], next_cursor: 'p2', total_count: 2 },
      })
      .route('/wallets/0xAbC/orders', (req) =>
        req.query.cursor === 'p2'
          ? { body: { items: [{ externalOrderId: '2', orderKind: 'SELL' }], total_count: 2 } }
          : appError(400, 'BAD_CURSOR', 'bad cursor'),
      );
    const { client } = restHarness(venue);
    const orders = await client.getWalletOrders('0xAbC', { tradingPair: 'tp-1', pageSize: 1 });
    expect(orders.map((o) => [o.externalOrderId, o.side])).toEqual([
      [1n, 'buy'],
      [2n, 'sell'],
    ]);
    expect(venue.requests.map((r) => r.query)).toEqual([
      { trading_pair: 'tp-1', only_open: 'true', limit: '1', count: 'true' },
      { trading_pair: 'tp-1', only_open: 'true', limit: '1', cursor: 'p2', count: 'true' },
    ]);
  });

  it('401 is E_REST_AUTH with the AppError decoded, not retried, and the token is in no log line or error', async () => {
    venue.requireBearer('another-token-entirely');
    const { client, lines } = restHarness(venue);
    const e = await rejected(client.getWalletOrders('0xAbC'));
    expect(e.code).toBe('E_REST_AUTH');
    expect(e.details.appError).toMatchObject({ code: 'UNAUTHORIZED', message: 'Full authentication is required' });
    expect(venue.requests).toHaveLength(1);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('')).not.toContain(ACCESS_TOKEN);
    expect(JSON.stringify(e.toJSON()) + e.message + String(e.stack)).not.toContain(ACCESS_TOKEN);
  });

  it('a participant endpoint without a configured token fails locally and sends nothing', async () => {
    const { client } = restHarness(venue, { accessToken: undefined });
    expect((await rejected(client.getParticipantOrders('p-7'))).code).toBe('E_REST_AUTH');
    expect(venue.requests).toEqual([]);
  });

  it('404 is E_REST_NOT_FOUND and path segments are encoded', async () => {
    const { client } = restHarness(venue);
    const e = await rejected(client.getTradingPair('a/b c'));
    expect(e.code).toBe('E_REST_NOT_FOUND');
    expect(venue.requests.map((r) => r.path)).toEqual(['/tradingpairs/a%2Fb%20c']);
  });
});

describe('malformed payloads are errors or set aside, logged and counted, never a crash', () => {
  it('a list keeps its valid pairs and reports the bad one with field and value', async () => {
    venue.route('/tradingpairs', {
      body: { items: [evm, { ...wasm, smartContractQuote: 'not-hex' }], total_count: 2 },
    });
    const { client, lines, metrics } = restHarness(venue);
    expect((await client.listTradingPairs()).map((p) => p.id)).toEqual([evm.id]);
    expect(await metricValue(metrics, 'dltmm_venue_malformed_payloads_total', { source: '/tradingpairs' })).toBe(1);
    const warning = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'venue list item rejected; keeping the others');
    expect(warning).toMatchObject({ index: 1, problems: [{ field: 'items.1.smartContractQuote', value: 'not-hex' }] });
    expect(venue.requests).toHaveLength(1);
  });

  it('a snapshot with one bad level is E_PAYLOAD_MALFORMED naming field and value', async () => {
    venue.route('/tradingpairs/p1/pricelevels', {
      body: { tradingPairId: 'p1', buy: [['1', '100']], sell: [['2', 'NaN']] },
    });
    const { client, metrics } = restHarness(venue);
    const e = await rejected(client.getPriceLevels('p1'));
    expect(e.code).toBe('E_PAYLOAD_MALFORMED');
    expect(e.details.problems).toEqual([
      { field: 'sell.0.1', value: 'NaN', message: 'expected a decimal string or a JSON number' },
    ]);
    expect(
      await metricValue(metrics, 'dltmm_venue_malformed_payloads_total', { source: '/tradingpairs/{id}/pricelevels' }),
    ).toBe(1);
    expect(
      await metricValue(metrics, 'dltmm_venue_rest_errors_total', {
        endpoint: '/tradingpairs/{id}/pricelevels',
        code: 'E_PAYLOAD_MALFORMED',
      }),
    ).toBe(1);
  });

  it("trade info: the documentation's reason text and halt end are read; a status or reason it does not know is data, counted every time and said once", async () => {
    venue.route('/tradingpairs/p1/tradeinfo', {
      body: {
        tradingStatus: 'CIRCUIT_PAUSE',
        statusChangeReason: 'CAPACITY_LIMIT_HALT',
        statusChangeReasonText: 'Capacity limit reached',
        estimatedTradingHaltEnd: '2026-11-27T10:35:00Z',
      },
    });
    const { client, metrics, lines } = restHarness(venue);
    const first = await client.getTradeInfo('p1');
    await client.getTradeInfo('p1');
    expect([first.tradingStatus, first.statusChangeReasonText, first.estimatedTradingHaltEnd]).toEqual([
      'CIRCUIT_PAUSE',
      'Capacity limit reached',
      '2026-11-27T10:35:00Z',
    ]);
    expect(
      await metricValue(metrics, 'dltmm_venue_unknown_values_total', {
        field: 'tradingStatus',
        value: 'CIRCUIT_PAUSE',
      }),
    ).toBe(2);
    const said = lines.map((l) => JSON.parse(l) as { msg: string; field?: string; value?: string });
    expect(said.filter((l) => l.msg.startsWith('venue sent a value')).map((l) => [l.field, l.value])).toEqual([
      ['tradingStatus', 'CIRCUIT_PAUSE'],
    ]);
  });

  it('orders with onlyOpen: false: only_open=false is sent; an unknown status or reason is data, counted every time and said once; a malformed item is set aside', async () => {
    venue.route('/wallets/0xAbC/orders', {
      body: {
        items: [
          { externalOrderId: 1, status: 'FILLED', statusReason: 'N_A', crossIdentifier: 5 },
          { externalOrderId: 2, status: 'CANCELLED', statusReason: 'TRADING_PAIR_OFFBOARDING' },
          { externalOrderId: 3, status: 'CANCELLED', crossIdentifier: 'five' },
        ],
      },
    });
    const { client, metrics, lines } = restHarness(venue);
    const orders = await client.getWalletOrders('0xAbC', { onlyOpen: false });
    await client.getWalletOrders('0xAbC', { onlyOpen: false });
    expect(orders.map((o) => [o.externalOrderId, o.status, o.crossIdentifier])).toEqual([
      [1n, 'FILLED', 5n],
      [2n, 'CANCELLED', undefined],
    ]);
    expect(venue.requests.map((r) => r.query.only_open)).toEqual(['false', 'false']);
    expect(
      await metricValue(metrics, 'dltmm_venue_unknown_values_total', {
        field: 'order.statusReason',
        value: 'TRADING_PAIR_OFFBOARDING',
      }),
    ).toBe(2);
    expect(
      await metricValue(metrics, 'dltmm_venue_malformed_payloads_total', {
        source: '/wallets/{wallet_address}/orders',
      }),
    ).toBe(2);
    const said = lines.map((l) => JSON.parse(l) as { msg: string; field?: string; value?: string });
    expect(said.filter((l) => l.msg.startsWith('venue sent a value')).map((l) => [l.field, l.value])).toEqual([
      ['order.statusReason', 'TRADING_PAIR_OFFBOARDING'],
    ]);
  });

  it('a 200 body that is not JSON is E_PAYLOAD_MALFORMED; a wrong shape too', async () => {
    venue
      .route('/tradingpairs/p1/tradeinfo', { text: '<html>maintenance</html>' })
      .route('/tradingpairs', { body: [evm] });
    const { client, metrics } = restHarness(venue);
    expect((await rejected(client.getTradeInfo('p1'))).details.problems).toEqual([
      { field: '(root)', value: '<html>maintenance</html>', message: 'response body is not JSON' },
    ]);
    expect((await rejected(client.listTradingPairs())).code).toBe('E_PAYLOAD_MALFORMED');
    expect(
      await metricValue(metrics, 'dltmm_venue_malformed_payloads_total', { source: '/tradingpairs/{id}/tradeinfo' }),
    ).toBe(1);
  });
});
