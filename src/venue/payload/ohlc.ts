/**
 * `GET /tradingpairs/{id}/ohlc`. The value types are not published: `o`, `h`, `l`, `c` may be decimal
 * strings or JSON numbers; `x` (interval start) may be epoch seconds, epoch milliseconds (a number from
 * 10^11 up is read as milliseconds: 10^11 seconds is the year 5138) or an ISO 8601 string. The series is a
 * top-level array or an object holding one (see containers.ts). A bad point is set aside, not fatal.
 */
import { z } from 'zod';
import type { Decimal } from '../../core/decimal.ts';
import { findArray } from './containers.ts';
import { decimalValue } from './decimal-value.ts';
import { malformedPayload, parseEach, zodProblems, type Lenient } from './problems.ts';

const MS_THRESHOLD = 1e11;

const timestamp = z.unknown().transform((x, ctx): number => {
  if (typeof x === 'number' && Number.isFinite(x)) return Math.abs(x) < MS_THRESHOLD ? x * 1000 : x;
  const at = typeof x === 'string' && x.length <= 64 ? Date.parse(x) : Number.NaN;
  if (Number.isNaN(at)) {
    ctx.addIssue({ code: 'custom', message: 'expected epoch seconds or milliseconds, or an ISO 8601 date-time' });
    return z.NEVER;
  }
  return at;
});

const pointSchema = z
  .object({ x: timestamp, o: decimalValue, h: decimalValue, l: decimalValue, c: decimalValue })
  .loose();

export interface OhlcPoint {
  /** Interval start, epoch milliseconds. */
  readonly startMs: number;
  readonly open: Decimal;
  readonly high: Decimal;
  readonly low: Decimal;
  readonly close: Decimal;
  readonly raw: Readonly<Record<string, unknown>>;
}

export function parseOhlcSeries(body: unknown, source: string): Lenient<OhlcPoint> {
  const { items, field } = findArray(body, source, ['series', 'points', 'ohlc']);
  return parseEach(items, (raw, i) => {
    const r = pointSchema.safeParse(raw);
    if (!r.success)
      throw malformedPayload(source, zodProblems(r.error, raw, field === '' ? String(i) : `${field}.${i}`));
    const { x, o, h, l, c } = r.data;
    return { startMs: x, open: o, high: h, low: l, close: c, raw: raw as Record<string, unknown> };
  });
}
