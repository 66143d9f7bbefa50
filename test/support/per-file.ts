/** A resource a test file's tests share: started before them and closed after them. */
import { afterAll, beforeAll } from 'vitest';

/**
 * Registers the file's hooks: `start()` in a `beforeAll`, its `close()` in an `afterAll`. The object returned
 * is filled in with what `start()` gives (a plain object's own fields), so its fields are there from the file's
 * own `beforeAll` hooks on.
 */
export function perFile<T extends { close(): unknown }>(start: () => Promise<T>): T {
  const shared = {} as T;
  beforeAll(async () => {
    Object.assign(shared, await start());
  });
  afterAll(() => shared.close());
  return shared;
}
