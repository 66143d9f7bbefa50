import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startPolls } from '../../../../src/engine/loop/bot-routines.ts';
import type { PairStatus } from '../../../../src/market/status.ts';
import { TestClock } from '../../../support/clock.ts';

describe('the trade information poll', () => {
  it('reads every pair once a period, spread over it: a few at a time, never all at one moment', () => {
    const clock = new TestClock();
    const reads: { pair: number; atMs: number }[] = [];
    const statuses = Array.from({ length: 40 }, (_, pair) => ({
      current: {} as PairStatus,
      refreshTradeInfo: (atMs: number) => (reads.push({ pair, atMs }), Promise.resolve()),
      refreshPhase: () => Promise.resolve(),
    }));
    const timings = { tickMs: 0, tradeInfoPollMs: 5_000, phasePollMs: 0, inventoryCheckMs: 0 };
    const timers = startPolls(
      clock,
      timings,
      { statuses: () => statuses, engines: [], tick: () => undefined },
      pino({ level: 'silent' }),
    );
    clock.advance(10_000);
    for (const t of timers) t.cancel();
    const perPair = Map.groupBy(reads, (r) => r.pair);
    expect([...perPair.values()].map((r) => r.length)).toEqual(Array.from({ length: 40 }, () => 2));
    // Each pair 5 s after its last read.
    for (const r of perPair.values()) expect((r[1]?.atMs ?? 0) - (r[0]?.atMs ?? 0)).toBe(5_000);
    const perMoment = Map.groupBy(reads, (r) => r.atMs);
    expect(Math.max(...[...perMoment.values()].map((r) => r.length))).toBe(3);
    expect(perMoment.size).toBe(32);
  });
});
