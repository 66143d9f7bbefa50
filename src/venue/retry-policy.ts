/**
 * Exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff And Jitter"): the n-th
 * retry waits a uniformly random time in [0, min(cap, base * 2^n)), so a crowd of clients spreads out
 * instead of retrying in lockstep. A server's `Retry-After` is a floor: the wait is never shorter.
 */
import type { Random } from './random.ts';

export interface BackoffPolicy {
  /** First ceiling of the random wait, in ms. */
  readonly baseMs: number;
  /** Largest ceiling, in ms. */
  readonly capMs: number;
}

export interface RetryPolicy extends BackoffPolicy {
  /** Retries after the first attempt (the retry budget); 0 disables retrying. */
  readonly retries: number;
  /** A `Retry-After` longer than this ends the retries at once instead of blocking the caller. */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseMs: 200, capMs: 10_000, retries: 5, maxRetryAfterMs: 30_000 };

/** Ceiling of the random wait before retry number `retry` (0-based). */
export function backoffCeiling(retry: number, policy: BackoffPolicy): number {
  // 2^retry overflows to Infinity for huge retry counts; min() keeps the cap.
  return Math.min(policy.capMs, policy.baseMs * 2 ** retry);
}

/** The wait before retry number `retry` (0-based): full jitter, at least `retryAfterMs` when the server set one. */
export function backoffDelay(retry: number, policy: BackoffPolicy, random: Random, retryAfterMs?: number): number {
  const jittered = Math.floor(random() * backoffCeiling(retry, policy));
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
