/**
 * The messages of the sandbox's market-data WebSocket, which speaks AWS AppSync's Events protocol like the
 * venue. Checked here: the authorization a connection carries in its `header-<base64url JSON>` subprotocol
 * and each `subscribe` carries in `authorization` (the API key, and the date field in compact ISO 8601
 * `YYYYMMDDTHHMMSSZ` within a tolerance of the sandbox clock; `host` must be a non-empty string but is not
 * compared, since clients reach the sandbox under several names), and the channel (`orderbook/*`,
 * `orderbook/bytradingpair/<symbol>` and the same two of `ticker`, a leading slash tolerated). Failures are AppSync's
 * `errors: [{errorType, message}]`. Data messages are written by hand so that level prices and quantities are
 * JSON numbers with exactly the digits of their decimal value (JSON.stringify of a double could change them),
 * then carried as the `event` string of `{type: 'data', id, event}`.
 */
import type { Duplex } from 'node:stream';

export const EVENT_WS_PROTOCOL = 'aws-appsync-event-ws';
export const UNAUTHORIZED = 'UnauthorizedException';
export const BAD_REQUEST = 'BadRequestException';
/** AppSync's wording for a refused authorization. */
export const NOT_AUTHORIZED_MESSAGE = 'You are not authorized to make this call.';

export interface WsAuthConfig {
  readonly apiKey: string;
  /** The date field, `x-amz-date` by default. */
  readonly dateHeader: string;
  readonly toleranceMs: number;
}

export interface EventError {
  readonly errorType: string;
  readonly message: string;
}

/** The venue's two public channels: the order book (the specification's) and the ticker (its documentation's). */
export type ChannelName = 'orderbook' | 'ticker';

export type ChannelTarget =
  | { readonly channel: ChannelName; readonly kind: 'all' }
  | { readonly channel: ChannelName; readonly kind: 'pair'; readonly symbol: string };

export type SubscribeCheck =
  | { readonly ok: true; readonly id: string; readonly channel: string; readonly target: ChannelTarget }
  | { readonly ok: false; readonly id?: string; readonly channel?: string; readonly error: EventError };

const COMPACT_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** Epoch ms of a compact ISO 8601 basic UTC time, or undefined. */
export function parseCompactUtc(text: string): number | undefined {
  const m = COMPACT_DATE.exec(text);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  // Refuses impossible dates that Date.UTC would roll over (Feb 30th, hour 25).
  if (
    back.getUTCMonth() !== mo - 1 ||
    back.getUTCDate() !== d ||
    back.getUTCHours() !== h ||
    back.getUTCMinutes() !== mi
  )
    return undefined;
  return ms;
}

/** `orderbook/*`, `orderbook/bytradingpair/<symbol>`, `ticker/*` or `ticker/bytradingpair/<symbol>`. */
export function parseChannel(channel: string): ChannelTarget | undefined {
  const c = channel.startsWith('/') ? channel.slice(1) : channel;
  const m = /^(orderbook|ticker)\/(?:(\*)|bytradingpair\/([^/]{1,255}))$/.exec(c);
  if (m === null) return undefined;
  const name = m[1] as ChannelName;
  return m[2] === '*' ? { channel: name, kind: 'all' } : { channel: name, kind: 'pair', symbol: m[3] as string };
}

/** The subprotocols a handshake offered (`Sec-WebSocket-Protocol`, comma separated). */
export function offeredProtocols(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** The authorization object of a `header-<base64url JSON>` subprotocol; undefined when absent or unreadable. */
export function headerAuthorization(protocols: readonly string[]): Record<string, unknown> | undefined {
  const header = protocols.find((p) => p.startsWith('header-'));
  if (header === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(header.slice('header-'.length), 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Checks an authorization object (connection header or subscribe): undefined when it passes. */
export function checkAuthorization(auth: unknown, cfg: WsAuthConfig, nowMs: number): EventError | undefined {
  if (auth === null || typeof auth !== 'object' || Array.isArray(auth))
    return { errorType: UNAUTHORIZED, message: 'authorization is missing' };
  const a = auth as Record<string, unknown>;
  if (a['x-api-key'] !== cfg.apiKey) return { errorType: UNAUTHORIZED, message: NOT_AUTHORIZED_MESSAGE };
  if (typeof a.host !== 'string' || a.host === '')
    return { errorType: UNAUTHORIZED, message: 'authorization.host must be a non-empty string' };
  const dateText = a[cfg.dateHeader];
  const date = typeof dateText === 'string' ? parseCompactUtc(dateText) : undefined;
  if (date === undefined)
    return { errorType: UNAUTHORIZED, message: `${cfg.dateHeader} must be a UTC time in the form YYYYMMDDTHHMMSSZ` };
  if (Math.abs(date - nowMs) > cfg.toleranceMs) {
    return {
      errorType: UNAUTHORIZED,
      message: `${cfg.dateHeader} ${dateText as string} is more than ${Math.round(cfg.toleranceMs / 1000)} s away from the venue time ${new Date(nowMs).toISOString()}`,
    };
  }
  return undefined;
}

function fail(errorType: string, message: string, id?: string, channel?: string): SubscribeCheck {
  return {
    ok: false,
    error: { errorType, message },
    ...(id === undefined ? {} : { id }),
    ...(channel === undefined ? {} : { channel }),
  };
}

export function checkSubscribe(
  msg: Record<string, unknown>,
  cfg: WsAuthConfig,
  nowMs: number,
  knownSymbol: (s: string) => boolean,
): SubscribeCheck {
  const id = typeof msg.id === 'string' && msg.id !== '' && msg.id.length <= 255 ? msg.id : undefined;
  const channel = typeof msg.channel === 'string' ? msg.channel : undefined;
  if (id === undefined)
    return fail(BAD_REQUEST, 'id must be a non-empty string (a UUID chosen by the client)', undefined, channel);
  if (channel === undefined) return fail(BAD_REQUEST, 'channel must be a string', id);
  const refused = checkAuthorization(msg.authorization, cfg, nowMs);
  if (refused !== undefined) return fail(refused.errorType, refused.message, id, channel);
  const target = parseChannel(channel);
  if (target === undefined)
    return fail(
      BAD_REQUEST,
      `Invalid Channel Format: ${JSON.stringify(channel)}; use orderbook/*, orderbook/bytradingpair/<symbol>, ticker/* or ticker/bytradingpair/<symbol>`,
      id,
      channel,
    );
  if (target.kind === 'pair' && !knownSymbol(target.symbol))
    return fail(BAD_REQUEST, `no market ${target.symbol}`, id, channel);
  return { ok: true, id, channel, target };
}

export interface WsLevel {
  /** Decimal texts (no exponent), written as JSON numbers. */
  readonly limit: string;
  readonly totalQuantity: string;
  readonly orderCount: number;
}

export interface WsMarket {
  readonly symbol: string;
  readonly buy: readonly WsLevel[];
  readonly sell: readonly WsLevel[];
  readonly time: string;
}

function levels(ls: readonly WsLevel[]): string {
  return `[${ls.map((l) => `{"limit":${l.limit},"totalQuantity":${l.totalQuantity},"orderCount":${l.orderCount}}`).join(',')}]`;
}

/** The specification's data message `{"channel":"orderbook","data":[{symbol, buy, sell, time}...]}` with numeric levels. */
export function dataMessage(markets: readonly WsMarket[]): string {
  const data = markets.map(
    (m) =>
      `{"symbol":${JSON.stringify(m.symbol)},"buy":${levels(m.buy)},"sell":${levels(m.sell)},"time":${JSON.stringify(m.time)}}`,
  );
  return `{"channel":"orderbook","data":[${data.join(',')}]}`;
}

/** An event of one subscription: `{"type":"data","id":...,"event":"<data message as a JSON string>"}`. */
export function dataEnvelope(id: string, event: string): string {
  return `{"type":"data","id":${JSON.stringify(id)},"event":${JSON.stringify(event)}}`;
}

/** A client message: a JSON object in a text frame; undefined for anything else (binary, not JSON, not an object). */
export function parseClientMessage(text: string | undefined): Record<string, unknown> | undefined {
  let message: unknown;
  try {
    message = text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
  return message === null || typeof message !== 'object' || Array.isArray(message)
    ? undefined
    : (message as Record<string, unknown>);
}

/** An error answer of `type` (`subscribe_error`, `error`, ...), with the client's message id when it gave one. */
export function errorReply(
  id: { readonly id?: string },
  type: string,
  errorType: string,
  message: string,
): Record<string, unknown> {
  return { ...id, type, errors: [{ errorType, message }] };
}

/** Refuses a WebSocket handshake with an HTTP status and AppSync's `{errors: [...]}` body. */
export function refuseUpgrade(socket: Duplex, status: 400 | 401, error: EventError): void {
  const body = JSON.stringify({ errors: [error] });
  const reason = status === 400 ? 'Bad Request' : 'Unauthorized';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
