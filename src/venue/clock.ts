/**
 * Time and chance, passed in. Venue clients never read the system clock, set a timer or draw a random
 * number directly, so tests drive them with a manual clock and a fixed random source and never wait.
 */

export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds unless cancelled. */
  setTimer(fn: () => void, ms: number): Timer;
}

/** Resolves after `ms`; rejects with the signal's reason when aborted first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** A number in [0, 1), like Math.random. */
export type Random = () => number;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const handle = setTimeout(fn, ms);
    // A pending retry or watchdog must not keep a finished process alive.
    handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
};

export const systemRandom: Random = Math.random;

/** A Sleep built on a Clock's timers (so a manual clock drives it too). */
export function clockSleep(clock: Clock): Sleep {
  return (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const onAbort = () => {
        timer.cancel();
        reject(signal?.reason as Error);
      };
      const timer = clock.setTimer(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
}
