/** The options and events of the market-data client (ws-client.ts). */
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { DltError } from '../../core/errors.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import type { Random } from '../random.ts';
import type { BackoffPolicy } from '../retry-policy.ts';
import type { MarketBook } from './book.ts';
import type { TickerUpdate } from './ticker.ts';

export interface MarketDataClientOptions {
  /** The realtime endpoint, `wss://<host>/event/realtime`. */
  readonly url: string;
  /** `host` of the authorization: the HTTP host of the Events API. */
  readonly host: string;
  readonly apiKey: string;
  /** Date field of the authorization (config `venue.dateHeader`); default `x-amz-date`. */
  readonly dateHeader?: string;
  /** No data for this long makes a market stale (config `venue.marketDataStaleMs`). Default 10 s. */
  readonly staleAfterMs?: number;
  readonly reconnect?: Partial<BackoffPolicy>;
  readonly resubscribe?: Partial<BackoffPolicy>;
  /** Wait for `connection_ack` and for each `subscribe_success`; default 15 s. */
  readonly ackTimeoutMs?: number;
  /** Wait for the WebSocket handshake; default 10 s. */
  readonly connectTimeoutMs?: number;
  readonly clock?: Clock;
  readonly random?: Random;
  /** Subscription ids; default random UUIDs. */
  readonly newId?: () => string;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
}

export interface StaleEvent {
  readonly symbol: string;
  /** When data last arrived (or watching began, if `hadData` is false), clock ms. */
  readonly lastSeenAt: number;
  readonly hadData: boolean;
}

export interface MarketDataEvents {
  book: [book: MarketBook];
  stale: [event: StaleEvent];
  fresh: [symbol: string];
  /** `connection_ack`: the connection is open and may subscribe. */
  connected: [];
  /** A `ka` arrived. */
  keepAlive: [];
  disconnected: [event: { readonly error: DltError; readonly reconnectInMs: number }];
  subscribed: [channel: string];
  subscriptionFailed: [event: { readonly channel: string; readonly error: DltError; readonly retryInMs: number }];
  /** A market of the ticker channel (subscribed with `subscribeTicker`). */
  ticker: [ticker: TickerUpdate];
}
