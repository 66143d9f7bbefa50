import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MarketBook } from '../../../src/venue/market-data/book.ts';
import { MarketDataFeed } from '../../../src/market/feed.ts';
import type { MarketDataClient } from '../../../src/venue/market-data/ws-client.ts';
import { FakeRestVenue } from '../../support/venue/fake-rest-venue.ts';
import { dataFrame, FakeWsVenue } from '../../support/venue/fake-ws-venue.ts';
import { metricValue } from '../../support/venue/metric-value.ts';
import { restHarness } from '../../support/venue/rest-harness.ts';
import { wsHarness } from '../../support/venue/ws-harness.ts';

let ws: FakeWsVenue;
let rest: FakeRestVenue;
let client: MarketDataClient | undefined;
let feed: MarketDataFeed | undefined;
beforeEach(async () => {
  ws = await FakeWsVenue.start();
  rest = await FakeRestVenue.start();
});
afterEach(async () => {
  feed?.close();
  await client?.close();
  await Promise.all([ws.close(), rest.close()]);
});

const SYMBOL = 'BOND26EURe';
const PAIR = 'tp-evm-bond-eure';
const levels = (b: MarketBook | undefined) =>
  b && { source: b.source, buy: b.buy.map((l) => `${l.quantity.toFixed()}@${l.limit.toFixed()}`) };

function nextBook(f: MarketDataFeed, source: 'ws' | 'rest'): Promise<MarketBook> {
  return new Promise((resolve) => {
    const on = (b: MarketBook) => {
      if (b.source !== source) return;
      f.off('book', on);
      resolve(b);
    };
    f.on('book', on);
  });
}

describe('market-data feed: REST snapshots while the WebSocket is stale', () => {
  it('serves WS books, falls back to throttled pricelevels polls when stale, and returns to WS when fresh', async () => {
    rest.route(`/tradingpairs/${PAIR}/pricelevels`, { body: { tradingPairId: PAIR, buy: [['4', '99.5']], sell: [] } });
    const h = wsHarness(ws, { staleAfterMs: 5_000 });
    client = h.client;
    const { client: restClient } = restHarness(rest);
    const polls: string[] = [];
    const snapshots = {
      getPriceLevels: (id: string, limit?: number) => {
        polls.push(`${id}?limit=${limit}`);
        return restClient.getPriceLevels(id, limit);
      },
    };
    feed = new MarketDataFeed({
      client,
      rest: snapshots,
      fallbackPollMs: 2_000,
      depth: 10,
      clock: h.clock,
      metrics: h.metrics,
    });
    const events: string[] = [];
    feed.on('stale', (e) => events.push(`stale ${e.symbol}`));
    feed.on('fresh', (s) => events.push(`fresh ${s}`));
    feed.add({ symbol: SYMBOL, pairId: PAIR });
    client.start();
    await once(client, 'subscribed');

    const first = nextBook(feed, 'ws');
    ws.publish(dataFrame({ symbol: SYMBOL, buy: [{ limit: 100, totalQuantity: 2, orderCount: 1 }] }));
    await first;
    expect(levels(feed.book(SYMBOL))).toEqual({ source: 'ws', buy: ['2@100'] });

    // The connection drops; the client reconnects after 500 ms, but the venue sends no data: at 5 s after
    // the last message the market is stale.
    ws.drop();
    await once(client, 'disconnected');
    const resubscribed = once(client, 'subscribed');
    h.clock.advance(500);
    await resubscribed;
    const snapshot = nextBook(feed, 'rest');
    h.clock.advance(4_499);
    expect(events).toEqual([]);
    h.clock.advance(1);
    expect(events).toEqual([`stale ${SYMBOL}`]);
    expect(feed.book(SYMBOL)).toBeUndefined();
    expect(polls).toEqual([`${PAIR}?limit=10`]);
    await snapshot;
    expect(levels(feed.book(SYMBOL))).toEqual({ source: 'rest', buy: ['4@99.5'] });
    expect(feed.isStale(SYMBOL)).toBe(true);

    // Throttled: one poll per 2 s.
    h.clock.advance(1_999);
    expect(polls).toHaveLength(1);
    h.clock.advance(1);
    expect(polls).toHaveLength(2);

    // WebSocket data makes the market fresh again and polling stops.
    const pollsBefore = polls.length;
    const back = nextBook(feed, 'ws');
    ws.publish(dataFrame({ symbol: SYMBOL, buy: [{ limit: 101, totalQuantity: 1, orderCount: 1 }] }));
    await back;
    expect(events).toEqual([`stale ${SYMBOL}`, `fresh ${SYMBOL}`]);
    expect(levels(feed.book(SYMBOL))).toEqual({ source: 'ws', buy: ['1@101'] });
    h.clock.advance(4_999);
    expect(polls).toHaveLength(pollsBefore);
    expect(await metricValue(h.metrics, 'dltmm_venue_market_stale_transitions_total', { market: SYMBOL })).toBe(1);
  });
});
