/** A WebSocket test client that keeps every message and waits for the ones a test expects. */
import { WebSocket } from 'ws';
import type { Json } from './sandbox-clients.ts';

export class WsProbe {
  readonly messages: { readonly at: number; readonly body: Json }[] = [];
  closed = false;
  readonly #ws: WebSocket;
  #waiters: (() => void)[] = [];

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.on('message', (data) => {
      this.messages.push({ at: performance.now(), body: JSON.parse(data.toString()) as Json });
      this.#wake();
    });
    ws.on('close', () => {
      this.closed = true;
      this.#wake();
    });
  }

  static open(url: string): Promise<WsProbe> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(new WsProbe(ws)));
      ws.once('error', reject);
    });
  }

  send(body: unknown): void {
    this.#ws.send(typeof body === 'string' ? body : JSON.stringify(body));
  }

  /** Data messages received after position `from`. */
  data(from = 0): Json[] {
    return this.messages.slice(from).filter((m) => m.body.data !== undefined).map((m) => m.body);
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
