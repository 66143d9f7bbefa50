/** A market-data client wired to a fake venue with a manual clock, fixed jitter and captured logs. */
import { createLogger } from '../../../src/telemetry/logger.ts';
import { createMetrics } from '../../../src/telemetry/metrics.ts';
import { MarketDataClient, type MarketDataClientOptions } from '../../../src/venue/market-data/ws-client.ts';
import { TestClock } from '../clock.ts';

export const API_KEY = 'ws-api-key-7Hq2-secret';
export const WS_HOST = 'ws.venue.test';

export function wsHarness(venue: { readonly url: string }, options: Partial<MarketDataClientOptions> = {}) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (l: string) => void lines.push(l) } });
  const metrics = createMetrics();
  const clock = new TestClock();
  let ids = 0;
  const client = new MarketDataClient({
    url: venue.url,
    host: WS_HOST,
    apiKey: API_KEY,
    dateHeader: 'x-acme-date',
    staleAfterMs: 5_000,
    reconnect: { baseMs: 1_000, capMs: 8_000 },
    resubscribe: { baseMs: 400, capMs: 8_000 },
    ackTimeoutMs: 3_000,
    clock,
    random: () => 0.5,
    newId: () => `sub-${++ids}`,
    logger,
    metrics,
    ...options,
  });
  const events: string[] = [];
  client.on('connected', () => events.push('connected'));
  client.on('disconnected', (e) => events.push(`disconnected, reconnect in ${e.reconnectInMs}`));
  client.on('subscribed', (c) => events.push(`subscribed ${c}`));
  client.on('subscriptionFailed', (e) => events.push(`failed ${e.channel}, retry in ${e.retryInMs}`));
  client.on('stale', (e) => events.push(`stale ${e.symbol}`));
  client.on('fresh', (s) => events.push(`fresh ${s}`));
  return { client, clock, metrics, lines, events };
}
