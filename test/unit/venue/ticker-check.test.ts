import { EventEmitter } from 'node:events';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.ts';
import { createMetrics } from '../../../src/telemetry/metrics.ts';
import { MarketDataFeed } from '../../../src/market/feed.ts';
import { TickerCheck } from '../../../src/venue/market-data/ticker-check.ts';
import type { TickerUpdate } from '../../../src/venue/market-data/ticker.ts';
import type { MarketDataClient, MarketDataEvents } from '../../../src/venue/market-data/ws-client.ts';
import { TestClock } from '../../support/clock.ts';
import { metricValue } from '../../support/venue/metric-value.ts';

const BOND = 'BOND26EURe';
const level = (p: string) => [{ limit: new Decimal(p), quantity: new Decimal(1) }];
const GRACE_MS = 2_000;
const MISMATCH = 'dltmm_venue_ticker_book_mismatch_total';

/** The client's events and the methods the feed calls, without a connection. */
class FakeClient extends EventEmitter<MarketDataEvents> {
  readonly subscribed: string[] = [];
  subscribe(s: string) {
    this.subscribed.push(`orderbook ${s}`);
  }
  subscribeTicker(s: string) {
    this.subscribed.push(`ticker ${s}`);
  }
  unsubscribe(s: string) {
    this.subscribed.push(`-orderbook ${s}`);
  }
  unsubscribeTicker(s: string) {
    this.subscribed.push(`-ticker ${s}`);
  }
  isStale() {
    return false;
  }
}

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly market?: string;
}

function setup() {
  const clock = new TestClock();
  const client = new FakeClient();
  const metrics = createMetrics();
  const lines: Line[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as Line) });
  const feed = new MarketDataFeed({
    client: client as unknown as MarketDataClient,
    rest: { getPriceLevels: () => Promise.reject(new Error('no REST here')) },
    ticker: { graceMs: GRACE_MS },
    clock,
    logger,
    metrics,
  });
  feed.add({ symbol: BOND, pairId: 'tp-bond' });
  const book = (bid: string | undefined, ask: string | undefined) =>
    client.emit('book', {
      symbol: BOND,
      buy: bid === undefined ? [] : [{ limit: new Decimal(bid), quantity: new Decimal(1) }],
      sell: ask === undefined ? [] : [{ limit: new Decimal(ask), quantity: new Decimal(1) }],
      receivedAt: clock.now(),
      source: 'ws',
    });
  const ticker = (bid: string | undefined, ask: string | undefined, last = '100') => {
    const t: TickerUpdate = {
      symbol: BOND,
      lastPrice: new Decimal(last),
      ...(bid === undefined ? {} : { bestBid: new Decimal(bid) }),
      ...(ask === undefined ? {} : { bestAsk: new Decimal(ask) }),
      timeMs: clock.now(),
      receivedAt: clock.now(),
    };
    client.emit('ticker', t);
  };
  const mismatches = () => metricValue(metrics, MISMATCH, { market: BOND });
  const warnings = () => lines.filter((l) => l.level === 40 && l.msg.includes('ticker'));
  return { clock, client, feed, book, ticker, mismatches, warnings, lines };
}

describe('the ticker as a cross-check of the book', () => {
  it('subscribes the ticker beside the book channel, and keeps the last ticker (its last price) where the book is', () => {
    const { client, feed, ticker } = setup();
    expect(client.subscribed).toEqual([`orderbook ${BOND}`, `ticker ${BOND}`]);
    ticker('99', '101', '100.25');
    expect(feed.ticker(BOND)?.lastPrice?.toFixed()).toBe('100.25');
    feed.remove(BOND);
    expect(client.subscribed.slice(2)).toEqual([`-orderbook ${BOND}`, `-ticker ${BOND}`]);
    expect(feed.ticker(BOND)).toBeUndefined();
  });

  it('lets a disagreement shorter than the grace pass: the two streams are not simultaneous', async () => {
    const { clock, book, ticker, mismatches, warnings } = setup();
    book('99', '101');
    ticker('99', '101');
    book('99.5', '101');
    clock.advance(GRACE_MS - 1);
    ticker('99.5', '101');
    clock.advance(10 * GRACE_MS);
    expect(await mismatches()).toBe(0);
    expect(warnings()).toEqual([]);
  });

  it('counts and logs a disagreement that outlasts the grace once per episode, and a new episode again', async () => {
    const { clock, book, ticker, mismatches, warnings, lines } = setup();
    ticker('99', '101');
    book('99', '101');
    book('99', '100.5');
    clock.advance(GRACE_MS);
    expect(await mismatches()).toBe(1);
    expect(warnings()).toEqual([
      expect.objectContaining({
        market: BOND,
        ticker: { bid: '99', ask: '101' },
        book: { bid: '99', ask: '100.5' },
        forMs: GRACE_MS,
      }),
    ]);
    // Still disagreeing, in another way: the same episode.
    book('98', '100.5');
    ticker('99', '100.75');
    clock.advance(10 * GRACE_MS);
    expect(await mismatches()).toBe(1);
    ticker('98', '100.5');
    expect(lines.at(-1)?.msg).toBe('ticker agrees with the order book again');
    // An empty side on one stream only is a disagreement too.
    book(undefined, '100.5');
    clock.advance(GRACE_MS);
    expect(await mismatches()).toBe(2);
    expect(warnings()).toHaveLength(2);
  });

  it('compares nothing without a ticker or a book', async () => {
    const { clock, book, ticker, mismatches } = setup();
    book('99', '101');
    clock.advance(10 * GRACE_MS);
    const other = setup();
    other.ticker('99', '101');
    other.clock.advance(10 * GRACE_MS);
    expect([await mismatches(), await other.mismatches()]).toEqual([0, 0]);
    ticker('99', '101');
    clock.advance(10 * GRACE_MS);
    expect(await mismatches()).toBe(0);
  });

  it("compares no ticker with a book served from REST snapshots: the WebSocket, the ticker's too, is quiet then", async () => {
    const clock = new TestClock();
    const metrics = createMetrics();
    let source: 'ws' | 'rest' = 'rest';
    const check = new TickerCheck({
      graceMs: GRACE_MS,
      clock,
      logger: pino({ level: 'silent' }),
      metrics,
      book: () => ({ symbol: BOND, buy: level('99'), sell: level('101'), receivedAt: clock.now(), source }),
    });
    const stale = { symbol: BOND, bestBid: new Decimal('99.5'), bestAsk: new Decimal('101'), timeMs: 0, receivedAt: 0 };
    check.onTicker(stale);
    clock.advance(10 * GRACE_MS);
    expect(await metricValue(metrics, MISMATCH, { market: BOND })).toBe(0);
    // The WebSocket's book is back and still disagrees: that one counts.
    source = 'ws';
    check.check(BOND);
    clock.advance(GRACE_MS);
    expect(await metricValue(metrics, MISMATCH, { market: BOND })).toBe(1);
  });
});
