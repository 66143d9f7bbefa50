import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { MarketBook } from '../../../src/venue/market-data/book.ts';
import { MarketDataFeed } from '../../../src/market/feed.ts';
import type { MarketDataClient, MarketDataEvents } from '../../../src/venue/market-data/ws-client.ts';
import type { OrderBookSnapshot } from '../../../src/venue/payload/order-book.ts';
import { Decimal } from '../../../src/core/decimal.ts';
import { createMetrics } from '../../../src/telemetry/metrics.ts';
import { TestClock } from '../../support/clock.ts';
import { whenTrue } from '../../support/condition.ts';
import { metricValue } from '../../support/venue/metric-value.ts';

/** The client's events and the three methods the feed calls, without a connection. */
class FakeClient extends EventEmitter<MarketDataEvents> {
  readonly subscribed = new Set<string>();
  readonly stale = new Set<string>();
  subscribe(s: string) {
    this.subscribed.add(s);
  }
  unsubscribe(s: string) {
    this.subscribed.delete(s);
  }
  isStale(s: string) {
    return this.stale.has(s);
  }
  goStale(symbol: string) {
    this.stale.add(symbol);
    this.emit('stale', { symbol, lastSeenAt: 0, hadData: true });
  }
  goFresh(symbol: string, limit: string) {
    this.stale.delete(symbol);
    this.emit('book', {
      symbol,
      buy: [{ limit: new Decimal(limit), quantity: new Decimal(1) }],
      sell: [],
      receivedAt: 0,
      source: 'ws',
    });
    this.emit('fresh', symbol);
  }
}

/** A snapshot source whose answers the test releases by hand. */
function deferredRest() {
  const calls: { pairId: string; resolve: (s: OrderBookSnapshot) => void; reject: (e: Error) => void }[] = [];
  return {
    calls,
    getPriceLevels: (pairId: string) =>
      new Promise<OrderBookSnapshot>((resolve, reject) => void calls.push({ pairId, resolve, reject })),
  };
}

const snap = (pairId: string, limit: string): OrderBookSnapshot => ({
  tradingPairId: pairId,
  buy: [{ limit: new Decimal(limit), quantity: new Decimal(2) }],
  sell: [],
});

function setup(maxConcurrentPolls = 4) {
  const client = new FakeClient();
  const rest = deferredRest();
  const clock = new TestClock();
  const metrics = createMetrics();
  const feed = new MarketDataFeed({
    client: client as unknown as MarketDataClient,
    rest,
    fallbackPollMs: 1_000,
    maxConcurrentPolls,
    clock,
    metrics,
  });
  const books: MarketBook[] = [];
  feed.on('book', (b) => books.push(b));
  return { client, rest, clock, metrics, feed, books };
}

describe('market-data feed fallback throttling', () => {
  it('never has two polls in flight for one market: a slow snapshot makes the next ticks skip', async () => {
    const { client, rest, clock, feed } = setup();
    feed.add({ symbol: 'A', pairId: 'pa' });
    client.goStale('A');
    clock.advance(3_000);
    expect(rest.calls).toHaveLength(1);
    rest.calls[0]?.resolve(snap('pa', '10'));
    await whenTrue(() => feed.book('A')?.source === 'rest', 'the snapshot served');
    clock.advance(1_000);
    expect(rest.calls).toHaveLength(2);
    feed.close();
  });

  it('withdraws the stale WebSocket book at once and discards a snapshot that arrives after the market is fresh', async () => {
    const { client, rest, metrics, feed, books } = setup();
    feed.add({ symbol: 'A', pairId: 'pa' });
    client.goFresh('A', '100');
    expect(feed.book('A')?.source).toBe('ws');
    client.goStale('A');
    expect(feed.book('A')).toBeUndefined();
    client.goFresh('A', '101');
    rest.calls[0]?.resolve(snap('pa', '50'));
    const discarded = () =>
      metricValue(metrics, 'dltmm_venue_fallback_polls_total', { market: 'A', outcome: 'discarded' });
    await whenTrue(async () => (await discarded()) === 1, 'the late snapshot discarded');
    expect(feed.book('A')?.buy[0]?.limit.toFixed()).toBe('101');
    expect(books.map((b) => b.source)).toEqual(['ws', 'ws']);
    expect(await metricValue(metrics, 'dltmm_venue_fallback_polls_total', { market: 'A', outcome: 'discarded' })).toBe(
      1,
    );
  });

  it('caps polls in flight across markets, serves waiting markets first come first served, and retries a failed poll', async () => {
    const { client, rest, clock, metrics, feed } = setup(2);
    for (const s of ['A', 'B', 'C']) feed.add({ symbol: s, pairId: `p${s}` });
    for (const s of ['A', 'B', 'C']) client.goStale(s);
    expect(rest.calls.map((c) => c.pairId)).toEqual(['pA', 'pB']);
    rest.calls[0]?.reject(new Error('HTTP 503'));
    await whenTrue(() => rest.calls.length === 3, 'the freed slot taken');
    // C waited for the slot A freed; A, ticking again, now waits behind B and C.
    expect(rest.calls.map((c) => c.pairId)).toEqual(['pA', 'pB', 'pC']);
    clock.advance(1_000);
    expect(rest.calls).toHaveLength(3);
    rest.calls[1]?.resolve(snap('pB', '1'));
    await whenTrue(() => rest.calls.length === 4, 'the freed slot taken');
    expect(rest.calls.map((c) => c.pairId)).toEqual(['pA', 'pB', 'pC', 'pA']);
    expect(await metricValue(metrics, 'dltmm_venue_fallback_polls_total', { market: 'A', outcome: 'error' })).toBe(1);
    feed.close();
  });

  it('ignores markets it was not asked for, and stops polling a removed market', () => {
    const { client, rest, clock, feed, books } = setup();
    client.goFresh('X', '1');
    client.goStale('X');
    expect(books).toEqual([]);
    expect(rest.calls).toEqual([]);
    feed.add({ symbol: 'A', pairId: 'pa' });
    client.goStale('A');
    feed.remove('A');
    clock.advance(10_000);
    expect(rest.calls).toHaveLength(1);
    expect(client.subscribed.has('A')).toBe(false);
  });
});

describe('where the books came from, in time', () => {
  it('counts the seconds fed by the WebSocket, by the REST fallback and by nothing yet, and the WebSocket share', async () => {
    const { client, clock, metrics, feed } = setup();
    feed.add({ symbol: 'A', pairId: 'pa' });
    clock.advance(2_000);
    client.goFresh('A', '100');
    clock.advance(90_000);
    client.goStale('A');
    clock.advance(6_000);
    client.goFresh('A', '101');
    clock.advance(2_000);
    expect(feed.sourceSeconds('A')).toEqual({ none: 2, ws: 92, rest: 6 });
    // A scrape brings the series up to date first.
    clock.advance(100_000);
    const text = await metrics.text();
    expect(text).toContain('dltmm_venue_book_source_seconds_total{market="A",source="ws"} 192');
    expect(text).toContain('dltmm_venue_book_source_seconds_total{market="A",source="rest"} 6');
    expect(text).toContain('dltmm_venue_book_source_seconds_total{market="A",source="none"} 2');
    expect(await metricValue(metrics, 'dltmm_venue_book_ws_share', { market: 'A' })).toBe(0.96);
    feed.close();
    clock.advance(50_000);
    await metrics.text();
    expect(await metricValue(metrics, 'dltmm_venue_book_source_seconds_total', { market: 'A', source: 'ws' })).toBe(
      192,
    );
  });
});
