/**
 * The venue clients' retries: the one back-off of the bot (`core/backoff.ts`) with full jitter, a retry budget,
 * and a server's `Retry-After` as a floor: the wait is never shorter.
 */
import { backoff, type BackoffPolicy } from '../core/backoff.ts';
import type { Random } from './random.ts';

export type { BackoffPolicy } from '../core/backoff.ts';

export interface RetryPolicy extends BackoffPolicy {
  /** Retries after the first attempt (the retry budget); 0 disables retrying. */
  readonly retries: number;
  /** A `Retry-After` longer than this ends the retries at once instead of blocking the caller. */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseMs: 200, capMs: 10_000, retries: 5, maxRetryAfterMs: 30_000 };

/** The wait before retry number `retry` (0-based): full jitter, at least `retryAfterMs` when the server set one. */
export function backoffDelay(retry: number, policy: BackoffPolicy, random: Random, retryAfterMs?: number): number {
  const jittered = backoff(retry, policy, random);
  return retryAfterMs === undefined ? jittered : Math.max(retryAfterMs, jittered);
}

/**
 * `Retry-After` as milliseconds from `nowMs`: either delay-seconds (`"120"`) or an HTTP date. Undefined when
 * absent or unreadable; a date in the past is 0.
 */
export function parseRetryAfter(header: string | null | undefined, nowMs: number): number | undefined {
  if (header === null || header === undefined) return undefined;
  const text = header.trim();
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
