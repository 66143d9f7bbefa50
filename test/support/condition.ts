/**
 * Waits on a condition, not on time: promises and I/O already under way run in between (one turn of the event
 * loop per check) and no clock moves. Fails after `maxTurns` checks, naming what it waited for.
 */
export async function whenTrue(
  condition: () => boolean | Promise<boolean>,
  what: string,
  maxTurns = 10_000,
): Promise<void> {
  for (let turn = 0; turn < maxTurns; turn++) {
    if (await condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`${what}: did not hold after ${maxTurns} turns of the event loop`);
}

/** How many timers of the clock are due exactly `delayMs` from now (a wait that has just begun, the clock not moved since). */
export function timersDueIn(clock: { pendingDelays(): number[] }, delayMs: number): number {
  return clock.pendingDelays().filter((ms) => ms === delayMs).length;
}
