import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MarketDataClient } from '../../../src/venue/market-data/ws-client.ts';
import { acknowledge, dataFrame, FakeWsVenue } from '../../support/venue/fake-ws-venue.ts';
import { T0 } from '../../support/venue/manual-clock.ts';
import { metricValue } from '../../support/venue/metric-value.ts';
import { API_KEY, WS_HOST, wsHarness } from '../../support/venue/ws-harness.ts';

let venue: FakeWsVenue;
let client: MarketDataClient | undefined;
beforeEach(async () => {
  venue = await FakeWsVenue.start();
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  await venue.close();
});

function setup(options: Parameters<typeof wsHarness>[1] = {}) {
  const h = wsHarness(venue, options);
  client = h.client;
  return h;
}

/** Resolves with the next book of `symbol` (several books can arrive in one frame, synchronously). */
function bookOf(c: MarketDataClient, symbol: string): Promise<unknown> {
  return new Promise((resolve) => {
    const on = (b: { symbol: string }) => {
      if (b.symbol !== symbol) return;
      c.off('book', on);
      resolve(b);
    };
    c.on('book', on);
  });
}

/** Resolves once every channel is acknowledged. */
async function allActive(c: MarketDataClient): Promise<void> {
  while (Object.values(c.channels()).some((s) => s !== 'active')) await once(c, 'subscribed');
}

const level = (limit: number | string, totalQuantity: number | string, orderCount = 1) => ({ limit, totalQuantity, orderCount });
const show = (c: MarketDataClient, symbol: string) => {
  const b = c.book(symbol);
  return b === undefined ? undefined : { buy: b.buy.map((l) => `${l.quantity.toFixed()}@${l.limit.toFixed()}`), sell: b.sell.map((l) => `${l.quantity.toFixed()}@${l.limit.toFixed()}`) };
};

describe('market-data subscriptions', () => {
  it('sends an authenticated subscribe per market on one connection, with a date fresh for each message', async () => {
    const { client, clock, events } = setup({ staleAfterMs: 600_000 });
    client.subscribe('BOND26EURe');
    client.start();
    await allActive(client);
    clock.advance(61_000);
    client.subscribe('XBOND26EURe');
    await venue.until(() => venue.subscribes().length === 2, 'second subscribe');
    expect(venue.subscribes()).toEqual([
      { id: 'sub-1', type: 'subscribe', channel: 'orderbook/bytradingpair/BOND26EURe', authorization: { host: WS_HOST, 'x-acme-date': '20260302T090000Z', 'x-api-key': API_KEY } },
      { id: 'sub-2', type: 'subscribe', channel: 'orderbook/bytradingpair/XBOND26EURe', authorization: { host: WS_HOST, 'x-acme-date': '20260302T090101Z', 'x-api-key': API_KEY } },
    ]);
    expect(venue.connections).toBe(1);
    await allActive(client);
    expect(client.channels()).toEqual({ 'orderbook/bytradingpair/BOND26EURe': 'active', 'orderbook/bytradingpair/XBOND26EURe': 'active' });
    expect(events).toEqual(['connected', 'subscribed orderbook/bytradingpair/BOND26EURe', 'subscribed orderbook/bytradingpair/XBOND26EURe']);
  });

  it('keeps one book per market, each data message replacing it whole', async () => {
    const { client } = setup();
    client.subscribe('A');
    client.subscribe('B');
    client.start();
    await venue.until(() => venue.subscribes().length === 2);
    const both = bookOf(client, 'B');
    venue.send(dataFrame({ symbol: 'A', buy: [level(100.5, 2), level(100, 1.5)], sell: [level(101, 3)] }, { symbol: 'B', sell: [level('7.25', '10')] }));
    await both;
    venue.send(dataFrame({ symbol: 'A', buy: [level(99, 1)] }));
    await once(client, 'book');
    expect(show(client, 'A')).toEqual({ buy: ['1@99'], sell: [] });
    expect(show(client, 'B')).toEqual({ buy: [], sell: ['10@7.25'] });
    expect(client.book('A')).toMatchObject({ source: 'ws', time: '2026-03-02T09:00:00.000Z', receivedAt: T0 });
  });

  it('a refused subscription is retried with backoff on the same connection; so is one never acknowledged', async () => {
    const { client, clock, events, metrics } = setup({ staleAfterMs: 600_000 });
    let answers = 0;
    venue.answer = (m) => {
      answers += 1;
      if (answers === 1) return { id: m.id, type: 'subscribe_failure', message: 'unknown market' };
      if (answers === 2) return undefined;
      return acknowledge(m);
    };
    client.subscribe('A');
    client.start();
    await once(client, 'subscriptionFailed');
    // The retry, and the staleness watchdog of market A.
    expect(clock.pendingDelays()).toEqual([200, 600_000]);
    clock.advance(200);
    await venue.until(() => venue.subscribes().length === 2);
    clock.advance(3_000);
    expect(clock.pendingDelays()).toEqual([400, 596_800]);
    clock.advance(400);
    await once(client, 'subscribed');
    expect(events).toEqual([
      'connected',
      'failed orderbook/bytradingpair/A, retry in 200',
      'failed orderbook/bytradingpair/A, retry in 400',
      'subscribed orderbook/bytradingpair/A',
    ]);
    expect(venue.subscribes().map((s) => s.id)).toEqual(['sub-1', 'sub-2', 'sub-3']);
    expect(venue.connections).toBe(1);
    expect(await metricValue(metrics, 'dltmm_venue_ws_subscription_failures_total', { channel: 'orderbook/bytradingpair/A' })).toBe(2);
  });

  it('unsubscribe sends the unsubscribe message and stops applying that market', async () => {
    const { client } = setup();
    client.subscribe('A');
    client.subscribe('B');
    client.start();
    await venue.until(() => venue.subscribes().length === 2);
    client.unsubscribe('A');
    await venue.until(() => venue.received.some((r) => r.message.type === 'unsubscribe'));
    expect(venue.received.at(-1)?.message).toEqual({ id: 'sub-3', type: 'unsubscribe', channel: 'orderbook/bytradingpair/A' });
    venue.send(dataFrame({ symbol: 'A', buy: [level(1, 1)] }, { symbol: 'B', buy: [level(2, 2)] }));
    await bookOf(client, 'B');
    expect(client.book('A')).toBeUndefined();
  });

  it('orderbook/* follows every market the venue sends', async () => {
    const { client } = setup();
    client.subscribe('*');
    client.start();
    await venue.until(() => venue.subscribes().length === 1);
    expect(venue.subscribes()[0]?.channel).toBe('orderbook/*');
    const last = bookOf(client, 'Z');
    venue.send(dataFrame({ symbol: 'A', buy: [level(1, 1)] }, { symbol: 'Z', sell: [level(3, 1)] }));
    await last;
    expect([show(client, 'A'), show(client, 'Z')]).toEqual([{ buy: ['1@1'], sell: [] }, { buy: [], sell: ['1@3'] }]);
  });
});

describe('market-data connection loss', () => {
  it('reconnects with backoff after a drop and resubscribes every market', async () => {
    const { client, clock, events, metrics } = setup();
    client.subscribe('A');
    client.subscribe('B');
    client.start();
    await allActive(client);
    venue.drop();
    await once(client, 'disconnected');
    expect(client.channels()).toEqual({ 'orderbook/bytradingpair/A': 'idle', 'orderbook/bytradingpair/B': 'idle' });
    expect(clock.pendingDelays()).toContain(500);
    clock.advance(500);
    await venue.until(() => venue.subscribes(2).length === 2, 'resubscribe on the new connection');
    expect(venue.subscribes(2).map((s) => s.channel).toSorted()).toEqual(['orderbook/bytradingpair/A', 'orderbook/bytradingpair/B']);
    expect(venue.subscribes(2).map((s) => s.id)).toEqual(['sub-3', 'sub-4']);
    expect(events.slice(0, 4)).toEqual(['connected', 'subscribed orderbook/bytradingpair/A', 'subscribed orderbook/bytradingpair/B', 'disconnected, reconnect in 500']);
    expect(await metricValue(metrics, 'dltmm_venue_ws_reconnects_total')).toBe(1);
    venue.send(dataFrame({ symbol: 'A', buy: [level(5, 1)] }));
    await once(client, 'book');
    expect(show(client, 'A')?.buy).toEqual(['1@5']);
  });

  it('backs off exponentially while the venue keeps failing, and starts over once a subscription succeeds', async () => {
    venue.rejectConnections = true;
    const { client, clock } = setup();
    client.subscribe('A');
    const delays: number[] = [];
    client.on('disconnected', (e) => delays.push(e.reconnectInMs));
    client.start();
    for (let i = 1; i <= 5; i++) {
      await once(client, 'disconnected');
      if (i === 5) venue.rejectConnections = false;
      clock.advance(delays.at(-1) ?? 0);
    }
    // random 0.5 of min(8000, 1000 * 2^n)
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 4_000]);
    await once(client, 'subscribed');
    venue.drop();
    await once(client, 'disconnected');
    expect(delays.at(-1)).toBe(500);
  });

  it('a market with no data for the configured time is reported stale, and fresh with its next message', async () => {
    const { client, clock, events, metrics } = setup();
    client.subscribe('A');
    client.start();
    await once(client, 'subscribed');
    venue.send(dataFrame({ symbol: 'A', buy: [level(1, 1)] }));
    await once(client, 'book');
    clock.advance(4_999);
    expect(client.isStale('A')).toBe(false);
    clock.advance(1);
    expect(client.isStale('A')).toBe(true);
    expect(await metricValue(metrics, 'dltmm_venue_market_stale', { market: 'A' })).toBe(1);
    venue.send(dataFrame({ symbol: 'A', buy: [level(2, 1)] }));
    await once(client, 'fresh');
    expect(await metricValue(metrics, 'dltmm_venue_market_stale', { market: 'A' })).toBe(0);
    expect(events.filter((e) => e.startsWith('stale') || e.startsWith('fresh'))).toEqual(['stale A', 'fresh A']);
  });

  it('a connection that stops answering pings is dropped and reopened', async () => {
    await venue.close();
    venue = await FakeWsVenue.start({ autoPong: false });
    const { client, clock } = setup({ pingIntervalMs: 1_000 });
    client.subscribe('A');
    client.start();
    await once(client, 'subscribed');
    clock.advance(1_000);
    clock.advance(1_000);
    const [{ error }] = await once(client, 'disconnected');
    expect(error.code).toBe('E_WS_CONNECTION');
  });
});

describe('malformed market data is logged, counted and skipped, never a crash', () => {
  it('bad frames and bad markets leave the connection and the previous books in place', async () => {
    const { client, metrics, lines } = setup();
    client.subscribe('A');
    client.subscribe('B');
    client.start();
    await venue.until(() => venue.subscribes().length === 2);
    venue.send(dataFrame({ symbol: 'A', buy: [level(100, 1)] }));
    await once(client, 'book');
    venue.send('this is not json');
    venue.send({ channel: 'orderbook', data: { symbol: 'A' } });
    const b = bookOf(client, 'B');
    venue.send(dataFrame({ symbol: 'A', buy: [level('1e', 5)] }, { symbol: 'B', sell: [level(7, 1)] }));
    await b;
    expect(show(client, 'A')?.buy).toEqual(['1@100']);
    expect(show(client, 'B')?.sell).toEqual(['1@7']);
    expect(await metricValue(metrics, 'dltmm_venue_malformed_payloads_total', { source: 'ws' })).toBe(3);
    expect(await metricValue(metrics, 'dltmm_venue_ws_messages_total', { type: 'malformed' })).toBe(2);
    const rejected = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'market update rejected; keeping the previous book');
    expect(rejected).toMatchObject({ market: 'A', problems: [{ field: 'data.0.buy.0.limit', value: '1e' }] });
    expect(venue.connections).toBe(1);
    expect(lines.join('')).not.toContain(API_KEY);
  });
});
