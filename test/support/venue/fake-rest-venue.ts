/**
 * A real HTTP server on a free loopback port that answers like the venue's REST API under `/api/v1`:
 * routes return spec-shaped JSON, replies can be queued per path (a 429 storm, a 503 with Retry-After,
 * a reply that never comes), and every request is recorded with its headers.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  /** Path below `/api/v1`, without the query. */
  readonly path: string;
  readonly query: Record<string, string>;
  readonly headers: IncomingHttpHeaders;
}

export interface Reply {
  readonly status?: number;
  /** JSON body; ignored when `text` is given. */
  readonly body?: unknown;
  /** Raw body text. */
  readonly text?: string;
  readonly headers?: Record<string, string>;
  /** Never answer (until the server closes). */
  readonly hang?: boolean;
}

export type Handler = Reply | ((req: RecordedRequest) => Reply);

export const API_PREFIX = '/api/v1';

export function appError(status: number, code: string, message: string): Reply {
  return { status, body: { code, message, status, path: '/api/v1', timestamp: '2026-03-02T09:00:00Z', details: [] } };
}

export class FakeRestVenue {
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #routes = new Map<string, Handler>();
  readonly #queues = new Map<string, Reply[]>();
  readonly #port: number;
  #bearer: ((token: string) => boolean) | undefined;
  #waiters: (() => void)[] = [];

  private constructor(server: Server, port: number) {
    this.#server = server;
    this.#port = port;
  }

  static async start(): Promise<FakeRestVenue> {
    let venue: FakeRestVenue | undefined;
    const server = createServer((req, res) => venue?.handle(req.method ?? 'GET', req.url ?? '/', req.headers, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    venue = new FakeRestVenue(server, (server.address() as AddressInfo).port);
    return venue;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  get baseUrl(): string {
    return `${this.origin}${API_PREFIX}`;
  }

  /** The standing answer for a path (below `/api/v1`). */
  route(path: string, handler: Handler): this {
    this.#routes.set(path, handler);
    return this;
  }

  /** One-shot answers for a path, used in order before the standing one. */
  queue(path: string, ...replies: Reply[]): this {
    this.#queues.set(path, [...(this.#queues.get(path) ?? []), ...replies]);
    return this;
  }

  /** Participant and wallet endpoints answer 401 unless this bearer token (or one the predicate accepts) is sent. */
  requireBearer(token: string | ((token: string) => boolean)): this {
    this.#bearer = typeof token === 'string' ? (t) => t === token : token;
    return this;
  }

  /** Resolves once `count` requests have arrived, checked on every request (no polling). */
  waitForRequests(count: number, timeoutMs = 5_000): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const guard = setTimeout(() => reject(new Error(`timed out waiting for request ${count}`)), timeoutMs);
      const check = () => {
        if (this.requests.length < count) return this.#waiters.push(check);
        clearTimeout(guard);
        resolve();
      };
      this.#waiters.push(check);
    });
  }

  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  private handle(method: string, url: string, headers: IncomingHttpHeaders, res: ServerResponse): void {
    const parsed = new URL(url, this.origin);
    const path = parsed.pathname.startsWith(API_PREFIX) ? parsed.pathname.slice(API_PREFIX.length) : parsed.pathname;
    const req: RecordedRequest = { method, path, query: Object.fromEntries(parsed.searchParams), headers };
    this.requests.push(req);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
    const protectedPath = /^\/(participants|wallets)\//.test(path);
    const bearer = /^Bearer (\S+)$/.exec(headers.authorization ?? '')?.[1];
    if (protectedPath && this.#bearer !== undefined && (bearer === undefined || !this.#bearer(bearer))) {
      return this.reply(res, appError(401, 'UNAUTHORIZED', 'Full authentication is required'));
    }
    const queued = this.#queues.get(path)?.shift();
    const handler = queued ?? this.#routes.get(path);
    const reply =
      handler === undefined
        ? appError(404, 'NOT_FOUND', `No resource ${path}`)
        : typeof handler === 'function'
          ? handler(req)
          : handler;
    this.reply(res, reply);
  }

  private reply(res: ServerResponse, reply: Reply): void {
    if (reply.hang === true) return;
    const text = reply.text ?? JSON.stringify(reply.body ?? {});
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(text);
  }
}
