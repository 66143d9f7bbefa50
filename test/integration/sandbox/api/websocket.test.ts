/**
 * The AppSync Events WebSocket of a running sandbox: the handshake (subprotocols, authorization header,
 * `connection_init` / `connection_ack` or `connection_error`, keep-alives), authenticated subscribe (API key,
 * date field within the tolerance), `subscribe_success` and `subscribe_error`, many subscriptions per
 * connection, data events in the specification's shape sent on book changes of real orders (only the markets
 * that changed) and as periodic snapshots, unsubscribe by id, and the market-data faults (dropped
 * connections, stalled data, silence). The bot's own market-data client is run against it too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketDataClient } from '../../../../src/venue/market-data/ws-client.ts';
import { connectionProtocols } from '../../../../src/venue/market-data/subscribe-messages.ts';
import { EventsProbe, type Json, type ProbeAuth } from '../../../support/sandbox/events-probe.ts';
import { control, get, until } from '../../../support/sandbox/api/sandbox-clients.ts';
import { tradersSession } from '../../../support/sandbox/api/traders-session.ts';

const probes: EventsProbe[] = [];
const BOND = 'BOND26EURe';
const FUND = 'FUND1EURe';
const KEEP_ALIVE_MS = 300;
const CONNECTION_TIMEOUT_MS = 1_500;

const session = tradersSession({
  api: {
    wsSnapshotIntervalMs: 1500,
    wsCoalesceMs: 50,
    wsKeepAliveMs: KEEP_ALIVE_MS,
    wsConnectionTimeoutMs: CONNECTION_TIMEOUT_MS,
  },
});

beforeAll(async () => {
  await Promise.all([
    (async () => {
      await Promise.all([session.t.evmApproveAll('evm-trader'), session.t.evmApproveAll('evm-mm')]);
      await session.t.evmOrder('evm-trader', BOND, 'sell', '1', '100.5');
      await session.t.evmOrder('evm-trader', BOND, 'sell', '2', '101');
      await session.t.evmOrder('evm-mm', BOND, 'buy', '1', '99.5');
      await session.t.evmOrder('evm-mm', BOND, 'buy', '1.5', '99.5');
    })(),
    (async () => {
      await session.t.wasmApprove('wasm-trader', FUND);
      await session.t.wasmOrder('wasm-trader', FUND, 'sell', '1', '12.5');
    })(),
  ]);
  await session.sb.sync();
});

afterAll(async () => {
  for (const p of probes) p.close();
});

const auth = (over: Partial<ProbeAuth> = {}): ProbeAuth => ({
  host: session.sb.manifest.venue.wsHost,
  apiKey: session.sb.manifest.venue.apiKey,
  dateHeader: session.sb.manifest.venue.dateHeader,
  nowMs: session.sb.clock.nowMs(),
  ...over,
});

async function probe(): Promise<EventsProbe> {
  const p = await EventsProbe.open(session.sb.manifest.venue.wsUrl, auth());
  probes.push(p);
  return p;
}

const symbols = (m: Json): string[] => m.data.map((d: Json) => d.symbol).toSorted();

describe('the AppSync Events handshake', () => {
  it('refuses a handshake without the Events subprotocol (400) or without the authorization header (401)', async () => {
    const url = session.sb.manifest.venue.wsUrl;
    await expect(EventsProbe.raw(url, [])).rejects.toMatchObject({
      status: 400,
      body: expect.stringContaining('BadRequestException'),
    });
    await expect(EventsProbe.raw(url, ['graphql-ws'])).rejects.toMatchObject({ status: 400 });
    await expect(EventsProbe.raw(url, ['aws-appsync-event-ws'])).rejects.toMatchObject({
      status: 401,
      body: expect.stringContaining('UnauthorizedException'),
    });
    await expect(
      EventsProbe.raw(url, ['aws-appsync-event-ws', `header-${Buffer.from('not json').toString('base64url')}`]),
    ).rejects.toMatchObject({ status: 401 });
  });

  it('answers connection_init with connection_error and closes when the header carries a wrong API key or a stale date', async () => {
    for (const bad of [auth({ apiKey: 'not-the-key' }), auth({ nowMs: session.sb.clock.nowMs() - 10 * 60_000 })]) {
      const p = await EventsProbe.raw(session.sb.manifest.venue.wsUrl, connectionProtocols(bad, bad.nowMs), bad);
      probes.push(p);
      p.send({ type: 'connection_init' });
      expect(await p.waitFor((m) => m.type !== undefined, 'answer')).toEqual({
        type: 'connection_error',
        errors: [{ errorType: 'UnauthorizedException', message: expect.any(String) }],
      });
      await p.untilClosed();
    }
  });

  it('acknowledges with the configured connectionTimeoutMs, answers with the Events subprotocol, and sends keep-alives', async () => {
    const p = await EventsProbe.raw(session.sb.manifest.venue.wsUrl, connectionProtocols(auth(), auth().nowMs), auth());
    probes.push(p);
    p.send({ type: 'connection_init' });
    expect(await p.waitFor((m) => m.type === 'connection_ack', 'ack')).toEqual({
      type: 'connection_ack',
      connectionTimeoutMs: CONNECTION_TIMEOUT_MS,
    });
    const mark = p.messages.length;
    await p.waitFor((m) => m.type === 'ka', 'a keep-alive', mark);
    const first = p.messages.findIndex((m, i) => i >= mark && m.body.type === 'ka');
    await p.waitFor((m) => m.type === 'ka', 'a second keep-alive', first + 1);
  });
});

describe('subscribing', () => {
  it('acknowledges with the id and sends the market at once, as an event of that subscription in the specified shape', async () => {
    const p = await probe();
    p.subscribe('sub-1', `orderbook/bytradingpair/${BOND}`);
    expect(await p.waitFor((m) => m.id === 'sub-1', 'acknowledgement')).toEqual({
      id: 'sub-1',
      type: 'subscribe_success',
    });
    const data = await p.waitFor((m) => m.type === 'data', 'first data');
    expect(data).toEqual({
      type: 'data',
      id: 'sub-1',
      channel: 'orderbook',
      data: [
        {
          symbol: BOND,
          buy: [{ limit: 99.5, totalQuantity: 2.5, orderCount: 2 }],
          sell: [
            { limit: 100.5, totalQuantity: 1, orderCount: 1 },
            { limit: 101, totalQuantity: 2, orderCount: 1 },
          ],
          time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        },
      ],
    });
  });

  it('refuses a wrong key, a stale date, an unknown market, a publish and garbage with AppSync errors, and stays usable', async () => {
    const p = await probe();
    p.subscribe('bad-key', `orderbook/bytradingpair/${BOND}`, { apiKey: 'not-the-key' });
    p.subscribe('stale', `orderbook/bytradingpair/${BOND}`, { offsetMs: -10 * 60_000 });
    p.subscribe('unknown', 'orderbook/bytradingpair/NOPE');
    p.send({ id: 'pub', type: 'publish', channel: 'orderbook/*', events: ['{}'] });
    p.send('not json');
    const failure = (id: string) => p.waitFor((m) => m.id === id, id);
    expect(await failure('bad-key')).toEqual({
      id: 'bad-key',
      type: 'subscribe_error',
      errors: [{ errorType: 'UnauthorizedException', message: 'You are not authorized to make this call.' }],
    });
    expect(await failure('stale')).toMatchObject({
      type: 'subscribe_error',
      errors: [{ errorType: 'UnauthorizedException', message: expect.stringContaining('x-amz-date') }],
    });
    expect(await failure('unknown')).toMatchObject({
      type: 'subscribe_error',
      errors: [{ errorType: 'BadRequestException' }],
    });
    expect(await failure('pub')).toMatchObject({
      type: 'publish_error',
      errors: [{ errorType: 'UnauthorizedException' }],
    });
    expect(await p.waitFor((m) => m.type === 'error', 'error')).toMatchObject({
      errors: [{ errorType: 'BadRequestException' }],
    });
    expect(p.data()).toEqual([]);
    p.subscribe('good', `orderbook/bytradingpair/${FUND}`);
    expect(await p.waitFor((m) => m.id === 'good', 'acknowledgement')).toEqual({
      id: 'good',
      type: 'subscribe_success',
    });
  });

  it('refuses a subscribe sent before connection_init', async () => {
    const p = await EventsProbe.raw(session.sb.manifest.venue.wsUrl, connectionProtocols(auth(), auth().nowMs), auth());
    probes.push(p);
    p.subscribe('early', `orderbook/bytradingpair/${BOND}`);
    expect(await p.waitFor((m) => m.id === 'early', 'refusal')).toMatchObject({
      type: 'subscribe_error',
      errors: [{ errorType: 'BadRequestException' }],
    });
  });

  it('covers every active market with orderbook/*', async () => {
    const p = await probe();
    p.subscribe('all', 'orderbook/*');
    expect(symbols(await p.waitFor((m) => m.type === 'data', 'data'))).toEqual([
      'BOND26EURe',
      'FUND1EURe',
      'GRN27EURe',
      'XBOND26EURe',
    ]);
  });
});

describe('data', () => {
  it('sends only the changed market on a book change, and every subscribed market in snapshots, each in its subscription', async () => {
    const p = await probe();
    p.subscribe('a', `orderbook/bytradingpair/${BOND}`);
    p.subscribe('b', `orderbook/bytradingpair/${FUND}`);
    await p.waitFor((m) => m.id === 'b' && m.type === 'subscribe_success', 'second acknowledgement');
    const mark = p.messages.length;
    await session.t.wasmOrder('wasm-trader', FUND, 'sell', '2', '12.6');
    const change = await p.waitFor(
      (m) => m.data?.[0]?.sell?.some((l: Json) => l.limit === 12.6) === true,
      'the new level',
      mark,
    );
    expect(change).toMatchObject({ type: 'data', id: 'b' });
    expect(change.data).toEqual([
      {
        symbol: FUND,
        buy: [],
        sell: [
          { limit: 12.5, totalQuantity: 1, orderCount: 1 },
          { limit: 12.6, totalQuantity: 2, orderCount: 1 },
        ],
        time: expect.any(String),
      },
    ]);
    const after = p.messages.length;
    await p.waitFor((m) => m.type === 'data' && m.id === 'a', 'a periodic snapshot of a', after);
    await p.waitFor((m) => m.type === 'data' && m.id === 'b', 'a periodic snapshot of b', after);
    expect(p.data(after).every((m) => symbols(m).length === 1 && symbols(m)[0] === (m.id === 'a' ? BOND : FUND))).toBe(
      true,
    );
  });

  it('ends a subscription by its id, and answers an unknown id with unsubscribe_error', async () => {
    const p = await probe();
    p.subscribe('a', `orderbook/bytradingpair/${BOND}`);
    p.subscribe('b', `orderbook/bytradingpair/${FUND}`);
    await p.waitFor((m) => m.id === 'b' && m.type === 'subscribe_success', 'acknowledgement');
    p.send({ id: 'b', type: 'unsubscribe' });
    expect(await p.waitFor((m) => m.id === 'b' && m.type === 'unsubscribe_success', 'unsubscribe answer')).toEqual({
      id: 'b',
      type: 'unsubscribe_success',
    });
    const mark = p.messages.length;
    await p.waitFor((m) => m.type === 'data', 'next snapshot', mark);
    expect(p.data(mark).map((m) => m.id)).not.toContain('b');
    p.send({ id: 'zzz', type: 'unsubscribe' });
    expect(await p.waitFor((m) => m.id === 'zzz', 'failure')).toMatchObject({
      type: 'unsubscribe_error',
      errors: [{ errorType: 'BadRequestException' }],
    });
  });
});

/** The bot's market data client on the sandbox's WebSocket API, reconnecting after 20 to 50 ms. */
const botClient = () =>
  new MarketDataClient({
    url: session.sb.manifest.venue.wsUrl,
    host: session.sb.manifest.venue.wsHost,
    apiKey: session.sb.manifest.venue.apiKey,
    dateHeader: session.sb.manifest.venue.dateHeader,
    reconnect: { baseMs: 20, capMs: 50 },
  });

describe('faults and the bot client', () => {
  it('feeds the bot client the same book as REST, and the client reconnects after a drop', async () => {
    const c = botClient();
    try {
      let subscribed = 0;
      c.on('subscribed', () => subscribed++);
      c.subscribe(BOND);
      c.start();
      const book = await until(
        () => c.book(BOND),
        (b) => b !== undefined,
        'a book from the bot client',
      );
      const rest = (await get(session.sb, `/tradingpairs/${session.t.pair(BOND).id}/pricelevels`)).body;
      expect(book?.sell.map((l) => [l.limit.toFixed(), l.quantity.toFixed()])).toEqual(
        rest.sell.map((l: Json) => [l.limit, l.quantity]),
      );
      expect(c.connectionTimeoutMs).toBe(CONNECTION_TIMEOUT_MS);
      expect((await control(session.sb, 'POST', '/faults/ws/drop')).body.dropped).toBeGreaterThanOrEqual(1);
      await until(
        () => subscribed,
        (n) => n >= 2,
        'resubscription after the drop',
      );
    } finally {
      await c.close();
    }
  });

  it('a venue gone silent (no keep-alive, no data) is left by the bot client after connectionTimeoutMs and reconnected', async () => {
    const c = botClient();
    try {
      const reasons: string[] = [];
      c.on('disconnected', (e) => reasons.push(e.error.message));
      let subscribed = 0;
      c.on('subscribed', () => subscribed++);
      c.subscribe(BOND);
      c.start();
      await until(
        () => subscribed,
        (n) => n >= 1,
        'the first subscription',
      );
      expect(
        (await control(session.sb, 'POST', '/faults/ws/silence', { ms: CONNECTION_TIMEOUT_MS + 1_000 })).body.wsSilent,
      ).toBe(true);
      await until(
        () => reasons,
        (r) => r.length >= 1,
        'the keep-alive timeout',
        10_000,
      );
      expect(reasons[0]).toBe(`market data connection lost: no keep-alive within ${CONNECTION_TIMEOUT_MS} ms`);
      await until(
        () => subscribed,
        (n) => n >= 2,
        'resubscription after the keep-alive loss',
      );
    } finally {
      await c.close();
    }
  });

  it('drops every connection on demand', async () => {
    const p = await probe();
    await control(session.sb, 'POST', '/faults/ws/drop');
    await p.untilClosed();
    expect(p.closed).toBe(true);
  });

  it('stalls market data for the given time, changes included, then resumes', async () => {
    const p = await probe();
    p.subscribe('s', `orderbook/bytradingpair/${BOND}`);
    await p.waitFor((m) => m.type === 'data', 'first data');
    expect((await control(session.sb, 'POST', '/faults/ws/stall', { ms: 2_000 })).body.wsStalled).toBe(true);
    const mark = p.messages.length;
    const stalledAt = performance.now();
    await session.t.evmOrder('evm-mm', BOND, 'buy', '0.5', '99');
    await session.sb.sync();
    const next = await p.waitFor((m) => m.type === 'data', 'data after the stall', mark);
    const at = p.messages.slice(mark).find((m) => m.body === next)?.at ?? 0;
    expect(at - stalledAt).toBeGreaterThanOrEqual(1_900);
    expect(next.data[0].buy).toContainEqual({ limit: 99, totalQuantity: 0.5, orderCount: 1 });
  });
});
