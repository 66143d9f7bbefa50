/**
 * A pair loop over the engine harness for a test (see pair-loop-build.ts), its engine stopped and its store
 * closed after each test.
 */
import { afterEach } from 'vitest';
import { buildPairLoop, type Setup, type SetupOptions } from './pair-loop-build.ts';
import type { Harness } from './harness.ts';

export { LADDER, ours, type Setup, type SetupOptions } from './pair-loop-build.ts';

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) {
    await h.engine.stop();
    h.store.close();
  }
});

export async function setup(options: SetupOptions = {}): Promise<Setup> {
  const s = await buildPairLoop(options);
  open.push(s.h);
  return s;
}
