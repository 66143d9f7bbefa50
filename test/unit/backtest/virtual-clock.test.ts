/** The backtest's clock fires timers one at a time in due order (ties in the order set), each at its own time. */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/backtest/virtual-clock.ts';

describe('VirtualClock', () => {
  it('fires in due order, repeats, skips cancelled timers and moves to the limit when nothing is due', () => {
    const c = new VirtualClock(1_000);
    const fired: Array<[string, number]> = [];
    c.setTimer(() => fired.push(['b', c.now()]), 20);
    c.setTimer(() => fired.push(['a', c.now()]), 10);
    c.setTimer(() => fired.push(['a2', c.now()]), 10);
    const gone = c.setTimer(() => fired.push(['gone', c.now()]), 5);
    const every = c.setRepeating(() => fired.push(['r', c.now()]), 15);
    gone.cancel();
    while (c.fireNext(1_035));
    every.cancel();
    expect(fired).toEqual([
      ['a', 1_010],
      ['a2', 1_010],
      ['r', 1_015],
      ['b', 1_020],
      ['r', 1_030],
    ]);
    expect(c.now()).toBe(1_035);
    expect(c.nextDue()).toBeNull();
  });

  it('a sleep wakes when the clock passes it', async () => {
    const c = new VirtualClock(0);
    let woke = -1;
    const sleeping = c.sleep(250).then(() => (woke = c.now()));
    expect(c.nextDue()).toBe(250);
    c.fireNext(1_000);
    await sleeping;
    expect(woke).toBe(250);
  });
});
