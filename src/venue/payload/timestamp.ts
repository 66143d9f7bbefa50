/**
 * A moment as the venue may send it where its type is not published: epoch seconds or epoch milliseconds (a
 * number from 10^11 up is read as milliseconds: 10^11 seconds is the year 5138), or an ISO 8601 string.
 */
import { z } from 'zod';

const MS_THRESHOLD = 1e11;

/** Epoch milliseconds of a moment, or undefined when it is none of the accepted forms. */
export function toEpochMs(x: unknown): number | undefined {
  if (typeof x === 'number') return Number.isFinite(x) ? (Math.abs(x) < MS_THRESHOLD ? x * 1000 : x) : undefined;
  const at = typeof x === 'string' && x.length <= 64 ? Date.parse(x) : Number.NaN;
  return Number.isNaN(at) ? undefined : at;
}

/** zod: a moment as epoch milliseconds. */
export const epochMs = z.unknown().transform((x, ctx): number => {
  const at = toEpochMs(x);
  if (at === undefined) {
    ctx.addIssue({ code: 'custom', message: 'expected epoch seconds or milliseconds, or an ISO 8601 date-time' });
    return z.NEVER;
  }
  return at;
});
