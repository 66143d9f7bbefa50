/**
 * The WebSocket market-data client: one connection for many markets, authenticated `subscribe` per channel,
 * `subscribe_success` tracking, reconnect with backoff and resubscription of everything, a staleness
 * watchdog per market, and the latest book per market (each data message replaces it). It reports upward
 * through typed events and knows nothing of chains or trading.
 *
 * Choices where the specification is silent: a subscription not acknowledged within `ackTimeoutMs`, or
 * answered by `{type: 'subscribe_failure' | 'error', id}`, is retried with backoff on the same connection;
 * a failure without a known id is only logged and counted. A ping every `pingIntervalMs` without a pong by
 * the next one ends the connection (a half-open TCP connection delivers nothing and reports no error).
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { WebSocket } from 'ws';
import { DltError } from '../../core/errors.ts';
import { silentLogger } from '../../telemetry/logger.ts';
import { createMetrics, type Metrics } from '../../telemetry/metrics.ts';
import { systemClock, systemRandom, type Clock, type Random, type Timer } from '../clock.ts';
import { backoffDelay, type BackoffPolicy } from '../retry-policy.ts';
import { BookStore, type MarketBook } from './book.ts';
import { decodeMarketDataMessage, type MarketDataMessage } from './decode.ts';
import { StalenessWatchdog } from './staleness-watchdog.ts';
import { ALL_MARKETS, DEFAULT_DATE_HEADER } from './subscribe-messages.ts';
import { Subscriptions, type SubscriptionState } from './subscriptions.ts';

export interface MarketDataClientOptions {
  readonly url: string;
  /** `authorization.host` of subscribe messages. */
  readonly host: string;
  readonly apiKey: string;
  /** Vendor-prefixed date field name (config `venue.dateHeader`). */
  readonly dateHeader?: string;
  /** No data for this long makes a market stale (config `venue.marketDataStaleMs`). Default 10 s. */
  readonly staleAfterMs?: number;
  readonly reconnect?: Partial<BackoffPolicy>;
  readonly resubscribe?: Partial<BackoffPolicy>;
  /** Wait for `subscribe_success`; default 10 s. */
  readonly ackTimeoutMs?: number;
  /** Wait for the WebSocket handshake; default 10 s. */
  readonly connectTimeoutMs?: number;
  /** Default 15 s; 0 turns the keep-alive off. */
  readonly pingIntervalMs?: number;
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
  connected: [];
  disconnected: [event: { readonly error: DltError; readonly reconnectInMs: number }];
  subscribed: [channel: string];
  subscriptionFailed: [event: { readonly channel: string; readonly error: DltError; readonly retryInMs: number }];
}

const DEFAULT_RECONNECT: BackoffPolicy = { baseMs: 500, capMs: 30_000 };

export class MarketDataClient extends EventEmitter<MarketDataEvents> {
  readonly #o: MarketDataClientOptions;
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #logger: Logger;
  readonly #metrics: Metrics;
  readonly #reconnect: BackoffPolicy;
  readonly #subs: Subscriptions;
  readonly #books = new BookStore();
  readonly #watchdog: StalenessWatchdog;
  #ws: WebSocket | undefined;
  #reconnectAttempt = 0;
  #reconnectTimer: Timer | undefined;
  #pingTimer: Timer | undefined;
  #awaitingPong = false;
  #closing = false;
  #started = false;

  constructor(options: MarketDataClientOptions) {
    super();
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? systemRandom;
    this.#logger = options.logger ?? silentLogger();
    this.#metrics = options.metrics ?? createMetrics();
    this.#reconnect = { ...DEFAULT_RECONNECT, ...options.reconnect };
    this.#subs = new Subscriptions({
      auth: { host: options.host, apiKey: options.apiKey, dateHeader: options.dateHeader ?? DEFAULT_DATE_HEADER },
      ackTimeoutMs: options.ackTimeoutMs ?? 10_000,
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
        this.#logger.warn({ err: error }, 'market data subscription failed; retrying');
        this.emit('subscriptionFailed', { channel, error, retryInMs });
      },
    });
    this.#watchdog = new StalenessWatchdog({
      staleAfterMs: options.staleAfterMs ?? 10_000,
      clock: this.#clock,
      onStale: (symbol, lastSeenAt, hadData) => {
        this.#metrics.venue.marketStale.set({ market: symbol }, 1);
        this.#metrics.venue.marketStaleTransitions.inc({ market: symbol });
        this.#logger.warn({ market: symbol, quietMs: this.#clock.now() - lastSeenAt, hadData }, 'market data stale');
        this.emit('stale', { symbol, lastSeenAt, hadData });
      },
      onFresh: (symbol) => {
        this.#metrics.venue.marketStale.set({ market: symbol }, 0);
        this.#logger.info({ market: symbol }, 'market data fresh again');
        this.emit('fresh', symbol);
      },
    });
  }

  get connected(): boolean {
    return this.#ws?.readyState === WebSocket.OPEN;
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
    this.#pingTimer?.cancel();
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
    const ws = new WebSocket(this.#o.url, { handshakeTimeout: this.#o.connectTimeoutMs ?? 10_000 });
    this.#ws = ws;
    let failure: Error | undefined;
    ws.on('open', () => this.#onOpen(ws));
    ws.on('message', (data, isBinary) => {
      this.#awaitingPong = false;
      this.#onMessage(isBinary ? '' : data.toString());
    });
    ws.on('pong', () => {
      this.#awaitingPong = false;
    });
    ws.on('error', (e) => {
      failure = e;
    });
    ws.on('close', (code, reason) => this.#onClose(ws, code, reason.toString(), failure));
  }

  #onOpen(ws: WebSocket): void {
    if (this.#ws !== ws) return;
    this.#metrics.venue.wsConnected.set(1);
    this.#logger.info({ channels: this.#subs.size }, 'market data connected');
    this.emit('connected');
    this.#subs.subscribeAll();
    this.#schedulePing(ws);
  }

  #onClose(ws: WebSocket, code: number, reason: string, failure: Error | undefined): void {
    if (this.#ws !== ws) return;
    this.#pingTimer?.cancel();
    this.#metrics.venue.wsConnected.set(0);
    this.#subs.resetAll();
    if (this.#closing) return;
    const reconnectInMs = backoffDelay(this.#reconnectAttempt, this.#reconnect, this.#random);
    this.#reconnectAttempt += 1;
    const why = failure?.message ?? (reason === '' ? `closed with code ${code}` : `closed with code ${code}: ${reason}`);
    const error = new DltError('E_WS_CONNECTION', `market data connection lost: ${why}`, {
      details: { code, reason, attempt: this.#reconnectAttempt, reconnectInMs },
      ...(failure === undefined ? {} : { cause: failure }),
    });
    this.#metrics.venue.wsReconnects.inc();
    this.#logger.warn({ err: error }, 'market data disconnected; reconnecting');
    this.emit('disconnected', { error, reconnectInMs });
    this.#reconnectTimer = this.#clock.setTimer(() => this.#connect(), reconnectInMs);
  }

  #schedulePing(ws: WebSocket): void {
    const every = this.#o.pingIntervalMs ?? 15_000;
    if (every <= 0) return;
    this.#awaitingPong = false;
    const tick = () => {
      if (this.#ws !== ws || ws.readyState !== WebSocket.OPEN) return;
      if (this.#awaitingPong) {
        this.#logger.warn({ pingIntervalMs: every }, 'market data connection silent; dropping it');
        ws.terminate();
        return;
      }
      this.#awaitingPong = true;
      ws.ping();
      this.#pingTimer = this.#clock.setTimer(tick, every);
    };
    this.#pingTimer = this.#clock.setTimer(tick, every);
  }

  #onMessage(text: string): void {
    let message: MarketDataMessage;
    try {
      message = decodeMarketDataMessage(text);
    } catch (e) {
      this.#metrics.venue.wsMessages.inc({ type: 'malformed' });
      this.#metrics.venue.malformedPayloads.inc({ source: 'ws' });
      this.#logger.warn({ err: e, frame: text.slice(0, 200) }, 'market data frame rejected');
      return;
    }
    this.#metrics.venue.wsMessages.inc({ type: message.type });
    switch (message.type) {
      case 'data':
        return this.#onData(message);
      case 'subscribe_success':
        if (this.#subs.acknowledge(message.id) === undefined) this.#logger.debug({ id: message.id }, 'subscribe_success for no pending subscription');
        return;
      case 'subscribe_failure':
      case 'error': {
        const why = `${message.type}${message.message === undefined ? '' : `: ${message.message}`}`;
        if (message.id !== undefined && this.#subs.refuse(message.id, why)) return;
        this.#logger.warn({ id: message.id, message: message.message, type: message.type }, 'market data error for no pending subscription');
        return;
      }
      default:
        this.#logger.debug({ type: message.name }, 'market data message of an unknown type ignored');
    }
  }

  #onData(message: Extract<MarketDataMessage, { type: 'data' }>): void {
    for (const r of message.rejected) {
      this.#metrics.venue.malformedPayloads.inc({ source: 'ws' });
      this.#logger.warn({ index: r.index, market: r.symbol, problems: r.problems }, 'market update rejected; keeping the previous book');
    }
    const everything = this.#subs.wants(ALL_MARKETS);
    const receivedAt = this.#clock.now();
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
