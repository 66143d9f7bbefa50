/**
 * A real WebSocket server on a free loopback port standing in for the venue's `orderbook` channel. It
 * records every client message, answers subscribes through a replaceable policy (acknowledge by default),
 * pushes data frames on demand and can drop every connection, as the venue might.
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export type SubscribeAnswer = (message: Record<string, unknown>) => Record<string, unknown> | string | undefined;

export const acknowledge: SubscribeAnswer = (m) => ({ id: m.id, type: 'subscribe_success' });

export interface Received {
  readonly connection: number;
  readonly message: Record<string, unknown>;
}

export class FakeWsVenue {
  readonly received: Received[] = [];
  /** How a subscribe is answered; `undefined` answers nothing. */
  answer: SubscribeAnswer = acknowledge;
  /** Accept the TCP connection, then cut it at once (a venue that keeps failing). */
  rejectConnections = false;
  readonly #server: WebSocketServer;
  readonly #sockets = new Set<WebSocket>();
  #connections = 0;
  #waiters: (() => void)[] = [];

  private constructor(server: WebSocketServer) {
    this.#server = server;
    server.on('connection', (socket) => {
      const connection = ++this.#connections;
      if (this.rejectConnections) {
        socket.terminate();
        this.#wake();
        return;
      }
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as Record<string, unknown>;
        this.received.push({ connection, message });
        if (message.type === 'subscribe') {
          const reply = this.answer(message);
          if (reply !== undefined) socket.send(typeof reply === 'string' ? reply : JSON.stringify(reply));
        }
        this.#wake();
      });
      this.#wake();
    });
  }

  /** `autoPong: false` makes the server ignore pings, like a half-open connection. */
  static async start(options: { readonly autoPong?: boolean } = {}): Promise<FakeWsVenue> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/ws', autoPong: options.autoPong ?? true });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    return new FakeWsVenue(server);
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.#server.address() as AddressInfo).port}/ws`;
  }

  /** Connections accepted so far. */
  get connections(): number {
    return this.#connections;
  }

  get openSockets(): number {
    return this.#sockets.size;
  }

  subscribes(connection?: number): Record<string, unknown>[] {
    return this.received.filter((r) => r.message.type === 'subscribe' && (connection === undefined || r.connection === connection)).map((r) => r.message);
  }

  /** Sends a frame (object as JSON, or raw text) to every open connection. */
  send(frame: Record<string, unknown> | string): void {
    const text = typeof frame === 'string' ? frame : JSON.stringify(frame);
    for (const s of this.#sockets) s.send(text);
  }

  /** Cuts every connection without a closing handshake. */
  drop(): void {
    for (const s of this.#sockets) s.terminate();
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
    for (const s of this.#sockets) s.terminate();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}

/** A spec-shaped data frame for the given markets. */
export function dataFrame(
  ...markets: { symbol: string; buy?: unknown[]; sell?: unknown[]; time?: string }[]
): Record<string, unknown> {
  return {
    channel: 'orderbook',
    data: markets.map((m) => ({ symbol: m.symbol, buy: m.buy ?? [], sell: m.sell ?? [], time: m.time ?? '2026-03-02T09:00:00.000Z' })),
  };
}
