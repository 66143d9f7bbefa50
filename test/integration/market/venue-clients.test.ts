import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { botConfigSchema } from '../../../src/core/config/bot-config.ts';
import { createVenueClients, type VenueClients } from '../../../src/market/venue-clients.ts';
import { FakeRestVenue } from '../../support/venue/fake-rest-venue.ts';
import { FakeWsVenue } from '../../support/venue/fake-ws-venue.ts';
import { TestClock } from '../../support/clock.ts';
import { loadPairFixture } from '../../support/pairs.ts';

let rest: FakeRestVenue;
let ws: FakeWsVenue;
let clients: VenueClients | undefined;
beforeEach(async () => {
  [rest, ws] = await Promise.all([FakeRestVenue.start(), FakeWsVenue.start()]);
});
afterEach(async () => {
  await clients?.close();
  await Promise.all([rest.close(), ws.close()]);
});

describe('venue clients built from the bot configuration', () => {
  it('use the configured URLs, date field, staleness limit and secrets', async () => {
    const evm = loadPairFixture('evm-pair');
    rest.route('/tradingpairs', { body: { items: [evm], total_count: 1 } });
    const config = botConfigSchema.parse({
      venue: {
        restUrl: rest.baseUrl,
        wsUrl: ws.url,
        wsHost: 'ws.acme.example',
        dateHeader: 'x-acme-date',
        apiKey: { env: 'VENUE_API_KEY' },
        accessToken: { env: 'VENUE_TOKEN' },
        marketDataStaleMs: 7_000,
      },
    }).venue;
    if (config === undefined) throw new Error('venue section missing');
    const clock = new TestClock();
    clients = createVenueClients(
      config,
      { apiKey: 'key-from-env', auth: { kind: 'static', token: 'token-from-env' } },
      { clock, random: () => 0.5 },
    );

    const pair = await clients.pairs.resolve({ blockChain: 'EVM_CHAIN', baseSymbol: 'BOND26', quoteSymbol: 'EURe' });
    expect(pair.id).toBe(evm.id);

    clients.feed.add({ symbol: String(evm.symbol), pairId: pair.id });
    clients.marketData.start();
    await once(clients.marketData, 'subscribed');
    expect(ws.subscribes()[0]).toMatchObject({
      channel: `orderbook/bytradingpair/${String(evm.symbol)}`,
      authorization: { host: 'ws.acme.example', 'x-acme-date': '20260302T090000Z', 'x-api-key': 'key-from-env' },
    });
    clock.advance(6_999);
    expect(clients.feed.isStale(String(evm.symbol))).toBe(false);
    clock.advance(1);
    expect(clients.feed.isStale(String(evm.symbol))).toBe(true);
  });
});
