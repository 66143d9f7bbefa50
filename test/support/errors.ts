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

/** Awaits `p`, which must reject with a DltError, and returns that error for assertions. */
export async function rejected(p: Promise<unknown>): Promise<DltError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof DltError)) throw new Error(`expected a DltError, got ${String(e)}`);
  return e;
}
