/**
 * Query parameters of the venue API, checked strictly: a malformed value is a 400 AppError naming the
 * parameter and the value, never a guess. Unknown parameters are ignored, as an HTTP API usually does.
 */
import { badRequest } from './http-error.ts';

export const MAX_LEVEL_LIMIT = 1000;

/** A positive integer `limit` up to `max`; undefined when absent. */
export function parseLimit(params: URLSearchParams, name = 'limit', max = MAX_LEVEL_LIMIT): number | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  if (!/^[0-9]{1,10}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw badRequest(`${name} must be a whole number from 1 to ${max}, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

/** A non-negative integer (the ignored `limit` of `/tradingpairs`, which is an int64 there). */
export function parseNonNegativeInteger(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  if (!/^[0-9]{1,18}$/.test(raw))
    throw badRequest(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** `true` / `false` (any case); undefined when absent. */
export function parseBoolean(params: URLSearchParams, name: string): boolean | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  const v = raw.toLowerCase();
  if (v !== 'true' && v !== 'false') throw badRequest(`${name} must be true or false, got ${JSON.stringify(raw)}`);
  return v === 'true';
}

/** Epoch milliseconds (digits) or an ISO 8601 date-time; undefined when absent. */
export function parseInstant(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  const ms = /^[0-9]{1,16}$/.test(raw) ? Number(raw) : /^\d{4}-\d{2}-\d{2}T/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(ms))
    throw badRequest(`${name} must be epoch milliseconds or an ISO 8601 date-time, got ${JSON.stringify(raw)}`);
  return ms;
}

/** A unix timestamp in seconds (the venue SDK's `starting`) or an ISO 8601 date-time, as epoch ms; undefined when absent. */
export function parseUnixSeconds(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  const ms = /^[0-9]{1,11}$/.test(raw)
    ? Number(raw) * 1000
    : /^\d{4}-\d{2}-\d{2}T/.test(raw)
      ? Date.parse(raw)
      : Number.NaN;
  if (!Number.isFinite(ms))
    throw badRequest(
      `${name} must be a unix timestamp in seconds or an ISO 8601 date-time, got ${JSON.stringify(raw)}`,
    );
  return ms;
}

/** The position a list cursor stands for: after the order `[pairId, orderId]`. Issued by `orderCursor`. */
export function parseOrderCursor(
  params: URLSearchParams,
): { readonly pairId: string; readonly orderId: bigint } | undefined {
  const raw = params.get('cursor');
  if (raw === null || raw === '') return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (
      Array.isArray(v) &&
      v.length === 2 &&
      typeof v[0] === 'string' &&
      typeof v[1] === 'string' &&
      /^[0-9]{1,20}$/.test(v[1])
    )
      return { pairId: v[0], orderId: BigInt(v[1]) };
  } catch {
    // Not one of ours: refused below.
  }
  throw badRequest(`cursor ${JSON.stringify(raw)} was not issued by this API`);
}

export function orderCursor(pairId: string, orderId: bigint): string {
  return Buffer.from(JSON.stringify([pairId, orderId.toString()]), 'utf8').toString('base64url');
}

export const OHLC_INTERVALS: Readonly<Record<string, number>> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '1h': 3_600_000,
  '4h': 14_400_000,
  '1d': 86_400_000,
};

export function parseInterval(params: URLSearchParams): { name: string; ms: number } {
  const name = params.get('interval') ?? '1m';
  const ms = OHLC_INTERVALS[name];
  if (ms === undefined)
    throw badRequest(`interval must be one of ${Object.keys(OHLC_INTERVALS).join(', ')}, got ${JSON.stringify(name)}`);
  return { name, ms };
}

/**
 * The instrument list filter. Its serialisation is not published: plain parameters (`?primaryMarket=true`),
 * bracketed (`?query[primaryMarket]=true`) and dotted (`?query.primaryMarket=true`) forms are all read.
 */
export function parseInstrumentFilter(params: URLSearchParams): { primaryMarket?: boolean; secondaryMarket?: boolean } {
  const out: { primaryMarket?: boolean; secondaryMarket?: boolean } = {};
  for (const key of ['primaryMarket', 'secondaryMarket'] as const) {
    const forms = [key, `query[${key}]`, `query.${key}`].filter((k) => params.has(k));
    if (forms.length > 1) throw badRequest(`${key} is given more than once`);
    const form = forms[0];
    if (form !== undefined) out[key] = parseBoolean(params, form);
  }
  return out;
}

/** A decoded path segment; a segment that is not valid percent-encoding or is empty is a 400. */
export function pathSegment(raw: string, what: string): string {
  let v: string;
  try {
    v = decodeURIComponent(raw);
  } catch {
    throw badRequest(`${what} is not valid percent-encoding`);
  }
  if (v === '' || v.length > 255) throw badRequest(`${what} must be 1 to 255 characters`);
  return v;
}
