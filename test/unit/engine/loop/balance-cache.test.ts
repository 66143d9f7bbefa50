import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Balances } from '../../../../src/chains/types.ts';
import { BalanceCache } from '../../../../src/engine/loop/balance-cache.ts';
import { TestClock } from '../../../support/clock.ts';
import { whenTrue } from '../../../support/condition.ts';

/** A chain whose balance reads the test answers one at a time. */
function chain() {
  const pending: Array<(b: Balances) => void> = [];
  let native = 0n;
  return {
    reads: () => pending.length,
    read: () => new Promise<Balances>((resolve) => pending.push(resolve)),
    /** Answers the oldest read; with `taken`, waits until that says the cache has taken the answer in. */
    answer: async (taken: () => boolean = () => true) => {
      native += 1n;
      pending.shift()?.({ base: 0n, quote: 0n, native });
      await whenTrue(taken, 'the cache took the answer in');
    },
  };
}

describe('the balance cache of a pair', () => {
  it('changes while a read is on the wire are covered by one more read when it ends, not one read each', async () => {
    const c = chain();
    const seen: bigint[] = [];
    const clock = new TestClock();
    const cache = new BalanceCache({
      read: c.read,
      onRead: (b) => seen.push(b.native),
      maxAgeMs: 60_000,
      clock,
      logger: pino({ level: 'silent' }),
      pairId: 'p',
    });
    cache.changed();
    cache.changed();
    cache.changed();
    expect(c.reads()).toBe(1);
    await c.answer(() => seen.length === 1);
    // The first read started before the second and third change: one more read covers both.
    expect(c.reads()).toBe(1);
    await c.answer(() => seen.length === 2);
    expect(c.reads()).toBe(0);
    expect(seen).toEqual([1n, 2n]);
    expect((await cache.current(clock.now())).native).toBe(2n);
    expect(c.reads()).toBe(0);
  });

  it('serves what it read while it is younger than the longest age, then reads again', async () => {
    const c = chain();
    const clock = new TestClock();
    const cache = new BalanceCache({
      read: c.read,
      onRead: () => undefined,
      maxAgeMs: 2_000,
      clock,
      logger: pino({ level: 'silent' }),
      pairId: 'p',
    });
    const first = cache.current(clock.now());
    await c.answer();
    expect((await first).native).toBe(1n);
    clock.advance(1_999);
    expect((await cache.current(clock.now())).native).toBe(1n);
    clock.advance(1);
    const again = cache.current(clock.now());
    expect(c.reads()).toBe(1);
    await c.answer();
    expect((await again).native).toBe(2n);
  });

  it('starts nothing in the background once stopped', () => {
    const c = chain();
    const cache = new BalanceCache({
      read: c.read,
      onRead: () => undefined,
      maxAgeMs: 2_000,
      clock: new TestClock(),
      logger: pino({ level: 'silent' }),
      pairId: 'p',
    });
    cache.stop();
    cache.changed();
    expect(c.reads()).toBe(0);
  });
});
