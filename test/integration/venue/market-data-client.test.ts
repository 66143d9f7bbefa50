import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MarketDataClient } from '../../../src/venue/market-data/ws-client.ts';
import { acknowledge, dataFrame, FakeWsVenue } from '../../support/venue/fake-ws-venue.ts';
import { T0 } from '../../support/clock.ts';
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

const level = (limit: number | string, totalQuantity: number | string, orderCount = 1) => ({
  limit,
  totalQuantity,
  orderCount,
});
const show = (c: MarketDataClient, symbol: string) => {
  const b = c.book(symbol);
  return b === undefined
    ? undefined
    : {
        buy: b.buy.map((l) => `${l.quantity.toFixed()}@${l.limit.toFixed()}`),
        sell: b.sell.map((l) => `${l.quantity.toFixed()}@${l.limit.toFixed()}`),
      };
};

describe('the AppSync Events handshake', () => {
  it('offers aws-appsync-event-ws and the authorization header, then sends connection_init and subscribes only after connection_ack', async () => {
    venue.init = () => undefined;
    const { client, events } = setup({ staleAfterMs: 600_000 });
    client.subscribe('BOND26EURe');
    client.start();
    await venue.until(() => venue.messages('connection_init').length === 1, 'connection_init');
    expect(venue.handshakes).toEqual([
      {
        protocols: ['aws-appsync-event-ws', expect.stringMatching(/^header-[A-Za-z0-9_-]+$/)],
        header: { host: WS_HOST, 'x-acme-date': '20260302T090000Z', 'x-api-key': API_KEY },
      },
    ]);
    // No padding in base64url.
    expect(venue.handshakes[0]?.protocols[1]).not.toContain('=');
    expect(venue.received.map((r) => r.message.type)).toEqual(['connection_init']);
    expect(client.connected).toBe(false);
    venue.send({ type: 'connection_ack', connectionTimeoutMs: 60_000 });
    await once(client, 'subscribed');
    expect(venue.received.map((r) => r.message.type)).toEqual(['connection_init', 'subscribe']);
    expect(client.connectionTimeoutMs).toBe(60_000);
    expect(events).toEqual(['connected', 'subscribed orderbook/bytradingpair/BOND26EURe']);
  });

  it('sends an authenticated subscribe per market on one connection, with a date fresh for each message', async () => {
    const { client, clock, events } = setup({ staleAfterMs: 600_000 });
    client.subscribe('BOND26EURe');
    client.start();
    await allActive(client);
    clock.advance(61_000);
    client.subscribe('XBOND26EURe');
    await venue.until(() => venue.subscribes().length === 2, 'second subscribe');
    expect(venue.subscribes()).toEqual([
      {
        id: 'sub-1',
        type: 'subscribe',
        channel: 'orderbook/bytradingpair/BOND26EURe',
        authorization: { host: WS_HOST, 'x-acme-date': '20260302T090000Z', 'x-api-key': API_KEY },
      },
      {
        id: 'sub-2',
        type: 'subscribe',
        channel: 'orderbook/bytradingpair/XBOND26EURe',
        authorization: { host: WS_HOST, 'x-acme-date': '20260302T090101Z', 'x-api-key': API_KEY },
      },
    ]);
    expect(venue.connections).toBe(1);
    await allActive(client);
    expect(client.channels()).toEqual({
      'orderbook/bytradingpair/BOND26EURe': 'active',
      'orderbook/bytradingpair/XBOND26EURe': 'active',
    });
    expect(events).toEqual([
      'connected',
      'subscribed orderbook/bytradingpair/BOND26EURe',
      'subscribed orderbook/bytradingpair/XBOND26EURe',
    ]);
  });

  it('uses x-amz-date as the date field unless told otherwise', async () => {
    const { client } = setup({ dateHeader: undefined });
    client.subscribe('A');
    client.start();
    await once(client, 'subscribed');
    expect(Object.keys(venue.handshakes[0]?.header ?? {})).toEqual(['host', 'x-amz-date', 'x-api-key']);
    expect(Object.keys(venue.subscribes()[0]?.authorization as object)).toEqual(['host', 'x-amz-date', 'x-api-key']);
  });

  it('a connection_error ends the connection, which is reopened with backoff; nothing is subscribed on the refused one', async () => {
    let refusals = 1;
    venue.init = () =>
      refusals-- > 0
        ? {
            type: 'connection_error',
            errors: [{ errorType: 'UnauthorizedException', message: 'You are not authorized to make this call.' }],
          }
        : { type: 'connection_ack', connectionTimeoutMs: 300_000 };
    const { client, clock, lines } = setup();
    client.subscribe('A');
    client.start();
    const [{ error, reconnectInMs }] = await once(client, 'disconnected');
    expect(error.code).toBe('E_WS_CONNECTION');
    expect(error.message).toBe(
      'market data connection lost: connection_error: UnauthorizedException: You are not authorized to make this call.',
    );
    expect(reconnectInMs).toBe(500);
    expect(venue.subscribes()).toEqual([]);
    clock.advance(500);
    await once(client, 'subscribed');
    expect(venue.subscribes(2)).toHaveLength(1);
    const logged = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'venue refused the market data connection');
    expect(logged).toMatchObject({ level: 'error', errors: [{ errorType: 'UnauthorizedException' }] });
    expect(lines.join('')).not.toContain(API_KEY);
  });

  it('a connection never acknowledged is dropped after ackTimeoutMs and reopened', async () => {
    venue.init = (connection) =>
      connection === 1 ? undefined : { type: 'connection_ack', connectionTimeoutMs: 300_000 };
    const { client, clock } = setup();
    client.subscribe('A');
    client.start();
    await venue.until(() => venue.messages('connection_init').length === 1, 'connection_init');
    clock.advance(2_999);
    expect(venue.openSockets).toBe(1);
    clock.advance(1);
    const [{ error }] = await once(client, 'disconnected');
    expect(error.message).toBe('market data connection lost: no connection_ack within 3000 ms');
    clock.advance(500);
    await once(client, 'subscribed');
    expect(venue.connections).toBe(2);
  });

  it('a venue that does not select the Events subprotocol is a failed connection, retried with backoff', async () => {
    await venue.close();
    const { WebSocketServer } = await import('ws');
    const plain = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      path: '/event/realtime',
      handleProtocols: () => false,
    });
    await once(plain, 'listening');
    try {
      const { client: c } = wsHarness({
        url: `ws://127.0.0.1:${(plain.address() as { port: number }).port}/event/realtime`,
      });
      c.subscribe('A');
      c.start();
      const [{ error }] = await once(c, 'disconnected');
      expect(error.message).toBe('market data connection lost: Server sent no subprotocol');
      await c.close();
    } finally {
      plain.close();
      venue = await FakeWsVenue.start();
    }
  });
});

describe('market-data subscriptions', () => {
  it('keeps one book per market from data events, each replacing the last whole; levels may be numbers or decimal strings', async () => {
    const { client } = setup();
    client.subscribe('A');
    client.subscribe('B');
    client.start();
    await allActive(client);
    const both = bookOf(client, 'B');
    venue.publish(
      dataFrame(
        { symbol: 'A', buy: [level(100.5, 2), level(100, 1.5)], sell: [level(101, 3)] },
        { symbol: 'B', sell: [level('7.25', '10')] },
      ),
    );
    await both;
    venue.publish(dataFrame({ symbol: 'A', buy: [level(99, 1)] }));
    await once(client, 'book');
    expect(show(client, 'A')).toEqual({ buy: ['1@99'], sell: [] });
    expect(show(client, 'B')).toEqual({ buy: [], sell: ['10@7.25'] });
    expect(client.book('A')).toMatchObject({ source: 'ws', time: '2026-03-02T09:00:00.000Z', receivedAt: T0 });
  });

  it('a subscribe_error is retried with backoff on the same connection; so is a subscription never acknowledged', async () => {
    const { client, clock, events, metrics } = setup({ staleAfterMs: 600_000 });
    let answers = 0;
    venue.answer = (m) => {
      answers += 1;
      if (answers === 1)
        return {
          id: m.id,
          type: 'subscribe_error',
          errors: [{ errorType: 'BadRequestException', message: 'Invalid Channel Format' }],
        };
      if (answers === 2) return undefined;
      return acknowledge(m);
    };
    const failures: string[] = [];
    client.on('subscriptionFailed', (e) => failures.push(e.error.message));
    client.subscribe('A');
    client.start();
    await once(client, 'subscriptionFailed');
    // The retry, the keep-alive watch and the staleness watchdog of market A.
    expect(clock.pendingDelays()).toEqual([200, 300_000, 600_000]);
    clock.advance(200);
    await venue.until(() => venue.subscribes().length === 2);
    clock.advance(3_000);
    expect(clock.pendingDelays()).toContain(400);
    clock.advance(400);
    await once(client, 'subscribed');
    expect(events).toEqual([
      'connected',
      'failed orderbook/bytradingpair/A, retry in 200',
      'failed orderbook/bytradingpair/A, retry in 400',
      'subscribed orderbook/bytradingpair/A',
    ]);
    expect(failures).toEqual([
      'subscription to orderbook/bytradingpair/A failed: subscribe_error: BadRequestException: Invalid Channel Format',
      'subscription to orderbook/bytradingpair/A failed: no subscribe_success within 3000 ms',
    ]);
    expect(venue.subscribes().map((s) => s.id)).toEqual(['sub-1', 'sub-2', 'sub-3']);
    expect(venue.connections).toBe(1);
    expect(
      await metricValue(metrics, 'dltmm_venue_ws_subscription_failures_total', {
        channel: 'orderbook/bytradingpair/A',
      }),
    ).toBe(2);
  });

  it('an error naming a pending subscription refuses it; an error without a known id is logged and counted, and the connection stays', async () => {
    venue.answer = (m) =>
      m.id === 'sub-1'
        ? { id: m.id, type: 'error', errors: [{ errorType: 'UnauthorizedException', message: 'Token expired' }] }
        : acknowledge(m);
    const { client, clock, metrics, lines } = setup({ staleAfterMs: 600_000 });
    client.subscribe('A');
    client.start();
    const [failed] = await once(client, 'subscriptionFailed');
    expect(failed.error.message).toBe(
      'subscription to orderbook/bytradingpair/A failed: error: UnauthorizedException: Token expired',
    );
    clock.advance(failed.retryInMs);
    await once(client, 'subscribed');
    venue.send({ type: 'error', errors: [{ errorType: 'LimitExceededException', message: 'Too many messages' }] });
    venue.publish(dataFrame({ symbol: 'A', buy: [level(1, 1)] }));
    await once(client, 'book');
    expect(await metricValue(metrics, 'dltmm_venue_ws_messages_total', { type: 'error' })).toBe(2);
    const logged = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'market data error for no pending subscription');
    expect(logged).toMatchObject([{ errors: [{ errorType: 'LimitExceededException', message: 'Too many messages' }] }]);
    expect(venue.connections).toBe(1);
    expect(client.connected).toBe(true);
  });

  it('unsubscribe ends the subscription by its id, unsubscribe_success is taken, and that market is no longer applied', async () => {
    const { client, lines } = setup();
    client.subscribe('A');
    client.subscribe('B');
    client.start();
    await allActive(client);
    const idOfA = venue.subscribes().find((s) => s.channel === 'orderbook/bytradingpair/A')?.id;
    client.unsubscribe('A');
    await venue.until(() => venue.messages('unsubscribe').length === 1);
    expect(venue.messages('unsubscribe')).toEqual([{ id: idOfA, type: 'unsubscribe' }]);
    venue.send({ id: idOfA, type: 'unsubscribe_success' });
    venue.publish(dataFrame({ symbol: 'A', buy: [level(1, 1)] }, { symbol: 'B', buy: [level(2, 2)] }));
    await bookOf(client, 'B');
    expect(client.book('A')).toBeUndefined();
    expect(client.channels()).toEqual({ 'orderbook/bytradingpair/B': 'active' });
    expect(
      lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'unsubscribed'),
    ).toMatchObject({ id: idOfA, channel: 'orderbook/bytradingpair/A' });
  });

  it('orderbook/* follows every market the venue sends', async () => {
    const { client } = setup();
    client.subscribe('*');
    client.start();
    await once(client, 'subscribed');
    expect(venue.subscribes()[0]?.channel).toBe('orderbook/*');
    const last = bookOf(client, 'Z');
    venue.publish(dataFrame({ symbol: 'A', buy: [level(1, 1)] }, { symbol: 'Z', sell: [level(3, 1)] }));
    await last;
    expect([show(client, 'A'), show(client, 'Z')]).toEqual([
      { buy: ['1@1'], sell: [] },
      { buy: [], sell: ['1@3'] },
    ]);
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
    expect(venue.messages('connection_init', 2)).toHaveLength(1);
    expect(
      venue
        .subscribes(2)
        .map((s) => s.channel)
        .toSorted(),
    ).toEqual(['orderbook/bytradingpair/A', 'orderbook/bytradingpair/B']);
    expect(venue.subscribes(2).map((s) => s.id)).toEqual(['sub-3', 'sub-4']);
    expect(events.slice(0, 4)).toEqual([
      'connected',
      'subscribed orderbook/bytradingpair/A',
      'subscribed orderbook/bytradingpair/B',
      'disconnected, reconnect in 500',
    ]);
    expect(await metricValue(metrics, 'dltmm_venue_ws_reconnects_total')).toBe(1);
    await allActive(client);
    venue.publish(dataFrame({ symbol: 'A', buy: [level(5, 1)] }));
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

  it('a missing keep-alive drops the connection exactly connectionTimeoutMs after the last frame, and it is reopened and resubscribed', async () => {
    venue.connectionTimeoutMs = 2_000;
    const { client, clock, metrics } = setup({ staleAfterMs: 600_000 });
    client.subscribe('A');
    client.start();
    await once(client, 'subscribed');
    expect(client.connectionTimeoutMs).toBe(2_000);
    clock.advance(1_500);
    venue.keepAlive();
    await once(client, 'keepAlive');
    clock.advance(1_999);
    expect(client.connected).toBe(true);
    expect(venue.openSockets).toBe(1);
    clock.advance(1);
    const [{ error, reconnectInMs }] = await once(client, 'disconnected');
    expect(error.message).toBe('market data connection lost: no keep-alive within 2000 ms');
    expect(await metricValue(metrics, 'dltmm_venue_ws_keepalive_timeouts_total')).toBe(1);
    clock.advance(reconnectInMs);
    await venue.until(() => venue.subscribes(2).length === 1, 'resubscribe after the keep-alive loss');
    await once(client, 'subscribed');
    expect(client.connected).toBe(true);
  });

  it('keep-alives at their pace keep the connection open indefinitely', async () => {
    venue.connectionTimeoutMs = 2_000;
    const { client, clock } = setup({ staleAfterMs: 600_000 });
    client.subscribe('A');
    client.start();
    await once(client, 'subscribed');
    for (let i = 0; i < 10; i++) {
      clock.advance(1_900);
      venue.keepAlive();
      await once(client, 'keepAlive');
    }
    expect(venue.connections).toBe(1);
    expect(client.connected).toBe(true);
  });

  it('a market with no data for the configured time is reported stale, and fresh with its next message', async () => {
    const { client, clock, events, metrics } = setup();
    client.subscribe('A');
    client.start();
    await once(client, 'subscribed');
    venue.publish(dataFrame({ symbol: 'A', buy: [level(1, 1)] }));
    await once(client, 'book');
    clock.advance(4_999);
    expect(client.isStale('A')).toBe(false);
    clock.advance(1);
    expect(client.isStale('A')).toBe(true);
    expect(await metricValue(metrics, 'dltmm_venue_market_stale', { market: 'A' })).toBe(1);
    venue.publish(dataFrame({ symbol: 'A', buy: [level(2, 1)] }));
    await once(client, 'fresh');
    expect(await metricValue(metrics, 'dltmm_venue_market_stale', { market: 'A' })).toBe(0);
    expect(events.filter((e) => e.startsWith('stale') || e.startsWith('fresh'))).toEqual(['stale A', 'fresh A']);
  });
});

describe('malformed market data is logged, counted and skipped, never a crash', () => {
  it('bad frames, bad events and bad markets leave the connection and the previous books in place', async () => {
    const { client, metrics, lines } = setup();
    client.subscribe('A');
    client.subscribe('B');
    client.start();
    await allActive(client);
    venue.publish(dataFrame({ symbol: 'A', buy: [level(100, 1)] }));
    await once(client, 'book');
    venue.send('this is not json');
    venue.send({ type: 'data', id: 'sub-1', event: '{"channel":' });
    venue.publish({ channel: 'orderbook', data: { symbol: 'A' } });
    const b = bookOf(client, 'B');
    venue.publish(dataFrame({ symbol: 'A', buy: [level('1e', 5)] }, { symbol: 'B', sell: [level(7, 1)] }));
    await b;
    expect(show(client, 'A')?.buy).toEqual(['1@100']);
    expect(show(client, 'B')?.sell).toEqual(['1@7']);
    expect(await metricValue(metrics, 'dltmm_venue_malformed_payloads_total', { source: 'ws' })).toBe(4);
    expect(await metricValue(metrics, 'dltmm_venue_ws_messages_total', { type: 'malformed' })).toBe(3);
    const rejected = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'market update rejected; keeping the previous book');
    expect(rejected).toMatchObject({ market: 'A', problems: [{ field: 'data.0.buy.0.limit', value: '1e' }] });
    expect(venue.connections).toBe(1);
    expect(lines.join('')).not.toContain(API_KEY);
  });
});
