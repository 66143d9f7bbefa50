/**
 * The parts of the market-data client (ws-client.ts) that report into its metrics, log and events: its
 * subscriptions, its staleness watchdog, and the error that says why a connection was lost.
 */
import type { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import { DltError } from '../../core/errors.ts';
import { systemClock } from '../../core/system-clock.ts';
import { incidentsOf, type Incidents } from '../../telemetry/incidents.ts';
import { silentLogger } from '../../telemetry/logger.ts';
import { createMetrics, type Metrics } from '../../telemetry/metrics.ts';
import { systemRandom, type Random } from '../random.ts';
import type { BackoffPolicy } from '../retry-policy.ts';
import { StalenessWatchdog } from './staleness-watchdog.ts';
import type { WsAuthorization } from './subscribe-messages.ts';
import { Subscriptions } from './subscriptions.ts';
import type { MarketDataClientOptions, MarketDataEvents } from './ws-client-types.ts';

/** The incident kind of connection losses and stale markets. */
export const MARKET_DATA = 'venue market data';

export const DEFAULT_RECONNECT: BackoffPolicy = { baseMs: 500, capMs: 30_000 };

/** What the parts report through: the client's clock, randomness, log, incidents, metrics and events. */
export interface ClientContext {
  readonly clock: Clock;
  readonly random: Random;
  readonly logger: Logger;
  readonly incidents: Incidents;
  readonly metrics: Metrics;
  readonly events: Pick<EventEmitter<MarketDataEvents>, 'emit'>;
}

/** The client's context: the clock, randomness, log and metrics of its options, or the defaults. */
export function clientContext(
  options: MarketDataClientOptions,
  events: Pick<EventEmitter<MarketDataEvents>, 'emit'>,
): ClientContext {
  const logger = options.logger ?? silentLogger();
  return {
    clock: options.clock ?? systemClock,
    random: options.random ?? systemRandom,
    logger,
    incidents: incidentsOf(logger),
    metrics: options.metrics ?? createMetrics(),
    events,
  };
}

/** How the subscriptions reach the connection. */
export interface SubscriptionLink {
  readonly auth: WsAuthorization;
  readonly ackTimeoutMs: number;
  readonly send: (message: Record<string, unknown>) => void;
  readonly isOpen: () => boolean;
  /** A subscription was acknowledged (the connection works). */
  readonly acknowledged: () => void;
}

/** The client's subscriptions: an acknowledgement and a failure are reported (an unauthorised one at error level). */
export function clientSubscriptions(
  options: MarketDataClientOptions,
  context: ClientContext,
  link: SubscriptionLink,
): Subscriptions {
  const { clock, metrics, logger, incidents, events } = context;
  return new Subscriptions({
    auth: link.auth,
    ackTimeoutMs: link.ackTimeoutMs,
    retry: { ...DEFAULT_RECONNECT, ...options.resubscribe },
    clock,
    random: context.random,
    newId: options.newId ?? randomUUID,
    send: link.send,
    isOpen: link.isOpen,
    onAcknowledged: (channel) => {
      link.acknowledged();
      events.emit('subscribed', channel);
    },
    onFailed: (channel, error, retryInMs) => {
      metrics.venue.wsSubscriptionFailures.inc({ channel });
      const refused = 'market data subscription refused as unauthorised: check venue.apiKey; retrying';
      if (/unauthori[sz]ed|forbidden|not authorized/i.test(error.message)) logger.error(error, refused);
      else incidents.failed(MARKET_DATA, clock.now(), `${channel} subscription`, error);
      events.emit('subscriptionFailed', { channel, error, retryInMs });
    },
  });
}

/** The client's staleness watchdog: a market going stale or fresh again is counted, said and emitted. */
export function clientWatchdog(options: MarketDataClientOptions, context: ClientContext): StalenessWatchdog {
  const { clock, metrics, incidents, events } = context;
  return new StalenessWatchdog({
    staleAfterMs: options.staleAfterMs ?? 10_000,
    clock,
    onStale: (symbol, lastSeenAt, hadData) => {
      metrics.venue.marketStale.set({ market: symbol }, 1);
      metrics.venue.marketStaleTransitions.inc({ market: symbol });
      const quiet = { code: 'stale', reason: `no update for ${clock.now() - lastSeenAt} ms` };
      incidents.failed(MARKET_DATA, clock.now(), `${symbol} stale`, quiet, { hadData });
      events.emit('stale', { symbol, lastSeenAt, hadData });
    },
    onFresh: (symbol) => {
      metrics.venue.marketStale.set({ market: symbol }, 0);
      events.emit('fresh', symbol);
    },
  });
}

/** A lost connection: why (this side's reason, the socket's error, or the close code and reason), with the retry. */
export function connectionLost(
  close: { readonly code: number; readonly reason: string; readonly failure: Error | undefined },
  dropReason: string | undefined,
  attempt: number,
  reconnectInMs: number,
): DltError {
  const { code, reason, failure } = close;
  const why =
    dropReason ??
    failure?.message ??
    (reason === '' ? `closed with code ${code}` : `closed with code ${code}: ${reason}`);
  return new DltError('E_WS_CONNECTION', `market data connection lost: ${why}`, {
    details: { code, reason, attempt, reconnectInMs },
    ...(failure === undefined ? {} : { cause: failure }),
  });
}
