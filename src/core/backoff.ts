/**
 * The one exponential back-off of the bot: the n-th wait (0-based) doubles from `baseMs` up to `capMs`. With a
 * random source it is full jitter (AWS architecture blog, "Exponential Backoff And Jitter"): a uniformly random
 * time in [0, ceiling), so a crowd of clients spreads out instead of retrying in lockstep; without one, the
 * ceiling itself (a pause of our own, which nothing else shares).
 */
export interface BackoffPolicy {
  /** The first wait (its ceiling, with jitter), in ms. */
  readonly baseMs: number;
  /** The longest wait (its ceiling), in ms. */
  readonly capMs: number;
}

export function backoff(n: number, policy: BackoffPolicy, random?: () => number): number {
  // 2^n overflows to Infinity for huge counts; min() keeps the cap.
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, n));
  return random === undefined ? ceiling : Math.floor(random() * ceiling);
}
