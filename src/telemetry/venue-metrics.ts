/**
 * The series written by the venue clients. Labels are bounded: `endpoint` is the path template
 * (`/tradingpairs/{id}`), never the concrete path, and `market` is a subscribed market symbol.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface VenueMetrics {
  /** REST responses by endpoint template and HTTP status (`timeout`/`network` when there was none). */
  readonly restRequests: Counter<'endpoint' | 'status'>;
  readonly restDuration: Histogram<'endpoint'>;
  /** REST calls that ended in an error after retries, by error code. */
  readonly restErrors: Counter<'endpoint' | 'code'>;
  /** REST retries by cause: `429`, `5xx`, `timeout`, `network`, `401` (once, with a fresh token). */
  readonly restRetries: Counter<'endpoint' | 'reason'>;
  /** Token endpoint requests by outcome: `ok`, `refused` (the endpoint answered with an error), `failed`. */
  readonly authTokenRequests: Counter<'outcome'>;
  /** Venue payloads (or parts of one) that failed validation and were skipped, by source. */
  readonly malformedPayloads: Counter<'source'>;
  readonly unknownValues: Counter<'field' | 'value'>;
  readonly wsReconnects: Counter;
  readonly wsConnected: Gauge;
  /** Connections dropped because nothing (no `ka`, no data) arrived for the acknowledged `connectionTimeoutMs`. */
  readonly wsKeepAliveTimeouts: Counter;
  /** WebSocket messages received, by type (`data`, `ka`, `connection_ack`, `subscribe_success`, `subscribe_error`, ...). */
  readonly wsMessages: Counter<'type'>;
  readonly wsSubscriptionFailures: Counter<'channel'>;
  /** 1 while a market has had no WebSocket data for longer than the staleness limit. */
  readonly marketStale: Gauge<'market'>;
  /** Times a market became stale. */
  readonly marketStaleTransitions: Counter<'market'>;
  /** Episodes of a market's ticker best bid or ask disagreeing with its order book for longer than the grace. */
  readonly tickerBookMismatch: Counter<'market'>;
  /** REST `pricelevels` polls made for a stale market, by outcome (`ok`, `error`, `discarded`). */
  readonly fallbackPolls: Counter<'market' | 'outcome'>;
  /**
   * Seconds each followed market's book was fed by `ws` (fresh WebSocket data), by the `rest` fallback (the
   * market stale), or by `none` yet (subscribed, no data so far).
   */
  readonly bookSourceSeconds: Counter<'market' | 'source'>;
  /** Share of a followed market's time fed by the WebSocket, 0..1, since the bot began following it. */
  readonly bookWsShare: Gauge<'market'>;
  /** Runs `fn` before every scrape (to bring time-based series up to date); returns the unregistration. */
  beforeCollect(fn: () => void): () => void;
}

/** How each market's book was fed: time-based, brought up to date by `collect` before a scrape. */
function bookSourceSeries(
  registers: Registry[],
  collect: () => void,
): Pick<VenueMetrics, 'bookSourceSeconds' | 'bookWsShare'> {
  return {
    bookSourceSeconds: new Counter({
      name: 'dltmm_venue_book_source_seconds_total',
      help: 'Seconds a market book was fed by the WebSocket (ws), by the REST fallback (rest), or by nothing yet (none)',
      labelNames: ['market', 'source'],
      registers,
      collect,
    }),
    bookWsShare: new Gauge({
      name: 'dltmm_venue_book_ws_share',
      help: 'Share of the time a market book was fed by the WebSocket since the bot began following it, 0..1',
      labelNames: ['market'],
      registers,
      collect,
    }),
  };
}

/** REST calls and the token endpoint. */
function restSeries(
  registers: Registry[],
): Pick<VenueMetrics, 'restRequests' | 'restDuration' | 'restErrors' | 'restRetries' | 'authTokenRequests'> {
  return {
    restRequests: new Counter({
      name: 'dltmm_venue_rest_requests_total',
      help: 'Venue REST responses by endpoint and HTTP status',
      labelNames: ['endpoint', 'status'],
      registers,
    }),
    restDuration: new Histogram({
      name: 'dltmm_venue_rest_request_duration_seconds',
      help: 'Venue REST attempt duration, including reading the body',
      labelNames: ['endpoint'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    restErrors: new Counter({
      name: 'dltmm_venue_rest_errors_total',
      help: 'Venue REST calls that failed after retries, by error code',
      labelNames: ['endpoint', 'code'],
      registers,
    }),
    restRetries: new Counter({
      name: 'dltmm_venue_rest_retries_total',
      help: 'Venue REST retries by reason',
      labelNames: ['endpoint', 'reason'],
      registers,
    }),
    authTokenRequests: new Counter({
      name: 'dltmm_venue_auth_token_requests_total',
      help: 'OAuth2 client-credentials token requests by outcome',
      labelNames: ['outcome'],
      registers,
    }),
  };
}

/** Venue payloads this bot skipped or did not know. */
function payloadSeries(registers: Registry[]): Pick<VenueMetrics, 'unknownValues' | 'malformedPayloads'> {
  return {
    unknownValues: new Counter({
      name: 'dltmm_venue_unknown_values_total',
      help: 'Values of the venue this bot does not know (trading status, status-change reason), kept as data',
      labelNames: ['field', 'value'],
      registers,
    }),
    malformedPayloads: new Counter({
      name: 'dltmm_venue_malformed_payloads_total',
      help: 'Venue payloads or items that failed validation and were skipped, by source',
      labelNames: ['source'],
      registers,
    }),
  };
}

/** The market-data WebSocket connection and its messages. */
function webSocketSeries(
  registers: Registry[],
): Pick<
  VenueMetrics,
  'wsReconnects' | 'wsConnected' | 'wsKeepAliveTimeouts' | 'wsMessages' | 'wsSubscriptionFailures'
> {
  return {
    wsReconnects: new Counter({
      name: 'dltmm_venue_ws_reconnects_total',
      help: 'Market-data WebSocket reconnect attempts',
      registers,
    }),
    wsConnected: new Gauge({
      name: 'dltmm_venue_ws_connected',
      help: '1 while the market-data WebSocket is open and acknowledged',
      registers,
    }),
    wsKeepAliveTimeouts: new Counter({
      name: 'dltmm_venue_ws_keepalive_timeouts_total',
      help: 'Market-data connections dropped for want of a keep-alive within connectionTimeoutMs',
      registers,
    }),
    wsMessages: new Counter({
      name: 'dltmm_venue_ws_messages_total',
      help: 'Market-data WebSocket messages received, by type',
      labelNames: ['type'],
      registers,
    }),
    wsSubscriptionFailures: new Counter({
      name: 'dltmm_venue_ws_subscription_failures_total',
      help: 'Market-data subscriptions refused or not acknowledged in time, by channel',
      labelNames: ['channel'],
      registers,
    }),
  };
}

/** Each market's data health: staleness, ticker disagreement, the REST fallback. */
function marketHealthSeries(
  registers: Registry[],
): Pick<VenueMetrics, 'marketStale' | 'marketStaleTransitions' | 'tickerBookMismatch' | 'fallbackPolls'> {
  return {
    marketStale: new Gauge({
      name: 'dltmm_venue_market_stale',
      help: '1 while a market has no fresh WebSocket data',
      labelNames: ['market'],
      registers,
    }),
    marketStaleTransitions: new Counter({
      name: 'dltmm_venue_market_stale_transitions_total',
      help: 'Times a market became stale',
      labelNames: ['market'],
      registers,
    }),
    tickerBookMismatch: new Counter({
      name: 'dltmm_venue_ticker_book_mismatch_total',
      help: "Times a market's ticker best bid or ask disagreed with its order book for longer than the grace",
      labelNames: ['market'],
      registers,
    }),
    fallbackPolls: new Counter({
      name: 'dltmm_venue_fallback_polls_total',
      help: 'REST pricelevels polls for stale markets, by outcome',
      labelNames: ['market', 'outcome'],
      registers,
    }),
  };
}

export function createVenueMetrics(registry: Registry): VenueMetrics {
  const registers = [registry];
  const hooks = new Set<() => void>();
  // Both time-based series are brought up to date by the hooks before either is read (once per scrape).
  let collecting = false;
  const collect = () => {
    if (collecting) return;
    collecting = true;
    try {
      for (const fn of hooks) fn();
    } finally {
      collecting = false;
    }
  };
  // Registered in this order, which is the order a scrape lists them in.
  return {
    beforeCollect: (fn) => {
      hooks.add(fn);
      return () => hooks.delete(fn);
    },
    ...bookSourceSeries(registers, collect),
    ...restSeries(registers),
    ...payloadSeries(registers),
    ...webSocketSeries(registers),
    ...marketHealthSeries(registers),
  };
}
