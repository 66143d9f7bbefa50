/**
 * The WebSocket `orderbook` channel of a running sandbox: authenticated subscribe (API key, date field within
 * the tolerance), `subscribe_success`, refusals, many subscriptions per connection, data messages in the
 * specification's shape sent on book changes of real orders (only the markets that changed) and as periodic
 * snapshots (every subscribed market), unsubscribe, and the market-data faults (dropped connections,
 * stalled data). The bot's own market-data client is run against it too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../src/sandbox/venue/start.ts';
import { MarketDataClient } from '../../../../src/venue/market-data/ws-client.ts';
import { subscribeMessage } from '../../../../src/venue/market-data/subscribe-messages.ts';
import { control, get, startTestSandbox, Traders, until, type Json } from './support/sandbox-clients.ts';
import { WsProbe } from './support/ws-probe.ts';

let sb: Sandbox;
let t: Traders;
const probes: WsProbe[] = [];
const BOND = 'BOND26EURe';
const FUND = 'FUND1EURe';

beforeAll(async () => {
  sb = await startTestSandbox({ api: { wsSnapshotIntervalMs: 1500, wsCoalesceMs: 50 } });
  t = new Traders(sb);
  await Promise.all([
    (async () => {
      await Promise.all([t.evmApproveAll('evm-trader'), t.evmApproveAll('evm-mm')]);
      await t.evmOrder('evm-trader', BOND, 'sell', '1', '100.5');
      await t.evmOrder('evm-trader', BOND, 'sell', '2', '101');
      await t.evmOrder('evm-mm', BOND, 'buy', '1', '99.5');
      await t.evmOrder('evm-mm', BOND, 'buy', '1.5', '99.5');
    })(),
    (async () => {
      await t.wasmApprove('wasm-trader', FUND);
      await t.wasmOrder('wasm-trader', FUND, 'sell', '1', '12.5');
    })(),
  ]);
  await sb.sync();
});

afterAll(async () => {
  for (const p of probes) p.close();
  t?.close();
  await sb?.stop();
});

async function probe(): Promise<WsProbe> {
  const p = await WsProbe.open(sb.manifest.venue.wsUrl);
  probes.push(p);
  return p;
}

function subscribe(p: WsProbe, id: string, channel: string, over: { apiKey?: string; offsetMs?: number } = {}): void {
  const auth = { host: sb.manifest.venue.wsHost, apiKey: over.apiKey ?? sb.manifest.venue.apiKey, dateHeader: sb.manifest.venue.dateHeader };
  p.send(subscribeMessage(id, channel, auth, sb.clock.nowMs() + (over.offsetMs ?? 0)));
}

const symbols = (m: Json): string[] => m.data.map((d: Json) => d.symbol).toSorted();

describe('subscribing', () => {
  it('acknowledges with the id and sends the market at once, in the specified shape', async () => {
    const p = await probe();
    subscribe(p, 'sub-1', `orderbook/bytradingpair/${BOND}`);
    expect(await p.waitFor((m) => m.type !== undefined, 'acknowledgement')).toEqual({ id: 'sub-1', type: 'subscribe_success', channel: `orderbook/bytradingpair/${BOND}` });
    const data = await p.waitFor((m) => m.data !== undefined, 'first data');
    expect(data.channel).toBe('orderbook');
    expect(data.data).toEqual([
      {
        symbol: BOND,
        buy: [{ limit: 99.5, totalQuantity: 2.5, orderCount: 2 }],
        sell: [{ limit: 100.5, totalQuantity: 1, orderCount: 1 }, { limit: 101, totalQuantity: 2, orderCount: 1 }],
        time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      },
    ]);
  });

  it('refuses a wrong key, a stale date and an unknown market, and stays usable', async () => {
    const p = await probe();
    subscribe(p, 'bad-key', `orderbook/bytradingpair/${BOND}`, { apiKey: 'not-the-key' });
    subscribe(p, 'stale', `orderbook/bytradingpair/${BOND}`, { offsetMs: -10 * 60_000 });
    subscribe(p, 'unknown', 'orderbook/bytradingpair/NOPE');
    p.send('not json');
    const failure = (id: string) => p.waitFor((m) => m.id === id, id);
    expect(await failure('bad-key')).toMatchObject({ type: 'subscribe_failure', code: 'UNAUTHORIZED', channel: `orderbook/bytradingpair/${BOND}` });
    expect(await failure('stale')).toMatchObject({ type: 'subscribe_failure', code: 'UNAUTHORIZED', message: expect.stringContaining('x-venue-date') });
    expect(await failure('unknown')).toMatchObject({ type: 'subscribe_failure', code: 'INVALID_CHANNEL' });
    expect(await p.waitFor((m) => m.type === 'error', 'error')).toMatchObject({ code: 'BAD_REQUEST' });
    expect(p.data()).toEqual([]);
    subscribe(p, 'good', `orderbook/bytradingpair/${FUND}`);
    expect(await p.waitFor((m) => m.id === 'good', 'acknowledgement')).toMatchObject({ type: 'subscribe_success' });
  });

  it('covers every active market with orderbook/*', async () => {
    const p = await probe();
    subscribe(p, 'all', 'orderbook/*');
    expect(symbols(await p.waitFor((m) => m.data !== undefined, 'data'))).toEqual(['BOND26EURe', 'FUND1EURe', 'GRN27EURe', 'XBOND26EURe']);
  });
});

describe('data', () => {
  it('sends only the changed market on a book change, and every subscribed market in snapshots', async () => {
    const p = await probe();
    subscribe(p, 'a', `orderbook/bytradingpair/${BOND}`);
    subscribe(p, 'b', `orderbook/bytradingpair/${FUND}`);
    await p.waitFor((m) => m.id === 'b', 'second acknowledgement');
    const mark = p.messages.length;
    await t.wasmOrder('wasm-trader', FUND, 'sell', '2', '12.6');
    const change = await p.waitFor((m) => m.data?.[0]?.sell?.some((l: Json) => l.limit === 12.6) === true, 'the new level', mark);
    expect(change.data).toEqual([{ symbol: FUND, buy: [], sell: [{ limit: 12.5, totalQuantity: 1, orderCount: 1 }, { limit: 12.6, totalQuantity: 2, orderCount: 1 }], time: expect.any(String) }]);
    const snapshot = await p.waitFor((m) => m.data?.length === 2, 'a periodic snapshot', mark);
    expect(symbols(snapshot)).toEqual([BOND, FUND]);
  });

  it('stops a market after unsubscribe and answers an unknown unsubscribe with a failure', async () => {
    const p = await probe();
    subscribe(p, 'a', `orderbook/bytradingpair/${BOND}`);
    subscribe(p, 'b', `orderbook/bytradingpair/${FUND}`);
    await p.waitFor((m) => m.id === 'b', 'acknowledgement');
    p.send({ id: 'u', type: 'unsubscribe', channel: `orderbook/bytradingpair/${FUND}` });
    expect(await p.waitFor((m) => m.id === 'u', 'unsubscribe answer')).toEqual({ id: 'u', type: 'unsubscribe_success', channel: `orderbook/bytradingpair/${FUND}` });
    const mark = p.messages.length;
    await p.waitFor((m) => m.data !== undefined, 'next snapshot', mark);
    expect(p.data(mark).flatMap(symbols)).not.toContain(FUND);
    p.send({ id: 'v', type: 'unsubscribe', channel: 'orderbook/*' });
    expect(await p.waitFor((m) => m.id === 'v', 'failure')).toMatchObject({ type: 'unsubscribe_failure', code: 'NOT_SUBSCRIBED' });
  });
});

describe('faults and the bot client', () => {
  it('feeds the bot client the same book as REST, and the client reconnects after a drop', async () => {
    const c = new MarketDataClient({ url: sb.manifest.venue.wsUrl, host: sb.manifest.venue.wsHost, apiKey: sb.manifest.venue.apiKey, reconnect: { baseMs: 20, capMs: 50 }, pingIntervalMs: 0 });
    try {
      let subscribed = 0;
      c.on('subscribed', () => subscribed++);
      c.subscribe(BOND);
      c.start();
      const book = await until(() => c.book(BOND), (b) => b !== undefined, 'a book from the bot client');
      const rest = (await get(sb, `/tradingpairs/${t.pair(BOND).id}/pricelevels`)).body;
      expect(book?.sell.map((l) => [l.limit.toFixed(), l.quantity.toFixed()])).toEqual(rest.sell.map((l: Json) => [l.limit, l.quantity]));
      expect((await control(sb, 'POST', '/faults/ws/drop')).body.dropped).toBeGreaterThanOrEqual(1);
      await until(() => subscribed, (n) => n >= 2, 'resubscription after the drop');
    } finally {
      await c.close();
    }
  });

  it('drops every connection on demand', async () => {
    const p = await probe();
    await control(sb, 'POST', '/faults/ws/drop');
    await p.untilClosed();
    expect(p.closed).toBe(true);
  });

  it('stalls market data for the given time, changes included, then resumes', async () => {
    const p = await probe();
    subscribe(p, 's', `orderbook/bytradingpair/${BOND}`);
    await p.waitFor((m) => m.data !== undefined, 'first data');
    expect((await control(sb, 'POST', '/faults/ws/stall', { ms: 2_000 })).body.wsStalled).toBe(true);
    const mark = p.messages.length;
    const stalledAt = performance.now();
    await t.evmOrder('evm-mm', BOND, 'buy', '0.5', '99');
    await sb.sync();
    const next = await p.waitFor((m) => m.data !== undefined, 'data after the stall', mark);
    const at = p.messages.slice(mark).find((m) => m.body === next)?.at ?? 0;
    expect(at - stalledAt).toBeGreaterThanOrEqual(1_900);
    expect(next.data[0].buy).toContainEqual({ limit: 99, totalQuantity: 0.5, orderCount: 1 });
  });
});
