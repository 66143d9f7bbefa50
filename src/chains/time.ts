/**
 * Time as the chain adapters take it: a clock to read and a sleep to wait with, both passed in, so tests
 * drive an adapter with the node's blocks or the emulator's ledgers and never wait on the wall clock.
 */

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/** Resolves after `ms`; rejects with the signal's reason when aborted first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const systemClock: Clock = { now: () => Date.now() };

export const systemSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(handle);
      reject(signal?.reason as Error);
    };
    const handle = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
