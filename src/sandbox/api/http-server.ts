/**
 * The venue API's one port: REST under `/api/v1`, the AppSync Events WebSocket at `/event/realtime`
 * (upgrade), and the sandbox's control endpoints under `/sandbox/` (handled by the composition, never under
 * `/api/v1`). Every error is an AppError body; a handler that throws something unexpected answers 500, never
 * crashes the server. Injected REST faults (429, 5xx, slow answers) apply to `/api/v1` only. With `tls` the
 * port speaks HTTPS and `wss://` (clients that insist on TLS, such as AWS's own Events client).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { LOOPBACK } from '../net.ts';
import type { RestFaults } from './faults.ts';
import { appErrorBody, HttpError } from './http-error.ts';
import { routeApi, type ApiContext } from './rest-routes.ts';
import type { TokenIssuer } from './token-endpoint.ts';
import type { MarketDataServer } from './ws-server.ts';

export const API_PREFIX = '/api/v1';
export const CONTROL_PREFIX = '/sandbox';
export const WS_PATH = '/event/realtime';
export const TOKEN_PATH = '/oauth2/token';
const MAX_BODY = 64 * 1024;

export interface ControlRequest {
  readonly method: string;
  /** Path below `/sandbox`, e.g. `/clock/advance`. */
  readonly path: string;
  readonly params: URLSearchParams;
  /** Parsed JSON body; undefined when there is none. */
  readonly body: unknown;
}

export type ControlHandler = (req: ControlRequest) => Promise<unknown>;

export interface ApiServerOptions {
  readonly port: number;
  readonly context: ApiContext;
  readonly faults: RestFaults;
  readonly ws: MarketDataServer;
  /** Answers `POST /oauth2/token`; without it the path is a 404. */
  readonly tokens?: TokenIssuer;
  readonly control?: ControlHandler;
  /** Reports handler failures that became a 500. */
  readonly onError?: (error: unknown, path: string) => void;
  /** PEM key and certificate: serve HTTPS and wss:// instead of HTTP and ws://. */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer };
}

export interface ApiServer {
  readonly port: number;
  readonly origin: string;
  close(): Promise<void>;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) reject(new HttpError(413, `request body is larger than ${MAX_BODY} bytes`));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'request body is not JSON');
  }
}

/** Answers a failed request: an HttpError as its AppError, anything else as a 500 reported to `onError`. */
function fail(options: ApiServerOptions, res: ServerResponse, error: unknown, path: string): void {
  if (error instanceof HttpError) {
    const body = appErrorBody(error.status, error.message, path, options.context.nowMs(), error.details);
    return sendJson(res, error.status, body, error.headers);
  }
  options.onError?.(error, path);
  const message = error instanceof Error ? error.message : String(error);
  sendJson(res, 500, appErrorBody(500, 'internal error', path, options.context.nowMs(), [message]));
}

/** `/api/v1/...`: the injected REST faults first (delay, then status), then the REST routes. */
async function handleApi(
  options: ApiServerOptions,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const below = url.pathname.slice(API_PREFIX.length) || '/';
  const fault = options.faults.decide(below);
  if (fault.delayMs > 0) await new Promise((r) => setTimeout(r, fault.delayMs));
  if (fault.status !== undefined)
    throw new HttpError(fault.status, `injected fault: HTTP ${fault.status}`, [], fault.headers);
  const body = routeApi(
    { method: req.method ?? 'GET', path: below, params: url.searchParams, authorization: req.headers.authorization },
    options.context,
  );
  sendJson(res, 200, body);
}

/** `POST /oauth2/token`. */
async function handleToken(tokens: TokenIssuer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST')
    throw new HttpError(405, `${req.method} is not allowed; the token endpoint takes POST`, [], { allow: 'POST' });
  const answer = tokens.grant(req.headers.authorization, req.headers['content-type'], await readBody(req));
  sendJson(res, answer.status, answer.body, answer.headers);
}

/** `/sandbox/...`: the control endpoints, with the JSON body parsed; no answer is `{ok: true}`. */
async function handleControl(
  control: ControlHandler,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const body = parseJsonBody(await readBody(req));
  const answer = await control({
    method: req.method ?? 'GET',
    path: url.pathname.slice(CONTROL_PREFIX.length) || '/',
    params: url.searchParams,
    body,
  });
  sendJson(res, 200, answer ?? { ok: true });
}

function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

async function handle(options: ApiServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sandbox');
  const path = url.pathname;
  try {
    if (isUnder(path, API_PREFIX)) return await handleApi(options, req, res, url);
    if (path === TOKEN_PATH && options.tokens !== undefined) return await handleToken(options.tokens, req, res);
    if (isUnder(path, CONTROL_PREFIX) && options.control !== undefined)
      return await handleControl(options.control, req, res, url);
    if (path === '/' && req.method === 'GET')
      return sendJson(res, 200, {
        rest: API_PREFIX,
        websocket: WS_PATH,
        token: TOKEN_PATH,
        control: `${CONTROL_PREFIX}/`,
      });
    throw new HttpError(404, `No resource ${path}`);
  } catch (e) {
    fail(options, res, e, path);
  }
}

/** WebSocket upgrades: the market data server at `/event/realtime`, a 404 anywhere else. */
function handleUpgrade(ws: MarketDataServer): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://sandbox').pathname;
    if (path !== WS_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    ws.handleUpgrade(req, socket, head);
  };
}

export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(options, req, res).catch((e: unknown) => fail(options, res, e, req.url ?? '/'));
  };
  const tls = options.tls;
  const server: Server =
    tls === undefined ? createServer(listener) : createTlsServer({ key: tls.key, cert: tls.cert }, listener);
  server.on('upgrade', handleUpgrade(options.ws));
  server.on('clientError', (_e, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, LOOPBACK, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `${tls === undefined ? 'http' : 'https'}://${LOOPBACK}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
