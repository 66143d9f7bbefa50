/**
 * The market-data WebSocket at `/event/realtime`, speaking AWS AppSync's Events protocol as the venue does.
 *
 * Handshake: the client must offer the subprotocol `aws-appsync-event-ws` (else HTTP 400) and its
 * authorization as `header-<base64url JSON>` (else HTTP 401); the server answers with
 * `aws-appsync-event-ws`. `connection_init` is answered by `connection_ack` with `connectionTimeoutMs`, or,
 * when the header's API key or date is wrong, by `connection_error` (`UnauthorizedException`) after which
 * the server closes the connection. From the acknowledgement on, a `ka` goes out every `keepAliveMs`.
 *
 * Subscriptions: `subscribe` (checked again: its own `authorization`, the channel) is answered by
 * `subscribe_success` and at once an event with the markets it covers, or by `subscribe_error`;
 * `unsubscribe` names the subscription id and is answered by `unsubscribe_success` (`unsubscribe_error` for
 * an unknown id). A subscribe before `connection_init` gets `subscribe_error`; `publish` gets `publish_error`
 * (the order book channels are the venue's); anything else gets `error`. Unknown keys in a message (AWS's
 * client sends a `payload` and an `x-amz-user-agent`) are ignored.
 *
 * Data: each subscription gets `{type: 'data', id, event}` events, `event` holding the specification's data
 * message as a JSON string: the subscribed markets that changed since the last event (changes coalesced for
 * `coalesceMs`), and every `snapshotIntervalMs` all of them. A market covered by two subscriptions of one
 * connection goes out in the events of both, as on AppSync.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { VenuePair, VenueState } from './venue-state.ts';
import { subscriptionEvent, TickerPublication, tickerOf, type Ticker, type TickerFieldNames } from './ws-events.ts';
import {
  BAD_REQUEST,
  checkAuthorization,
  checkSubscribe,
  dataEnvelope,
  errorReply,
  EVENT_WS_PROTOCOL,
  headerAuthorization,
  offeredProtocols,
  parseClientMessage,
  refuseUpgrade,
  UNAUTHORIZED,
  type ChannelTarget,
  type EventError,
  type WsAuthConfig,
} from './ws-messages.ts';

export interface MarketDataServerOptions {
  readonly state: VenueState;
  readonly auth: WsAuthConfig;
  /** The sandbox clock: the `time` of data. */
  nowMs(): number;
  /**
   * The clock the authorization's date is checked against; default `nowMs`. Clients sign with their own (wall)
   * clock, so a sandbox whose venue clock runs accelerated checks dates against wall time.
   */
  authNowMs?(): number;
  readonly coalesceMs: number;
  readonly snapshotIntervalMs: number;
  /** Levels per side in data messages. */
  readonly depth: number;
  /** `ka` interval, wall time. */
  readonly keepAliveMs: number;
  /** Announced in `connection_ack`: how long a client waits for a `ka` before it gives up. */
  readonly connectionTimeoutMs: number;
  /** Field names of ticker data (ws-events.ts); default the documentation's. */
  readonly tickerFieldNames?: TickerFieldNames;
}

interface Connection {
  readonly socket: WebSocket;
  /** The handshake header's authorization failed: answer `connection_init` with this error. */
  readonly refused: EventError | undefined;
  acknowledged: boolean;
  /** Subscription id -> what it covers. */
  readonly subscriptions: Map<string, ChannelTarget>;
}

/** A client that does not read is skipped rather than buffered without bound. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export class MarketDataServer {
  readonly #options: MarketDataServerOptions;
  readonly #wss = new WebSocketServer({
    noServer: true,
    maxPayload: 64 * 1024,
    handleProtocols: (offered) => (offered.has(EVENT_WS_PROTOCOL) ? EVENT_WS_PROTOCOL : false),
  });
  readonly #connections = new Set<Connection>();
  readonly #dirty = new Set<string>();
  #flushTimer: NodeJS.Timeout | undefined;
  readonly #snapshotTimer: NodeJS.Timeout;
  readonly #keepAliveTimer: NodeJS.Timeout;
  #stalledUntil = 0;
  #silentUntil = 0;
  /** What the ticker channel published; its field names and freezing are set by the control API. */
  readonly ticker: TickerPublication;
  /** Data messages sent (both channels), for tests and the status endpoint. */
  sent = 0;
  /** Keep-alives sent. */
  keepAlives = 0;
  /** Handshakes refused (missing subprotocols) and connections refused at `connection_init`. */
  refused = 0;

  constructor(options: MarketDataServerOptions) {
    this.#options = options;
    this.ticker = new TickerPublication(options.tickerFieldNames);
    this.#snapshotTimer = setInterval(() => this.#send(undefined), options.snapshotIntervalMs);
    this.#snapshotTimer.unref();
    this.#keepAliveTimer = setInterval(() => this.#keepAlive(), options.keepAliveMs);
    this.#keepAliveTimer.unref();
    for (const p of options.state.pairs) p.market.listen({ book: (id) => this.marketChanged(id) });
  }

  get connections(): number {
    return this.#connections.size;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const protocols = offeredProtocols(req.headers['sec-websocket-protocol']);
    if (!protocols.includes(EVENT_WS_PROTOCOL)) {
      this.refused += 1;
      const offer = `offer the subprotocol ${EVENT_WS_PROTOCOL}`;
      return refuseUpgrade(socket, 400, { errorType: BAD_REQUEST, message: offer });
    }
    const auth = headerAuthorization(protocols);
    if (auth === undefined) {
      this.refused += 1;
      const offer = 'offer the authorization as a header-<base64url JSON> subprotocol';
      return refuseUpgrade(socket, 401, { errorType: UNAUTHORIZED, message: offer });
    }
    const refused = checkAuthorization(auth, this.#options.auth, this.#authNow());
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws, refused));
  }

  marketChanged(pairId: string): void {
    this.#dirty.add(pairId);
    if (this.#flushTimer !== undefined) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      const changed = new Set(this.#dirty);
      this.#dirty.clear();
      this.#send(changed);
    }, this.#options.coalesceMs);
    this.#flushTimer.unref();
  }

  /** Fault: cut every connection without a closing handshake. */
  dropAll(): number {
    const n = this.#connections.size;
    for (const c of this.#connections) c.socket.terminate();
    return n;
  }

  /** Fault: no data messages for `ms` (wall time); keep-alives and acknowledgements still go out. */
  stall(ms: number): void {
    this.#stalledUntil = performance.now() + ms;
  }

  /** Fault: neither data nor keep-alives for `ms` (wall time), the connections left open: a half-dead venue. */
  silence(ms: number): void {
    this.#silentUntil = performance.now() + ms;
  }

  get stalled(): boolean {
    return performance.now() < this.#stalledUntil || this.silent;
  }

  get silent(): boolean {
    return performance.now() < this.#silentUntil;
  }

  async close(): Promise<void> {
    clearInterval(this.#snapshotTimer);
    clearInterval(this.#keepAliveTimer);
    clearTimeout(this.#flushTimer);
    for (const c of this.#connections) c.socket.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  #accept(socket: WebSocket, refused: EventError | undefined): void {
    const conn: Connection = { socket, refused, acknowledged: false, subscriptions: new Map() };
    this.#connections.add(conn);
    socket.on('close', () => this.#connections.delete(conn));
    socket.on('error', () => socket.terminate());
    socket.on('message', (data, isBinary) => this.#onMessage(conn, isBinary ? undefined : data.toString()));
  }

  #reply(conn: Connection, body: Record<string, unknown>): void {
    if (conn.socket.readyState === conn.socket.OPEN) conn.socket.send(JSON.stringify(body));
  }

  #onMessage(conn: Connection, text: string | undefined): void {
    const message = parseClientMessage(text);
    if (message === undefined)
      return this.#reply(conn, errorReply({}, 'error', BAD_REQUEST, 'messages must be JSON objects (text frames)'));
    const id = typeof message.id === 'string' ? { id: message.id } : {};
    switch (message.type) {
      case 'connection_init':
        return this.#init(conn);
      case 'subscribe':
        if (!conn.acknowledged) {
          const wait = 'send connection_init and wait for connection_ack first';
          return this.#reply(conn, errorReply(id, 'subscribe_error', BAD_REQUEST, wait));
        }
        return this.#subscribe(conn, message);
      case 'unsubscribe': {
        if (typeof message.id === 'string' && conn.subscriptions.delete(message.id))
          return this.#reply(conn, { id: message.id, type: 'unsubscribe_success' });
        const unknownId = `no subscription with id ${JSON.stringify(message.id)}`;
        return this.#reply(conn, errorReply(id, 'unsubscribe_error', BAD_REQUEST, unknownId));
      }
      case 'publish': {
        const venueOnly = 'the orderbook channels are published by the venue only';
        return this.#reply(conn, errorReply(id, 'publish_error', UNAUTHORIZED, venueOnly));
      }
      default: {
        const unknownType = `unknown message type ${JSON.stringify(message.type)}`;
        return this.#reply(conn, errorReply(id, 'error', BAD_REQUEST, unknownType));
      }
    }
  }

  #init(conn: Connection): void {
    if (conn.refused !== undefined) {
      this.refused += 1;
      this.#reply(conn, { type: 'connection_error', errors: [conn.refused] });
      conn.socket.close(1000, 'unauthorized');
      return;
    }
    conn.acknowledged = true;
    this.#reply(conn, { type: 'connection_ack', connectionTimeoutMs: this.#options.connectionTimeoutMs });
  }

  #authNow(): number {
    return this.#options.authNowMs?.() ?? this.#options.nowMs();
  }

  #subscribe(conn: Connection, message: Record<string, unknown>): void {
    const state = this.#options.state;
    const check = checkSubscribe(
      message,
      this.#options.auth,
      this.#authNow(),
      (s) => state.pairBySymbol(s) !== undefined,
    );
    if (!check.ok)
      return this.#reply(conn, {
        ...(check.id === undefined ? {} : { id: check.id }),
        type: 'subscribe_error',
        errors: [check.error],
      });
    if (conn.subscriptions.has(check.id)) {
      const inUse = `subscription id ${check.id} is already in use on this connection`;
      return this.#reply(conn, errorReply({ id: check.id }, 'subscribe_error', BAD_REQUEST, inUse));
    }
    conn.subscriptions.set(check.id, check.target);
    this.#reply(conn, { id: check.id, type: 'subscribe_success' });
    if (this.stalled) return;
    const active = state.activePairs();
    const tickers = this.ticker.frozen ? [] : active.map((p) => ({ symbol: p.symbol, ...tickerOf(p) }));
    this.#sendTo(conn, check.id, check.target, active, tickers);
  }

  #keepAlive(): void {
    if (this.silent) return;
    for (const conn of this.#connections) {
      if (!conn.acknowledged || conn.socket.readyState !== conn.socket.OPEN) continue;
      conn.socket.send('{"type":"ka"}');
      this.keepAlives += 1;
    }
  }

  /**
   * Sends the changed markets (all subscribed markets when `changed` is undefined) to every orderbook
   * subscription, and the tickers that changed with them to every ticker subscription.
   */
  #send(changed: ReadonlySet<string> | undefined): void {
    if (this.stalled) return;
    const pairs = this.#options.state.activePairs().filter((p) => changed === undefined || changed.has(p.id));
    // Each ticker subscription gets what differs from what it last got (ws-events.ts), snapshots included.
    const tickers = this.ticker.frozen ? [] : pairs.map((p) => ({ symbol: p.symbol, ...tickerOf(p) }));
    if (this.#connections.size === 0) return;
    for (const conn of this.#connections)
      for (const [id, target] of conn.subscriptions) this.#sendTo(conn, id, target, pairs, tickers);
  }

  #sendTo(
    conn: Connection,
    id: string,
    target: ChannelTarget,
    pairs: readonly VenuePair[],
    tickers: readonly Ticker[],
  ) {
    if (conn.socket.readyState !== conn.socket.OPEN || conn.socket.bufferedAmount > MAX_BUFFERED_BYTES) return;
    const at = { depth: this.#options.depth, nowMs: this.#options.nowMs(), fieldNames: this.ticker.fieldNames };
    const event = subscriptionEvent(target, pairs, tickers, at);
    if (event === undefined) return;
    conn.socket.send(dataEnvelope(id, event));
    this.sent += 1;
  }
}
