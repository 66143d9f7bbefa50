/** A decoding that throws `malformed` (the follower counts and logs such an event) gives null; anything else throws. */
export function unlessMalformed<T>(malformed: abstract new (...args: never[]) => Error, decode: () => T): T | null {
  try {
    return decode();
  } catch (e) {
    if (e instanceof malformed) return null;
    throw e;
  }
}
