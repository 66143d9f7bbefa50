/**
 * Decodes one text frame of the venue's WebSocket (AppSync Events). Control frames are told apart by `type`:
 * `connection_ack` (with `connectionTimeoutMs`), `connection_error`, `ka`, `subscribe_success`,
 * `subscribe_error`, `unsubscribe_success`, `unsubscribe_error` and `error`; the failures carry an `errors`
 * array of `{errorType, message}` (AppSync's GraphQL flavour nests it under `payload`, also read). Events
 * arrive as `{type: 'data', id, event}` where `event` is the specification's data message
 * (`{channel, data: [...]}`) as a JSON string; a bare data message (the specification's own form) is read too.
 * A message of the `ticker` channel (by its `channel`, or by the channel of the subscription its id names) is
 * decoded as tickers (ticker.ts) rather than books.
 *
 * Data messages are checked by hand, not by zod, because this runs for every market update (see
 * test/bench/market-data.bench.ts). Level prices and quantities are JSON numbers in the specification and the
 * documentation, decimal strings in the venue SDK's model: both are read, numbers through their source text
 * (payload/json.ts) so no digit is lost. A bad market inside a message is set aside and the message's other
 * markets still apply; a frame that is not JSON or not a known shape is an error.
 */
import { parseVenueJson } from '../payload/json.ts';
import { decodeSide } from '../payload/price-level.ts';
import { fieldError, malformedPayload, problemsOf, type PayloadProblem } from '../payload/problems.ts';
import type { PriceLevel } from './book.ts';
import { decodeTicker, isTickerChannel, type TickerData } from './ticker.ts';

export const WS_SOURCE = 'ws';

export interface MarketUpdate {
  readonly symbol: string;
  readonly buy: PriceLevel[];
  readonly sell: PriceLevel[];
  readonly time: string;
}

/** One entry of an `errors` array. */
export interface ProtocolError {
  readonly errorType?: string;
  readonly message?: string;
  readonly errorCode?: number;
}

/** A market of a data message that could not be read, set aside with what was wrong. */
export interface Rejected {
  readonly index: number;
  readonly symbol?: string;
  readonly problems: PayloadProblem[];
}

export type MarketDataMessage =
  | {
      readonly type: 'data';
      /** The subscription the event belongs to (absent for a bare data message). */
      readonly id?: string;
      readonly channel: string;
      readonly markets: MarketUpdate[];
      readonly rejected: Rejected[];
    }
  | {
      /** A data message of the `ticker` channel. */
      readonly type: 'ticker';
      readonly id?: string;
      readonly tickers: TickerData[];
      readonly rejected: Rejected[];
    }
  | { readonly type: 'connection_ack'; readonly connectionTimeoutMs?: number }
  | { readonly type: 'ka' }
  | { readonly type: 'subscribe_success' | 'unsubscribe_success'; readonly id: string }
  | {
      readonly type: 'connection_error' | 'subscribe_error' | 'unsubscribe_error' | 'error';
      readonly id?: string;
      readonly errors: ProtocolError[];
    }
  | { readonly type: 'other'; readonly name: string };

function decodeMarket(raw: unknown, i: number): MarketUpdate {
  const at = `data.${i}`;
  if (raw === null || typeof raw !== 'object') throw fieldError(WS_SOURCE, at, raw, 'expected a market object');
  const m = raw as Record<string, unknown>;
  if (typeof m.symbol !== 'string' || m.symbol === '' || m.symbol.length > 255) {
    throw fieldError(WS_SOURCE, `${at}.symbol`, m.symbol, 'expected a market symbol');
  }
  if (typeof m.time !== 'string' || Number.isNaN(Date.parse(m.time))) {
    throw fieldError(WS_SOURCE, `${at}.time`, m.time, 'expected an ISO 8601 time');
  }
  return {
    symbol: m.symbol,
    buy: decodeSide(m.buy, 'buy', WS_SOURCE, `${at}.buy`),
    sell: decodeSide(m.sell, 'sell', WS_SOURCE, `${at}.sell`),
    time: m.time,
  };
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function parseJsonObject(text: string, field: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseVenueJson(text);
  } catch (e) {
    throw malformedPayload(
      WS_SOURCE,
      [{ field, value: text.slice(0, 200), message: `${field === '(root)' ? 'frame' : field} is not JSON` }],
      e,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw fieldError(WS_SOURCE, field, value, 'expected an object');
  return value as Record<string, unknown>;
}

/** The `errors` array of a failure frame (top level, or under `payload`), each entry kept to its known fields. */
function errorsOf(f: Record<string, unknown>): ProtocolError[] {
  const payload =
    f.payload !== null && typeof f.payload === 'object' ? (f.payload as Record<string, unknown>) : undefined;
  const raw = Array.isArray(f.errors) ? f.errors : Array.isArray(payload?.errors) ? payload.errors : [];
  const errors = raw.map((e: unknown): ProtocolError => {
    if (e === null || typeof e !== 'object') return { message: String(e) };
    const r = e as Record<string, unknown>;
    const errorType = optionalString(r.errorType);
    const message = optionalString(r.message);
    const errorCode = typeof r.errorCode === 'number' ? r.errorCode : undefined;
    return {
      ...(errorType === undefined ? {} : { errorType }),
      ...(message === undefined ? {} : { message }),
      ...(errorCode === undefined ? {} : { errorCode }),
    };
  });
  // A failure without an errors array still says something: keep a top-level message or code.
  if (errors.length === 0) {
    const message = optionalString(f.message) ?? optionalString(f.error) ?? optionalString(f.reason);
    const errorType = optionalString(f.code) ?? optionalString(f.errorType);
    if (message !== undefined || errorType !== undefined)
      errors.push({ ...(errorType === undefined ? {} : { errorType }), ...(message === undefined ? {} : { message }) });
  }
  return errors;
}

/** `UnauthorizedException: You are not authorized...; ...` for logs and error messages. */
export function describeErrors(errors: readonly ProtocolError[]): string {
  if (errors.length === 0) return 'no detail given';
  return errors
    .map((e) => [e.errorType, e.message].filter((x) => x !== undefined).join(': ') || `code ${e.errorCode ?? '?'}`)
    .join('; ');
}

/** Decodes each market of `data`, setting a bad one aside (by index, with its symbol when it has one). */
function eachMarket<T>(data: unknown[], decode: (raw: unknown, i: number) => T): { ok: T[]; rejected: Rejected[] } {
  const ok: T[] = [];
  const rejected: Rejected[] = [];
  data.forEach((raw: unknown, index: number) => {
    try {
      ok.push(decode(raw, index));
    } catch (e) {
      const symbol = optionalString((raw as { symbol?: unknown } | null)?.symbol);
      rejected.push({ index, ...(symbol === undefined ? {} : { symbol }), problems: problemsOf(e) });
    }
  });
  return { ok, rejected };
}

function decodeData(f: Record<string, unknown>, id: string | undefined, subscribed?: string): MarketDataMessage {
  if (!Array.isArray(f.data))
    throw fieldError(WS_SOURCE, 'data', f.data, 'expected an array of markets (or a message type)');
  const channel = optionalString(f.channel);
  const withId = id === undefined ? {} : { id };
  if (isTickerChannel(channel ?? subscribed)) {
    const { ok, rejected } = eachMarket(f.data, (raw, i) => decodeTicker(raw, i, WS_SOURCE));
    return { type: 'ticker', ...withId, tickers: ok, rejected };
  }
  const { ok, rejected } = eachMarket(f.data, decodeMarket);
  return { type: 'data', ...withId, channel: channel ?? '', markets: ok, rejected };
}

function decodeEnvelope(f: Record<string, unknown>, channelOf: ChannelOf): MarketDataMessage {
  const id = optionalString(f.id);
  const subscribed = id === undefined ? undefined : channelOf(id);
  const event = f.event;
  if (typeof event === 'string') return decodeData(parseJsonObject(event, 'event'), id, subscribed);
  if (event !== null && typeof event === 'object' && !Array.isArray(event))
    return decodeData(event as Record<string, unknown>, id, subscribed);
  if (Array.isArray(f.data)) return decodeData(f, id, subscribed);
  throw fieldError(WS_SOURCE, 'event', event, 'expected the event as a JSON string');
}

/** The channel of a subscription id, when the caller knows it: an event without `channel` is read as that channel's. */
export type ChannelOf = (id: string) => string | undefined;

export function decodeMarketDataMessage(text: string, channelOf: ChannelOf = () => undefined): MarketDataMessage {
  const f = parseJsonObject(text, '(root)');
  if (typeof f.type !== 'string') return decodeData(f, undefined);
  switch (f.type) {
    case 'data':
      return decodeEnvelope(f, channelOf);
    case 'ka':
      return { type: 'ka' };
    case 'connection_ack': {
      const t =
        f.connectionTimeoutMs ?? (f.payload as { connectionTimeoutMs?: unknown } | undefined)?.connectionTimeoutMs;
      return typeof t === 'number' && Number.isSafeInteger(t) && t > 0
        ? { type: 'connection_ack', connectionTimeoutMs: t }
        : { type: 'connection_ack' };
    }
    case 'subscribe_success':
    case 'unsubscribe_success':
      if (typeof f.id !== 'string') throw fieldError(WS_SOURCE, 'id', f.id, 'expected the id of the subscription');
      return { type: f.type, id: f.id };
    case 'connection_error':
    case 'subscribe_error':
    case 'unsubscribe_error':
    case 'error':
    case 'subscribe_failure': {
      const id = optionalString(f.id);
      const type = f.type === 'subscribe_failure' ? 'subscribe_error' : f.type;
      return { type, ...(id === undefined ? {} : { id }), errors: errorsOf(f) };
    }
    default:
      return Array.isArray(f.data) ? decodeData(f, optionalString(f.id)) : { type: 'other', name: f.type };
  }
}
