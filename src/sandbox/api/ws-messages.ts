/**
 * The `orderbook` channel's messages. Subscribe messages are checked here: the channel (`orderbook/*` or
 * `orderbook/bytradingpair/<symbol>`, a leading slash tolerated), and the `authorization` object: the API
 * key, and the vendor date field (compact ISO 8601 basic form `YYYYMMDDTHHMMSSZ`) within a tolerance of the
 * sandbox clock; `host` must be a non-empty string but is not compared (clients reach the sandbox under
 * several names). Data messages are written by hand so that level prices and quantities are JSON numbers
 * with exactly the digits of their decimal value (JSON.stringify of a double could change them).
 */

export interface WsAuthConfig {
  readonly apiKey: string;
  /** The vendor date field, `x-venue-date` by default. */
  readonly dateHeader: string;
  readonly toleranceMs: number;
}

export type ChannelTarget = { readonly kind: 'all' } | { readonly kind: 'pair'; readonly symbol: string };

export type SubscribeCheck =
  | { readonly ok: true; readonly id: string; readonly channel: string; readonly target: ChannelTarget }
  | { readonly ok: false; readonly id?: string; readonly channel?: string; readonly code: string; readonly message: string };

const COMPACT_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** Epoch ms of a compact ISO 8601 basic UTC time, or undefined. */
export function parseCompactUtc(text: string): number | undefined {
  const m = COMPACT_DATE.exec(text);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  // Refuses impossible dates that Date.UTC would roll over (Feb 30th, hour 25).
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || back.getUTCHours() !== h || back.getUTCMinutes() !== mi) return undefined;
  return ms;
}

export function parseChannel(channel: string): ChannelTarget | undefined {
  const c = channel.startsWith('/') ? channel.slice(1) : channel;
  if (c === 'orderbook/*') return { kind: 'all' };
  const m = /^orderbook\/bytradingpair\/([^/]{1,255})$/.exec(c);
  return m === null ? undefined : { kind: 'pair', symbol: m[1] as string };
}

function fail(code: string, message: string, id?: string, channel?: string): SubscribeCheck {
  return { ok: false, code, message, ...(id === undefined ? {} : { id }), ...(channel === undefined ? {} : { channel }) };
}

export function checkSubscribe(msg: Record<string, unknown>, cfg: WsAuthConfig, nowMs: number, knownSymbol: (s: string) => boolean): SubscribeCheck {
  const id = typeof msg.id === 'string' && msg.id !== '' && msg.id.length <= 255 ? msg.id : undefined;
  const channel = typeof msg.channel === 'string' ? msg.channel : undefined;
  if (id === undefined) return fail('BAD_REQUEST', 'id must be a non-empty string (a UUID chosen by the client)', undefined, channel);
  if (channel === undefined) return fail('BAD_REQUEST', 'channel must be a string', id);
  const auth = msg.authorization;
  if (auth === null || typeof auth !== 'object' || Array.isArray(auth)) return fail('UNAUTHORIZED', 'authorization object is missing', id, channel);
  const a = auth as Record<string, unknown>;
  if (a['x-api-key'] !== cfg.apiKey) return fail('UNAUTHORIZED', 'x-api-key is missing or not valid', id, channel);
  if (typeof a.host !== 'string' || a.host === '') return fail('UNAUTHORIZED', 'authorization.host must be a non-empty string', id, channel);
  const dateText = a[cfg.dateHeader];
  const date = typeof dateText === 'string' ? parseCompactUtc(dateText) : undefined;
  if (date === undefined) return fail('UNAUTHORIZED', `${cfg.dateHeader} must be a UTC time in the form YYYYMMDDTHHMMSSZ`, id, channel);
  if (Math.abs(date - nowMs) > cfg.toleranceMs) {
    return fail('UNAUTHORIZED', `${cfg.dateHeader} ${dateText as string} is more than ${Math.round(cfg.toleranceMs / 1000)} s away from the venue time ${new Date(nowMs).toISOString()}`, id, channel);
  }
  const target = parseChannel(channel);
  if (target === undefined) return fail('INVALID_CHANNEL', `unknown channel ${JSON.stringify(channel)}; use orderbook/* or orderbook/bytradingpair/<symbol>`, id, channel);
  if (target.kind === 'pair' && !knownSymbol(target.symbol)) return fail('INVALID_CHANNEL', `no market ${target.symbol}`, id, channel);
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

/** `{"channel":"orderbook","data":[{symbol, buy, sell, time}...]}` with numeric levels. */
export function dataMessage(markets: readonly WsMarket[]): string {
  const data = markets.map((m) => `{"symbol":${JSON.stringify(m.symbol)},"buy":${levels(m.buy)},"sell":${levels(m.sell)},"time":${JSON.stringify(m.time)}}`);
  return `{"channel":"orderbook","data":[${data.join(',')}]}`;
}
