/**
 * A real WebSocket server on a free loopback port standing in for the venue's AppSync Events endpoint
 * (`/event/realtime`). It selects the `aws-appsync-event-ws` subprotocol (refusing the handshake without it),
 * records the authorization each connection offered in its `header-` subprotocol and every client message,
 * answers `connection_init` and `subscribe` through replaceable policies (acknowledge by default), publishes
 * events in the `{type: 'data', id, event}` envelope on demand, sends keep-alives when told, and can drop
 * every connection, as the venue might. It never sends anything on its own: time belongs to the test.
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export type SubscribeAnswer = (message: Record<string, unknown>) => Record<string, unknown> | string | undefined;
export type InitAnswer = (connection: number) => Record<string, unknown> | string | undefined;

export const acknowledge: SubscribeAnswer = (m) => ({ id: m.id, type: 'subscribe_success' });

export interface Received {
  readonly connection: number;
  readonly message: Record<string, unknown>;
}

interface Socket {
  readonly connection: number;
  readonly socket: WebSocket;
  /** Subscription ids acknowledged on this connection, in order. */
  readonly ids: string[];
}

export class FakeWsVenue {
  readonly received: Received[] = [];
  /** The authorization object of each connection's `header-` subprotocol (undefined when absent or unreadable). */
  readonly handshakes: { readonly protocols: string[]; readonly header: Record<string, unknown> | undefined }[] = [];
  /** How a subscribe is answered; `undefined` answers nothing. */
  answer: SubscribeAnswer = acknowledge;
  /** `connectionTimeoutMs` of the default `connection_ack`. */
  connectionTimeoutMs = 300_000;
  /** How `connection_init` is answered; `undefined` answers nothing. */
  init: InitAnswer = () => ({ type: 'connection_ack', connectionTimeoutMs: this.connectionTimeoutMs });
  /** Accept the TCP connection, then cut it at once (a venue that keeps failing). */
  rejectConnections = false;
  readonly #server: WebSocketServer;
  readonly #sockets = new Set<Socket>();
  #connections = 0;
  #waiters: (() => void)[] = [];

  private constructor(server: WebSocketServer) {
    this.#server = server;
    server.on('connection', (socket, req) => {
      const connection = ++this.#connections;
      const protocols = (req.headers['sec-websocket-protocol'] ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== '');
      this.handshakes.push({ protocols, header: decodeHeader(protocols.find((p) => p.startsWith('header-'))) });
      if (this.rejectConnections) {
        socket.terminate();
        this.#wake();
        return;
      }
      const s: Socket = { connection, socket, ids: [] };
      this.#sockets.add(s);
      socket.on('close', () => this.#sockets.delete(s));
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as Record<string, unknown>;
        this.received.push({ connection, message });
        const reply =
          message.type === 'connection_init'
            ? this.init(connection)
            : message.type === 'subscribe'
              ? this.answer(message)
              : undefined;
        if (reply !== undefined) {
          if (typeof reply !== 'string' && reply.type === 'subscribe_success' && typeof reply.id === 'string')
            s.ids.push(reply.id);
          socket.send(typeof reply === 'string' ? reply : JSON.stringify(reply));
        }
        this.#wake();
      });
      this.#wake();
    });
  }

  static async start(): Promise<FakeWsVenue> {
    const server = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      path: '/event/realtime',
      handleProtocols: (offered) => (offered.has('aws-appsync-event-ws') ? 'aws-appsync-event-ws' : false),
    });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    return new FakeWsVenue(server);
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.#server.address() as AddressInfo).port}/event/realtime`;
  }

  /** Connections accepted so far. */
  get connections(): number {
    return this.#connections;
  }

  get openSockets(): number {
    return this.#sockets.size;
  }

  subscribes(connection?: number): Record<string, unknown>[] {
    return this.messages('subscribe', connection);
  }

  messages(type: string, connection?: number): Record<string, unknown>[] {
    return this.received
      .filter((r) => r.message.type === type && (connection === undefined || r.connection === connection))
      .map((r) => r.message);
  }

  /** Sends a frame (object as JSON, or raw text) to every open connection. */
  send(frame: Record<string, unknown> | string): void {
    const text = typeof frame === 'string' ? frame : JSON.stringify(frame);
    for (const s of this.#sockets) s.socket.send(text);
  }

  /** Publishes a data message to every connection, as an event of its first acknowledged subscription. */
  publish(message: Record<string, unknown> | string): void {
    const event = typeof message === 'string' ? message : JSON.stringify(message);
    for (const s of this.#sockets) {
      const id = s.ids[0];
      if (id !== undefined) s.socket.send(JSON.stringify({ type: 'data', id, event }));
    }
  }

  keepAlive(): void {
    this.send({ type: 'ka' });
  }

  /** Cuts every connection without a closing handshake. */
  drop(): void {
    for (const s of this.#sockets) s.socket.terminate();
  }

  /** Resolves once `condition` holds, re-checked on every connection and message (no polling). */
  until(condition: () => boolean, what = 'condition', timeoutMs = 5_000): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const guard = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      const check = () => {
        if (!condition()) return this.#waiters.push(check);
        clearTimeout(guard);
        resolve();
      };
      this.#waiters.push(check);
    });
  }

  close(): Promise<void> {
    for (const s of this.#sockets) s.socket.terminate();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}

function decodeHeader(protocol: string | undefined): Record<string, unknown> | undefined {
  if (protocol === undefined) return undefined;
  try {
    return JSON.parse(Buffer.from(protocol.slice('header-'.length), 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
  } catch {
    return undefined;
  }
}

/** A data message in the specification's shape for the given markets. */
export function dataFrame(
  ...markets: { symbol: string; buy?: unknown[]; sell?: unknown[]; time?: string }[]
): Record<string, unknown> {
  return {
    channel: 'orderbook',
    data: markets.map((m) => ({
      symbol: m.symbol,
      buy: m.buy ?? [],
      sell: m.sell ?? [],
      time: m.time ?? '2026-03-02T09:00:00.000Z',
    })),
  };
}
