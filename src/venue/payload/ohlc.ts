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
import { epochMs } from './timestamp.ts';

const pointSchema = z
  .object({ x: epochMs, o: decimalValue, h: decimalValue, l: decimalValue, c: decimalValue })
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
