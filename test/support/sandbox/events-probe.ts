/**
 * A WebSocket test client of the sandbox's AppSync Events endpoint that keeps every message and waits for the
 * ones a test expects. `open` performs the handshake as AppSync clients do (the `aws-appsync-event-ws` and
 * `header-<authorization>` subprotocols, then `connection_init` and the `connection_ack`); `raw` opens with
 * whatever subprotocols a test chooses and sends nothing. Data events are kept decoded:
 * `{type: 'data', id, channel, data}` with the event's own fields spread in.
 */
import { WebSocket } from 'ws';
import {
  connectionInitMessage,
  connectionProtocols,
  subscribeMessage,
  type WsAuthorization,
} from '../../../src/venue/market-data/subscribe-messages.ts';

// oxlint-disable-next-line typescript/no-explicit-any -- test code reads arbitrary JSON
export type Json = any;

export interface ProbeAuth extends WsAuthorization {
  /** The date the authorization carries, epoch ms (the sandbox clock). */
  readonly nowMs: number;
}

export class EventsProbe {
  readonly messages: { readonly at: number; readonly body: Json }[] = [];
  closed = false;
  closeCode: number | undefined;
  readonly #ws: WebSocket;
  readonly #auth: ProbeAuth | undefined;
  #waiters: (() => void)[] = [];

  private constructor(ws: WebSocket, auth: ProbeAuth | undefined) {
    this.#ws = ws;
    this.#auth = auth;
    ws.on('message', (data) => {
      const body = JSON.parse(data.toString()) as Json;
      const decoded =
        body.type === 'data' && typeof body.event === 'string'
          ? { ...(JSON.parse(body.event) as Json), type: 'data', id: body.id }
          : body;
      this.messages.push({ at: performance.now(), body: decoded });
      this.#wake();
    });
    ws.on('close', (code) => {
      this.closed = true;
      this.closeCode = code;
      this.#wake();
    });
  }

  /** Connects as an AppSync client and waits for `connection_ack`. */
  static async open(url: string, auth: ProbeAuth): Promise<EventsProbe> {
    const probe = await EventsProbe.raw(url, connectionProtocols(auth, auth.nowMs), auth);
    probe.send(connectionInitMessage());
    const ack = await probe.waitFor(
      (m) => m.type === 'connection_ack' || m.type === 'connection_error',
      'connection_ack',
    );
    if (ack.type !== 'connection_ack') throw new Error(`connection refused: ${JSON.stringify(ack)}`);
    return probe;
  }

  /** Opens with the given subprotocols; rejects with the handshake failure (an HTTP status, a missing subprotocol). */
  static raw(url: string, protocols: readonly string[], auth?: ProbeAuth): Promise<EventsProbe> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, [...protocols]);
      ws.once('open', () => resolve(new EventsProbe(ws, auth)));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () =>
          reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body })),
        );
      });
      ws.once('error', reject);
    });
  }

  send(body: unknown): void {
    this.#ws.send(typeof body === 'string' ? body : JSON.stringify(body));
  }

  /** Subscribes with the authorization the probe was opened with (or another API key / date offset). */
  subscribe(id: string, channel: string, over: { apiKey?: string; offsetMs?: number } = {}): void {
    const auth = this.#auth;
    if (auth === undefined) throw new Error('probe opened without an authorization');
    this.send(
      subscribeMessage(id, channel, { ...auth, apiKey: over.apiKey ?? auth.apiKey }, auth.nowMs + (over.offsetMs ?? 0)),
    );
  }

  /** Data events received after position `from`. */
  data(from = 0): Json[] {
    return this.messages
      .slice(from)
      .filter((m) => m.body.type === 'data')
      .map((m) => m.body);
  }

  /** The first message after position `from` that satisfies the predicate. */
  waitFor(predicate: (m: Json) => boolean, what: string, from = 0, timeoutMs = 15_000): Promise<Json> {
    return new Promise((resolve, reject) => {
      const guard = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      const check = () => {
        const hit = this.messages.slice(from).find((m) => predicate(m.body));
        if (hit === undefined) return this.#waiters.push(check);
        clearTimeout(guard);
        resolve(hit.body);
      };
      check();
    });
  }

  untilClosed(timeoutMs = 15_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const guard = setTimeout(() => reject(new Error('timed out waiting for the close')), timeoutMs);
      const check = () => {
        if (!this.closed) return this.#waiters.push(check);
        clearTimeout(guard);
        resolve();
      };
      check();
    });
  }

  close(): void {
    this.#ws.terminate();
  }

  #wake(): void {
    const w = this.#waiters;
    this.#waiters = [];
    for (const f of w) f();
  }
}
