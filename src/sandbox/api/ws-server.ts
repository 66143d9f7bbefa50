/**
 * The WebSocket `orderbook` channel at `/ws`. A connection may hold many subscriptions; each data message
 * carries every subscribed market that changed since the last one (changes are coalesced for `coalesceMs`),
 * and every `snapshotIntervalMs` a full snapshot of all subscribed markets goes out, changed or not. A
 * market appears once per message even when two subscriptions cover it. Subscribe is answered with
 * `subscribe_success` and at once a snapshot of the markets it adds; a refused subscribe with
 * `{id, type: 'subscribe_failure', channel, code, message}`. Unsubscribe mirrors subscribe without the
 * authorization and is answered `unsubscribe_success` (or `unsubscribe_failure` when not subscribed).
 * Anything else gets `{type: 'error', code, message}`.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { price, quantity } from './render.ts';
import type { VenuePair, VenueState } from './venue-state.ts';
import { checkSubscribe, dataMessage, parseChannel, type ChannelTarget, type WsAuthConfig, type WsMarket } from './ws-messages.ts';

export interface MarketDataServerOptions {
  readonly state: VenueState;
  readonly auth: WsAuthConfig;
  /** The sandbox clock: date checks and the `time` of data. */
  nowMs(): number;
  readonly coalesceMs: number;
  readonly snapshotIntervalMs: number;
  /** Levels per side in data messages. */
  readonly depth: number;
}

interface Connection {
  readonly socket: WebSocket;
  readonly subscriptions: Map<string, ChannelTarget>;
}

/** A client that does not read is skipped rather than buffered without bound. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export class MarketDataServer {
  readonly #o: MarketDataServerOptions;
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  readonly #connections = new Set<Connection>();
  readonly #dirty = new Set<string>();
  #flushTimer: NodeJS.Timeout | undefined;
  readonly #snapshotTimer: NodeJS.Timeout;
  #stalledUntil = 0;
  /** Data messages sent, for tests and the status endpoint. */
  sent = 0;

  constructor(options: MarketDataServerOptions) {
    this.#o = options;
    this.#snapshotTimer = setInterval(() => this.#send(undefined), options.snapshotIntervalMs);
    this.#snapshotTimer.unref();
    for (const p of options.state.pairs) p.market.listen({ book: (id) => this.marketChanged(id) });
  }

  get connections(): number {
    return this.#connections.size;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws));
  }

  marketChanged(pairId: string): void {
    this.#dirty.add(pairId);
    if (this.#flushTimer !== undefined) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      const changed = new Set(this.#dirty);
      this.#dirty.clear();
      this.#send(changed);
    }, this.#o.coalesceMs);
    this.#flushTimer.unref();
  }

  /** Fault: cut every connection without a closing handshake. */
  dropAll(): number {
    const n = this.#connections.size;
    for (const c of this.#connections) c.socket.terminate();
    return n;
  }

  /** Fault: no data messages for `ms` (wall time); acknowledgements still go out. */
  stall(ms: number): void {
    this.#stalledUntil = performance.now() + ms;
  }

  get stalled(): boolean {
    return performance.now() < this.#stalledUntil;
  }

  async close(): Promise<void> {
    clearInterval(this.#snapshotTimer);
    clearTimeout(this.#flushTimer);
    for (const c of this.#connections) c.socket.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  #accept(socket: WebSocket): void {
    const conn: Connection = { socket, subscriptions: new Map() };
    this.#connections.add(conn);
    socket.on('close', () => this.#connections.delete(conn));
    socket.on('error', () => socket.terminate());
    socket.on('message', (data, isBinary) => this.#onMessage(conn, isBinary ? undefined : data.toString()));
  }

  #reply(conn: Connection, body: Record<string, unknown>): void {
    if (conn.socket.readyState === conn.socket.OPEN) conn.socket.send(JSON.stringify(body));
  }

  #onMessage(conn: Connection, text: string | undefined): void {
    let msg: unknown;
    try {
      msg = text === undefined ? undefined : JSON.parse(text);
    } catch {
      msg = undefined;
    }
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
      return this.#reply(conn, { type: 'error', code: 'BAD_REQUEST', message: 'messages must be JSON objects (text frames)' });
    }
    const m = msg as Record<string, unknown>;
    const id = typeof m.id === 'string' ? { id: m.id } : {};
    if (m.type === 'subscribe') return this.#subscribe(conn, m);
    if (m.type === 'unsubscribe') {
      const channel = typeof m.channel === 'string' ? m.channel : '';
      const key = this.#channelKey(channel);
      if (key !== undefined && conn.subscriptions.delete(key)) return this.#reply(conn, { ...id, type: 'unsubscribe_success', channel });
      return this.#reply(conn, { ...id, type: 'unsubscribe_failure', channel, code: 'NOT_SUBSCRIBED', message: `not subscribed to ${JSON.stringify(channel)}` });
    }
    this.#reply(conn, { ...id, type: 'error', code: 'BAD_REQUEST', message: `unknown message type ${JSON.stringify(m.type)}; use subscribe or unsubscribe` });
  }

  /** Subscriptions are keyed by the normalised channel, so `/orderbook/*` and `orderbook/*` are one. */
  #channelKey(channel: string): string | undefined {
    const t = parseChannel(channel);
    if (t === undefined) return undefined;
    return t.kind === 'all' ? 'orderbook/*' : `orderbook/bytradingpair/${t.symbol}`;
  }

  #subscribe(conn: Connection, m: Record<string, unknown>): void {
    const state = this.#o.state;
    const check = checkSubscribe(m, this.#o.auth, this.#o.nowMs(), (s) => state.pairBySymbol(s) !== undefined);
    if (!check.ok) {
      return this.#reply(conn, { ...(check.id === undefined ? {} : { id: check.id }), type: 'subscribe_failure', channel: check.channel ?? null, code: check.code, message: check.message });
    }
    const key = this.#channelKey(check.channel) as string;
    conn.subscriptions.set(key, check.target);
    this.#reply(conn, { id: check.id, type: 'subscribe_success', channel: check.channel });
    if (this.stalled) return;
    const markets = state.activePairs().filter((p) => check.target.kind === 'all' || p.symbol === check.target.symbol);
    this.#sendTo(conn, markets);
  }

  #wanted(conn: Connection, p: VenuePair): boolean {
    for (const t of conn.subscriptions.values()) if (t.kind === 'all' || t.symbol === p.symbol) return true;
    return false;
  }

  /** Sends the changed markets (all subscribed markets when `changed` is undefined) to every connection. */
  #send(changed: ReadonlySet<string> | undefined): void {
    if (this.stalled || this.#connections.size === 0) return;
    const pairs = this.#o.state.activePairs().filter((p) => changed === undefined || changed.has(p.id));
    for (const conn of this.#connections) this.#sendTo(conn, pairs.filter((p) => this.#wanted(conn, p)));
  }

  #sendTo(conn: Connection, pairs: readonly VenuePair[]): void {
    if (pairs.length === 0 || conn.socket.readyState !== conn.socket.OPEN || conn.socket.bufferedAmount > MAX_BUFFERED_BYTES) return;
    const time = new Date(this.#o.nowMs()).toISOString();
    const markets: WsMarket[] = pairs.map((p) => ({ symbol: p.symbol, buy: this.#levels(p, 'buy'), sell: this.#levels(p, 'sell'), time }));
    conn.socket.send(dataMessage(markets));
    this.sent += 1;
  }

  #levels(p: VenuePair, side: 'buy' | 'sell') {
    return p.market.book.levels(side, this.#o.depth).map((l) => ({ limit: price(p, l.price), totalQuantity: quantity(p, l.quantity), orderCount: l.orderCount }));
  }
}
