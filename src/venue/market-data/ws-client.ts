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
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { WebSocket } from 'ws';
import { DltError } from '../../core/errors.ts';
import { incidentsOf, type Incidents } from '../../telemetry/incidents.ts';
import { silentLogger } from '../../telemetry/logger.ts';
import { createMetrics, type Metrics } from '../../telemetry/metrics.ts';
import type { Clock, Timer } from '../../core/clock.ts';
import { systemClock } from '../../core/system-clock.ts';
import { systemRandom, type Random } from '../random.ts';
import { backoffDelay, type BackoffPolicy } from '../retry-policy.ts';
import { BookStore, type MarketBook } from './book.ts';
import { decodeMarketDataMessage, describeErrors, type MarketDataMessage, type Rejected } from './decode.ts';
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

export type { MarketDataClientOptions, MarketDataEvents, StaleEvent } from './ws-client-types.ts';

/** What the venue's captures show, and what AWS's client assumes when `connection_ack` carries none. */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 300_000;

const DEFAULT_RECONNECT: BackoffPolicy = { baseMs: 500, capMs: 30_000 };
const MARKET_DATA = 'venue market data'; // the incident kind of connection losses and stale markets

export class MarketDataClient extends EventEmitter<MarketDataEvents> {
  readonly #o: MarketDataClientOptions;
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
  #ws: WebSocket | undefined;
  /** True from `connection_ack` until the connection closes. */
  #ready = false;
  #reconnectAttempt = 0;
  #reconnectTimer: Timer | undefined;
  /** The `connection_ack` wait, then the keep-alive watch. */
  #liveness: Timer | undefined;
  #lastHeardAt = 0;
  #connectionTimeoutMs = DEFAULT_CONNECTION_TIMEOUT_MS;
  /** Why this side ended the connection (keep-alive missing, connection_error...), for the disconnect report. */
  #dropReason: string | undefined;
  #closing = false;
  #started = false;

  constructor(options: MarketDataClientOptions) {
    super();
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? systemRandom;
    this.#logger = options.logger ?? silentLogger();
    this.#incidents = incidentsOf(this.#logger);
    this.#metrics = options.metrics ?? createMetrics();
    this.#reconnect = { ...DEFAULT_RECONNECT, ...options.reconnect };
    this.#auth = { host: options.host, apiKey: options.apiKey, dateHeader: options.dateHeader ?? DEFAULT_DATE_HEADER };
    this.#ackTimeoutMs = options.ackTimeoutMs ?? 15_000;
    this.#subs = new Subscriptions({
      auth: this.#auth,
      ackTimeoutMs: this.#ackTimeoutMs,
      retry: { ...DEFAULT_RECONNECT, ...options.resubscribe },
      clock: this.#clock,
      random: this.#random,
      newId: options.newId ?? randomUUID,
      send: (message) => this.#ws?.send(JSON.stringify(message)),
      isOpen: () => this.connected,
      onAcknowledged: (channel) => {
        this.#reconnectAttempt = 0;
        this.emit('subscribed', channel);
      },
      onFailed: (channel, error, retryInMs) => {
        this.#metrics.venue.wsSubscriptionFailures.inc({ channel });
        const refused = 'market data subscription refused as unauthorised: check venue.apiKey; retrying';
        if (/unauthori[sz]ed|forbidden|not authorized/i.test(error.message)) this.#logger.error(error, refused);
        else this.#incidents.failed(MARKET_DATA, this.#clock.now(), `${channel} subscription`, error);
        this.emit('subscriptionFailed', { channel, error, retryInMs });
      },
    });
    this.#watchdog = new StalenessWatchdog({
      staleAfterMs: options.staleAfterMs ?? 10_000,
      clock: this.#clock,
      onStale: (symbol, lastSeenAt, hadData) => {
        this.#metrics.venue.marketStale.set({ market: symbol }, 1);
        this.#metrics.venue.marketStaleTransitions.inc({ market: symbol });
        const quiet = { code: 'stale', reason: `no update for ${this.#clock.now() - lastSeenAt} ms` };
        this.#incidents.failed(MARKET_DATA, this.#clock.now(), `${symbol} stale`, quiet, { hadData });
        this.emit('stale', { symbol, lastSeenAt, hadData });
      },
      onFresh: (symbol) => {
        this.#metrics.venue.marketStale.set({ market: symbol }, 0);
        this.emit('fresh', symbol);
      },
    });
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
      for (const s of this.#watchdog.symbols()) if (!this.#subs.wants(s)) this.#forget(s);
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
    const ws = new WebSocket(this.#o.url, connectionProtocols(this.#auth, this.#clock.now()), {
      handshakeTimeout: this.#o.connectTimeoutMs ?? 10_000,
    });
    this.#ws = ws;
    let failure: Error | undefined;
    ws.on('open', () => this.#onOpen(ws));
    ws.on('message', (data, isBinary) => {
      if (this.#ws !== ws) return;
      this.#lastHeardAt = this.#clock.now();
      this.#onMessage(ws, isBinary ? '' : data.toString());
    });
    ws.on('error', (e) => {
      failure = e;
    });
    ws.on('close', (code, reason) => this.#onClose(ws, code, reason.toString(), failure));
  }

  #onOpen(ws: WebSocket): void {
    if (this.#ws !== ws) return;
    this.#lastHeardAt = this.#clock.now();
    ws.send(JSON.stringify(connectionInitMessage()));
    const ackMs = this.#ackTimeoutMs;
    this.#liveness = this.#clock.setTimer(() => this.#drop(ws, `no connection_ack within ${ackMs} ms`), ackMs);
  }

  #onAck(ws: WebSocket, connectionTimeoutMs: number | undefined): void {
    if (this.#ready) return;
    this.#liveness?.cancel();
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

  /**
   * Drops the connection once nothing has been heard for `timeoutMs` (re-armed for the time left). The
   * verdict is confirmed one timer turn later: after a pause of this process (a long GC, a busy machine)
   * timers run before the frames that arrived meanwhile are read, and those frames must count.
   */
  #watchKeepAlive(ws: WebSocket, timeoutMs: number): void {
    const quiet = this.#clock.now() - this.#lastHeardAt;
    const silent = () => this.#clock.now() - this.#lastHeardAt >= timeoutMs;
    this.#liveness = this.#clock.setTimer(
      () => {
        if (this.#ws !== ws) return;
        if (!silent()) return this.#watchKeepAlive(ws, timeoutMs);
        this.#liveness = this.#clock.setTimer(() => {
          if (this.#ws !== ws) return;
          if (!silent()) return this.#watchKeepAlive(ws, timeoutMs);
          this.#metrics.venue.wsKeepAliveTimeouts.inc();
          this.#drop(ws, `no keep-alive within ${timeoutMs} ms`);
        }, 0);
      },
      Math.max(0, timeoutMs - quiet),
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
    this.#liveness?.cancel();
    this.#ready = false;
    this.#metrics.venue.wsConnected.set(0);
    this.#subs.resetAll();
    if (this.#closing) return;
    const reconnectInMs = backoffDelay(this.#reconnectAttempt, this.#reconnect, this.#random);
    this.#reconnectAttempt += 1;
    const why =
      this.#dropReason ??
      failure?.message ??
      (reason === '' ? `closed with code ${code}` : `closed with code ${code}: ${reason}`);
    const error = new DltError('E_WS_CONNECTION', `market data connection lost: ${why}`, {
      details: { code, reason, attempt: this.#reconnectAttempt, reconnectInMs },
      ...(failure === undefined ? {} : { cause: failure }),
    });
    this.#metrics.venue.wsReconnects.inc();
    this.#incidents.failed(MARKET_DATA, this.#clock.now(), 'connection lost', error, { reconnectInMs });
    this.emit('disconnected', { error, reconnectInMs });
    this.#reconnectTimer = this.#clock.setTimer(() => this.#connect(), reconnectInMs);
  }

  #onMessage(ws: WebSocket, text: string): void {
    let message: MarketDataMessage;
    try {
      message = decodeMarketDataMessage(text, (id) => this.#subs.channelOf(id));
    } catch (e) {
      this.#metrics.venue.wsMessages.inc({ type: 'malformed' });
      this.#metrics.venue.malformedPayloads.inc({ source: 'ws' });
      this.#logger.warn({ err: e, frame: text.slice(0, 200) }, 'market data frame rejected');
      return;
    }
    this.#metrics.venue.wsMessages.inc({ type: message.type === 'other' ? 'other' : message.type });
    switch (message.type) {
      case 'data':
        return this.#onData(message);
      case 'ticker':
        this.#rejected(message.rejected, 'ticker update rejected');
        for (const t of message.tickers) this.emit('ticker', { ...t, receivedAt: this.#clock.now() });
        return;
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
      case 'subscribe_success':
        if (this.#subs.acknowledge(message.id) === undefined)
          this.#logger.debug({ id: message.id }, 'subscribe_success for no pending subscription');
        return;
      case 'subscribe_error':
      case 'error': {
        const why = `${message.type}: ${describeErrors(message.errors)}`;
        if (message.id !== undefined && this.#subs.refuse(message.id, why)) return;
        this.#logger.warn(
          { id: message.id, errors: message.errors, type: message.type },
          'market data error for no pending subscription',
        );
        return;
      }
      case 'unsubscribe_success':
        this.#logger.debug({ id: message.id, channel: this.#subs.ended(message.id) }, 'unsubscribed');
        return;
      case 'unsubscribe_error':
        this.#logger.warn(
          { id: message.id, channel: this.#subs.ended(message.id ?? ''), errors: message.errors },
          'venue refused an unsubscribe',
        );
        return;
      default:
        this.#logger.debug({ type: message.name }, 'market data message of an unknown type ignored');
    }
  }

  #rejected(rejected: readonly Rejected[], what: string): void {
    for (const r of rejected) {
      this.#metrics.venue.malformedPayloads.inc({ source: 'ws' });
      this.#logger.warn({ index: r.index, market: r.symbol, problems: r.problems }, what);
    }
  }

  #onData(message: Extract<MarketDataMessage, { type: 'data' }>): void {
    this.#rejected(message.rejected, 'market update rejected; keeping the previous book');
    const everything = this.#subs.wants(ALL_MARKETS);
    const receivedAt = this.#clock.now();
    this.#incidents.succeeded(MARKET_DATA, receivedAt);
    for (const m of message.markets) {
      if (!everything && !this.#subs.wants(m.symbol)) continue;
      if (everything) this.#watchdog.watch(m.symbol);
      this.#watchdog.seen(m.symbol);
      const book: MarketBook = { symbol: m.symbol, buy: m.buy, sell: m.sell, time: m.time, receivedAt, source: 'ws' };
      this.#books.apply(book);
      this.#reconnectAttempt = 0;
      this.emit('book', book);
    }
  }

  #forget(symbol: string): void {
    this.#watchdog.unwatch(symbol);
    this.#books.delete(symbol);
    this.#metrics.venue.marketStale.remove({ market: symbol });
  }
}
