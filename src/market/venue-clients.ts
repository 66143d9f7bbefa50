/**
 * The venue clients of one bot, built from the `venue` section of the bot configuration: the REST client,
 * the pair cache on top of it, the WebSocket market-data client and the feed that falls back to REST
 * snapshots. Secrets arrive already read (core `readSecret`), never from the config text itself.
 */
import type { Logger } from 'pino';
import type { BotConfig } from '../core/config/bot-config.ts';
import { silentLogger } from '../telemetry/logger.ts';
import { createMetrics, type Metrics } from '../telemetry/metrics.ts';
import type { Clock } from '../core/clock.ts';
import { systemClock } from '../core/system-clock.ts';
import { systemRandom, type Random } from '../venue/random.ts';
import { MarketDataFeed } from './feed.ts';
import { MarketDataClient } from '../venue/market-data/ws-client.ts';
import { tokenSourceOf, type VenueAuth } from '../venue/auth/venue-auth.ts';
import { PairCache } from './pair-cache.ts';
import { VenueRestClient } from '../venue/rest-client.ts';
import { RestTransport } from '../venue/rest-transport.ts';

/** The ticker and the book channel are separate streams: a disagreement shorter than this is their skew. */
export const DEFAULT_TICKER_GRACE_MS = 2_000;

export type VenueConfig = NonNullable<BotConfig['venue']>;

export interface VenueSecrets {
  readonly apiKey: string;
  /** Bearer tokens of the participant endpoints: a fixed token or client credentials; none leaves them refused. */
  readonly auth?: VenueAuth;
}

export interface VenueDependencies {
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  readonly clock?: Clock;
  readonly random?: Random;
  readonly fetch?: typeof globalThis.fetch;
}

export interface VenueTuning {
  /** Pair metadata refresh; default 60 s. */
  readonly pairRefreshMs?: number;
  /** REST snapshot poll for a stale market; default 2 s. */
  readonly fallbackPollMs?: number;
  /** Levels per side of fallback snapshots; default the venue's. */
  readonly depth?: number;
  /** How long the ticker may disagree with the book's top before it counts; default 2 s. */
  readonly tickerGraceMs?: number;
}

export interface VenueClients {
  readonly rest: VenueRestClient;
  readonly pairs: PairCache;
  readonly marketData: MarketDataClient;
  readonly feed: MarketDataFeed;
  /** Stops the feed and closes the WebSocket. */
  close(): Promise<void>;
}

export function createVenueClients(
  config: VenueConfig,
  secrets: VenueSecrets,
  deps: VenueDependencies = {},
  tuning: VenueTuning = {},
): VenueClients {
  const logger = deps.logger ?? silentLogger();
  const metrics = deps.metrics ?? createMetrics();
  const clock = deps.clock ?? systemClock;
  const random = deps.random ?? systemRandom;
  const tokens = tokenSourceOf(secrets.auth, {
    clock,
    logger: logger.child({ component: 'venue-auth' }),
    metrics,
    timeoutMs: config.requestTimeoutMs,
    ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
  });
  const transport = new RestTransport({
    baseUrl: config.restUrl,
    timeoutMs: config.requestTimeoutMs,
    clock,
    random,
    logger: logger.child({ component: 'venue-rest' }),
    metrics,
    ...(tokens === undefined ? {} : { tokens }),
    ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
  });
  const rest = new VenueRestClient(transport);
  const pairs = new PairCache({
    load: () => rest.listTradingPairs(),
    refreshMs: tuning.pairRefreshMs ?? 60_000,
    clock,
    logger,
  });
  const marketData = new MarketDataClient({
    url: config.wsUrl,
    host: config.wsHost,
    apiKey: secrets.apiKey,
    dateHeader: config.dateHeader,
    staleAfterMs: config.marketDataStaleMs,
    clock,
    random,
    logger: logger.child({ component: 'venue-ws' }),
    metrics,
  });
  const feed = new MarketDataFeed({
    client: marketData,
    rest,
    clock,
    logger,
    metrics,
    ticker: { graceMs: tuning.tickerGraceMs ?? DEFAULT_TICKER_GRACE_MS },
    ...(tuning.fallbackPollMs === undefined ? {} : { fallbackPollMs: tuning.fallbackPollMs }),
    ...(tuning.depth === undefined ? {} : { depth: tuning.depth }),
  });
  return {
    rest,
    pairs,
    marketData,
    feed,
    close: async () => {
      feed.close();
      await marketData.close();
    },
  };
}
