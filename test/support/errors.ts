import { DltError } from '../../src/core/errors.ts';

/** Runs `fn`, which must throw a DltError, and returns that error for assertions. */
export function thrown(fn: () => unknown): DltError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DltError) return e;
    throw e;
  }
  throw new Error('expected a DltError, but nothing was thrown');
}
