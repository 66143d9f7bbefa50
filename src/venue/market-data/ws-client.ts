/**
 * The WebSocket market-data client for the venue's AppSync Events API: one connection for many markets. The
 * connection offers the subprotocols `aws-appsync-event-ws` and `header-<authorization>`, sends
 * `connection_init` and waits for `connection_ack` (or `connection_error`); from then on the venue sends
 * `ka` keep-alives, and a connection that delivers nothing for the acknowledged `connectionTimeoutMs` is
 * dropped and reopened (a half-open TCP connection delivers nothing and reports no error). Each market is an
 * authenticated `subscribe` answered by `subscribe_success` or `subscribe_error`; events arrive as
 * `{type: 'data', id, event}`. Reconnects back off and resubscribe everything; a staleness watchdog per market
 * and the latest book per market (each data message replaces it) serve the feed above. It reports upward
 * through typed events and knows nothing of chains or trading.
 *
 * Choices where the sources are silent: a subscription not acknowledged within `ackTimeoutMs` (15 s, as AWS's
 * own client waits), or refused by `subscribe_error` (or an `error` naming its id), is retried with backoff on
 * the same connection, also when the venue calls it unauthorised (the operator may fix the key meanwhile;
 * the log says why at error level); a `connection_error` or a missing `connection_ack` ends the connection,
 * which is then reopened with backoff; an `error` without a known id is logged and counted. Any frame, not
 * only `ka`, proves the connection alive (as AWS's client counts data too).
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { WebSocket } from 'ws';
import { type Incidents } from '../../telemetry/incidents.ts';
import { type Metrics } from '../../telemetry/metrics.ts';
import type { Clock, Timer } from '../../core/clock.ts';
import { type Random } from '../random.ts';
import { backoffDelay, type BackoffPolicy } from '../retry-policy.ts';
import { BookStore, type MarketBook } from './book.ts';
import { decodeMarketDataMessage, describeErrors, type MarketDataMessage } from './decode.ts';
import { StalenessWatchdog } from './staleness-watchdog.ts';
import {
  ALL_MARKETS,
  connectionInitMessage,
  connectionProtocols,
  DEFAULT_DATE_HEADER,
  type WsAuthorization,
} from './subscribe-messages.ts';
import { Subscriptions, type SubscriptionState } from './subscriptions.ts';
import type { MarketDataClientOptions, MarketDataEvents } from './ws-client-types.ts';
import { handleControlMessage } from './control-messages.ts';
import { Liveness } from './liveness.ts';
import { applyBooks, applyTickers } from './market-updates.ts';
import {
  clientContext,
  clientSubscriptions,
  clientWatchdog,
  connectionLost,
  DEFAULT_RECONNECT,
  MARKET_DATA,
  type ClientContext,
} from './ws-client-parts.ts';

export type { MarketDataClientOptions, MarketDataEvents, StaleEvent } from './ws-client-types.ts';

/** What the venue's captures show, and what AWS's client assumes when `connection_ack` carries none. */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 300_000;

export class MarketDataClient extends EventEmitter<MarketDataEvents> {
  readonly #options: MarketDataClientOptions;
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #logger: Logger;
  readonly #incidents: Incidents;
  readonly #metrics: Metrics;
  readonly #reconnect: BackoffPolicy;
  readonly #auth: WsAuthorization;
  readonly #ackTimeoutMs: number;
  readonly #subs: Subscriptions;
  readonly #books = new BookStore();
  readonly #watchdog: StalenessWatchdog;
  /** What the client's parts report through. */
  readonly #context: ClientContext;
  #ws: WebSocket | undefined;
  /** True from `connection_ack` until the connection closes. */
  #ready = false;
  #reconnectAttempt = 0;
  #reconnectTimer: Timer | undefined;
  /** The `connection_ack` wait, then the keep-alive watch. */
  readonly #liveness: Liveness;
  #connectionTimeoutMs = DEFAULT_CONNECTION_TIMEOUT_MS;
  /** Why this side ended the connection (keep-alive missing, connection_error...), for the disconnect report. */
  #dropReason: string | undefined;
  #closing = false;
  #started = false;

  constructor(options: MarketDataClientOptions) {
    super();
    this.#options = options;
    const context = (this.#context = clientContext(options, this));
    this.#clock = context.clock;
    this.#random = context.random;
    this.#logger = context.logger;
    this.#incidents = context.incidents;
    this.#metrics = context.metrics;
    this.#reconnect = { ...DEFAULT_RECONNECT, ...options.reconnect };
    this.#auth = { host: options.host, apiKey: options.apiKey, dateHeader: options.dateHeader ?? DEFAULT_DATE_HEADER };
    this.#ackTimeoutMs = options.ackTimeoutMs ?? 15_000;
    this.#liveness = new Liveness(this.#clock);
    this.#subs = clientSubscriptions(options, context, {
      auth: this.#auth,
      ackTimeoutMs: this.#ackTimeoutMs,
      send: (message) => this.#ws?.send(JSON.stringify(message)),
      isOpen: () => this.connected,
      acknowledged: () => {
        this.#reconnectAttempt = 0;
      },
    });
    this.#watchdog = clientWatchdog(options, context);
  }

  /** True while the connection is open and acknowledged (`connection_ack`). */
  get connected(): boolean {
    return this.#ready && this.#ws?.readyState === WebSocket.OPEN;
  }

  /** The keep-alive timeout the venue acknowledged (default until the first `connection_ack`). */
  get connectionTimeoutMs(): number {
    return this.#connectionTimeoutMs;
  }

  /** Opens the connection (and reopens it whenever it drops, until `close`). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#connect();
  }

  /** Subscribes to one market, or to every market with `'*'`; sent now if connected, else on connect. */
  subscribe(symbol: string): void {
    if (this.#subs.add(symbol) && symbol !== ALL_MARKETS) this.#watchdog.watch(symbol);
  }

  /** Subscribes to the ticker channel of one market, or of every market with `'*'` (`ticker` events). */
  subscribeTicker(symbol: string): void {
    this.#subs.add(symbol, 'ticker');
  }

  unsubscribeTicker(symbol: string): void {
    this.#subs.remove(symbol, 'ticker');
  }

  unsubscribe(symbol: string): void {
    if (!this.#subs.remove(symbol)) return;
    if (symbol === ALL_MARKETS) {
      // Markets seen only through `orderbook/*` are no longer followed.
      for (const seen of this.#watchdog.symbols()) if (!this.#subs.wants(seen)) this.#forget(seen);
    } else if (!this.#subs.wants(ALL_MARKETS)) {
      this.#forget(symbol);
    }
  }

  /** Latest WebSocket book of a market (also while stale; see `isStale`). */
  book(symbol: string): MarketBook | undefined {
    return this.#books.get(symbol);
  }

  isStale(symbol: string): boolean {
    return this.#watchdog.isStale(symbol);
  }

  /** Channels with their state: `pending` until acknowledged, then `active`; `idle` while disconnected. */
  channels(): Record<string, SubscriptionState> {
    return this.#subs.states();
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#reconnectTimer?.cancel();
    this.#liveness?.cancel();
    this.#subs.resetAll();
    this.#watchdog.close();
    const ws = this.#ws;
    if (ws === undefined || ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    else ws.close(1000, 'client closing');
    await closed;
  }

  #connect(): void {
    this.#ready = false;
    this.#dropReason = undefined;
    // The authorization (with its date) is taken fresh for every connection attempt.
    const ws = new WebSocket(this.#options.url, connectionProtocols(this.#auth, this.#clock.now()), {
      handshakeTimeout: this.#options.connectTimeoutMs ?? 10_000,
    });
    this.#ws = ws;
    let failure: Error | undefined;
    ws.on('open', () => this.#onOpen(ws));
    ws.on('message', (data, isBinary) => {
      if (this.#ws !== ws) return;
      this.#liveness.heard();
      this.#onMessage(ws, isBinary ? '' : data.toString());
    });
    ws.on('error', (err) => {
      failure = err;
    });
    ws.on('close', (code, reason) => this.#onClose(ws, code, reason.toString(), failure));
  }

  #onOpen(ws: WebSocket): void {
    if (this.#ws !== ws) return;
    this.#liveness.heard();
    ws.send(JSON.stringify(connectionInitMessage()));
    const ackMs = this.#ackTimeoutMs;
    this.#liveness.awaitAck(ackMs, () => this.#drop(ws, `no connection_ack within ${ackMs} ms`));
  }

  #onAck(ws: WebSocket, connectionTimeoutMs: number | undefined): void {
    if (this.#ready) return;
    this.#liveness.cancel();
    this.#ready = true;
    this.#connectionTimeoutMs = connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS;
    this.#metrics.venue.wsConnected.set(1);
    // A connection during an incident is in its end line; the first and any after a quiet time are said.
    const fields = { channels: this.#subs.size, connectionTimeoutMs: this.#connectionTimeoutMs };
    if (this.#incidents.count(MARKET_DATA) === 0) this.#logger.info(fields, 'market data connected');
    this.emit('connected');
    this.#watchKeepAlive(ws, this.#connectionTimeoutMs);
    this.#subs.subscribeAll();
  }

  /** Drops the connection once nothing has been heard for `timeoutMs` (see liveness.ts). */
  #watchKeepAlive(ws: WebSocket, timeoutMs: number): void {
    this.#liveness.watch(
      timeoutMs,
      () => this.#ws === ws,
      () => {
        this.#metrics.venue.wsKeepAliveTimeouts.inc();
        this.#drop(ws, `no keep-alive within ${timeoutMs} ms`);
      },
    );
  }

  /** Ends a connection from this side; its close handler reconnects. */
  #drop(ws: WebSocket, why: string): void {
    if (this.#ws !== ws || this.#dropReason !== undefined) return;
    this.#dropReason = why;
    this.#incidents.failed(MARKET_DATA, this.#clock.now(), 'connection dropped', { code: 'dropped', reason: why });
    ws.terminate();
  }

  #onClose(ws: WebSocket, code: number, reason: string, failure: Error | undefined): void {
    if (this.#ws !== ws) return;
    this.#liveness.cancel();
    this.#ready = false;
    this.#metrics.venue.wsConnected.set(0);
    this.#subs.resetAll();
    if (this.#closing) return;
    const reconnectInMs = backoffDelay(this.#reconnectAttempt, this.#reconnect, this.#random);
    this.#reconnectAttempt += 1;
    const close = { code, reason, failure };
    const error = connectionLost(close, this.#dropReason, this.#reconnectAttempt, reconnectInMs);
    this.#metrics.venue.wsReconnects.inc();
    this.#incidents.failed(MARKET_DATA, this.#clock.now(), 'connection lost', error, { reconnectInMs });
    this.emit('disconnected', { error, reconnectInMs });
    this.#reconnectTimer = this.#clock.setTimer(() => this.#connect(), reconnectInMs);
  }

  #onMessage(ws: WebSocket, text: string): void {
    let message: MarketDataMessage;
    try {
      message = decodeMarketDataMessage(text, (id) => this.#subs.channelOf(id));
    } catch (err) {
      this.#metrics.venue.wsMessages.inc({ type: 'malformed' });
      this.#metrics.venue.malformedPayloads.inc({ source: 'ws' });
      this.#logger.warn({ err, frame: text.slice(0, 200) }, 'market data frame rejected');
      return;
    }
    this.#metrics.venue.wsMessages.inc({ type: message.type === 'other' ? 'other' : message.type });
    switch (message.type) {
      case 'data': {
        const markets = { subscriptions: this.#subs, watchdog: this.#watchdog, books: this.#books };
        return applyBooks(this.#context, markets, message, () => (this.#reconnectAttempt = 0));
      }
      case 'ticker':
        return applyTickers(this.#context, message);
      case 'ka':
        this.emit('keepAlive');
        return;
      case 'connection_ack':
        return this.#onAck(ws, message.connectionTimeoutMs);
      case 'connection_error': {
        const why = `connection_error: ${describeErrors(message.errors)}`;
        this.#logger.error({ errors: message.errors }, 'venue refused the market data connection');
        return this.#drop(ws, why);
      }
      default:
        return handleControlMessage(message, this.#subs, this.#logger);
    }
  }

  #forget(symbol: string): void {
    this.#watchdog.unwatch(symbol);
    this.#books.delete(symbol);
    this.#metrics.venue.marketStale.remove({ market: symbol });
  }
}
