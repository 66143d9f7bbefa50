/**
 * The telemetry HTTP endpoint: `/metrics` (Prometheus text of this bot's registry), `/healthz` (the process
 * answers) and `/readyz` (the bot says it can trade, through a callback). Started and stopped explicitly;
 * `close()` also ends keep-alive connections so a stop never hangs on an idle scraper.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.ts';

export const DEFAULT_TELEMETRY_PORT = 9464;
export const DEFAULT_TELEMETRY_HOST = '0.0.0.0';

export interface Readiness {
  readonly ready: boolean;
  /** Shown in the `/readyz` body, e.g. which market is stale. */
  readonly reason?: string;
}

export interface TelemetryServerOptions {
  readonly metrics: Metrics;
  /** Default 0.0.0.0 (as the bot config's `telemetry.metricsHost`), so a scraper on another host reaches it. */
  readonly host?: string;
  /** Default 9464; 0 lets the system pick (tests). */
  readonly port?: number;
  /** Readiness of the bot; a throwing or rejecting callback counts as not ready. Default: always ready. */
  readonly readiness?: () => boolean | Readiness | Promise<boolean | Readiness>;
  readonly logger?: Logger;
  /**
   * Further JSON routes (the obligation control endpoint): asked first for every request with its JSON body
   * (POST) and the caller's address; null passes the request on to the built-in routes.
   */
  readonly routes?: (req: {
    method: string;
    path: string;
    body: unknown;
    remoteAddress: string | undefined;
  }) => { status: number; body: unknown } | null;
}

export interface TelemetryServer {
  readonly host: string;
  readonly port: number;
  /** `http://host:port` (for 0.0.0.0, the loopback address). */
  readonly url: string;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(body);
}

async function readiness(options: TelemetryServerOptions): Promise<Readiness> {
  if (options.readiness === undefined) return { ready: true };
  try {
    const r = await options.readiness();
    return typeof r === 'boolean' ? { ready: r } : r;
  } catch (e) {
    return { ready: false, reason: `readiness check failed: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** A JSON request body of at most 64 KiB; undefined for none, an error for anything else. */
async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 65_536) throw new SyntaxError('body larger than 64 KiB');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

async function handle(req: IncomingMessage, res: ServerResponse, options: TelemetryServerOptions): Promise<void> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (options.routes !== undefined) {
    let body: unknown;
    try {
      body = req.method === 'POST' ? await jsonBody(req) : undefined;
    } catch (e) {
      return send(
        res,
        400,
        'application/json',
        `${JSON.stringify({ error: `malformed JSON body: ${(e as Error).message}` })}\n`,
      );
    }
    const answer = options.routes({ method: req.method ?? 'GET', path, body, remoteAddress: req.socket.remoteAddress });
    if (answer !== null)
      return send(
        res,
        answer.status,
        'application/json',
        `${JSON.stringify(answer.body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}\n`,
      );
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'method not allowed\n');
  switch (path) {
    case '/metrics':
      return send(res, 200, options.metrics.contentType, await options.metrics.text());
    case '/healthz':
      return send(res, 200, 'application/json', '{"status":"ok"}\n');
    case '/readyz': {
      const r = await readiness(options);
      const body = JSON.stringify({
        status: r.ready ? 'ready' : 'not ready',
        ...(r.reason === undefined ? {} : { reason: r.reason }),
      });
      return send(res, r.ready ? 200 : 503, 'application/json', `${body}\n`);
    }
    default:
      return send(res, 404, 'text/plain', 'not found\n');
  }
}

export function startTelemetryServer(options: TelemetryServerOptions): Promise<TelemetryServer> {
  const host = options.host ?? DEFAULT_TELEMETRY_HOST;
  const server = createServer((req, res) => {
    handle(req, res, options).catch((e: unknown) => {
      options.logger?.error({ err: e, url: req.url }, 'telemetry request failed');
      if (!res.headersSent) send(res, 500, 'text/plain', 'internal error\n');
      else res.destroy();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_TELEMETRY_PORT, host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const shownHost = host === '0.0.0.0' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
      options.logger?.info({ host, port }, 'telemetry server listening');
      resolve({
        host,
        port,
        url: `http://${shownHost}:${port}`,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((e) => (e === undefined ? done() : fail(e)));
            server.closeAllConnections();
          }),
      });
    });
  });
}
