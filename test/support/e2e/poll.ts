/** Bounded polling of a real process or chain: ends as soon as the condition holds, fails at the deadline. */
import { setTimeout as sleep } from 'node:timers/promises';

export async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  everyMs = 250,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    if (performance.now() > deadline)
      throw new Error(
        `${what}: not within ${timeoutMs} ms${last === undefined ? '' : ` (last error: ${String(last)})`}`,
      );
    await sleep(everyMs);
  }
}
