import { describe, expect, it } from 'vitest';
import { HeadSightings } from '../../../src/chains/head-sightings.ts';
import { TestClock } from '../../support/clock.ts';

describe('head sightings', () => {
  it('keeps the highest ledger named and when it was first seen', () => {
    const s = new HeadSightings();
    s.see(10, 1_000);
    s.see(10, 1_400);
    s.see(9, 1_500);
    expect(s.last).toEqual({ height: 10, atMs: 1_400, firstAtMs: 1_000 });
  });

  it('estimates the close time from first sightings, never above the configured one', () => {
    const fast = new HeadSightings();
    // One ledger a second, seen by polls that sometimes skip one.
    for (const [ledger, at] of [
      [1, 0],
      [2, 1_000],
      [4, 3_000],
      [5, 4_000],
    ] as const)
      fast.see(ledger, at);
    expect(fast.closeMs(5_000)).toBe(1_000);
    const slow = new HeadSightings();
    for (const [ledger, at] of [
      [1, 0],
      [2, 6_000],
      [3, 12_000],
    ] as const)
      slow.see(ledger, at);
    expect(slow.closeMs(5_000)).toBe(5_000);
    expect(new HeadSightings().closeMs(5_000)).toBe(5_000);
  });

  it('expects the next height no sooner than three quarters of the shortest recent interval, once four are known', () => {
    const s = new HeadSightings();
    // A block every two seconds, first seen up to half a second late.
    for (const [block, at] of [
      [1, 0],
      [2, 2_400],
      [3, 4_100],
      [4, 6_300],
    ] as const)
      s.see(block, at);
    expect(s.nextDueMs()).toBeNull();
    s.see(5, 8_000);
    // Intervals 2400, 1700, 2200, 1700: the shortest is 1700.
    expect(s.nextDueMs()).toBe(8_000 + 1_275);
    s.see(5, 8_400);
    expect(s.nextDueMs()).toBe(8_000 + 1_275);
    // Blocks on demand, two in a burst: the next may come at any time.
    s.see(6, 8_100);
    s.see(7, 8_150);
    expect(s.nextDueMs()).toBe(8_150 + 0.75 * 50);
  });

  it('wakes a waiter when a newer ledger is named, and otherwise at the end of its wait', async () => {
    const clock = new TestClock();
    const s = new HeadSightings();
    s.see(7, clock.now());
    const never = new AbortController().signal;
    let woken = false;
    const waiting = s.above(7, 60_000, clock.sleep, never).then(() => (woken = true));
    s.see(7, clock.now());
    await Promise.resolve();
    expect(woken).toBe(false);
    s.see(8, clock.now());
    await waiting;
    expect(woken).toBe(true);
    // Woken early: its timer is gone with it.
    expect(clock.pendingDelays()).toEqual([]);
    let timedOut = false;
    const timing = s.above(8, 1_000, clock.sleep, never).then(() => (timedOut = true));
    clock.advance(999);
    await Promise.resolve();
    expect(timedOut).toBe(false);
    clock.advance(1);
    await timing;
    expect(timedOut).toBe(true);
  });

  it('waits for the next ledger until it should have closed, at least the minimum, and no more once one is named', async () => {
    const clock = new TestClock();
    const s = new HeadSightings();
    const t0 = clock.now();
    s.see(20, t0);
    clock.advance(200);
    const wait = { minMs: 1_000, closeMs: 5_000, sleep: clock.sleep, signal: new AbortController().signal };
    let done = false;
    const next = s.next(20, { ...wait, nowMs: clock.now() }).then(() => (done = true));
    clock.advance(4_999 - 200);
    await Promise.resolve();
    expect(done).toBe(false);
    clock.advance(1);
    await next;
    expect(clock.now() - t0).toBe(5_000);
    // Overdue: the minimum wait.
    const late = s.next(20, { ...wait, nowMs: clock.now() });
    expect(clock.pendingDelays()).toEqual([1_000]);
    s.see(21, clock.now());
    await late;
    // Already named: no wait at all.
    await s.next(20, { ...wait, nowMs: clock.now() });
    expect(clock.pendingDelays()).toEqual([]);
  });
});
