/**
 * Time, passed in. Nothing outside the composition root reads the wall clock, sets a timer or sleeps on its
 * own: it is handed a `Clock`, so tests drive every part with a test clock and never wait on the wall clock.
 */

export interface Timer {
  cancel(): void;
}

/** Resolves after `ms`; rejects with the signal's reason when aborted first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds unless cancelled. */
  setTimer(fn: () => void, ms: number): Timer;
  /** Runs `fn` every `ms` milliseconds until cancelled. */
  setRepeating(fn: () => void, ms: number): Timer;
  sleep: Sleep;
}

/**
 * The reason to abort a sleep with when its sleeper is woken early rather than cancelled: one shared instance,
 * since `abort()` without a reason builds a new DOMException, stack trace and all, each time (a receipt watcher
 * is woken by every transaction sent).
 */
export const WOKEN = new DOMException('woken early', 'AbortError');

/** A sleep built on a clock's one-shot timers (so a test clock drives it too). */
export function sleepOn(setTimer: Clock['setTimer']): Sleep {
  return (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const onAbort = () => {
        timer.cancel();
        reject(signal?.reason as Error);
      };
      const timer = setTimer(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
}
