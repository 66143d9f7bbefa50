import { describe, expect, it } from 'vitest';
import { RecordedSource } from '../../../src/backtest/sim-market.ts';
import type { RecordedReading } from '../../../src/store/recording-read.ts';
import { T0, TestClock } from '../../support/clock.ts';

const row = (atS: number, value: string | null, error: string | null = null): RecordedReading => ({
  recvMs: T0 + atS * 1000,
  pairId: 'p',
  source: 'feed',
  value,
  valueTimeMs: value === null ? null : T0 + atS * 1000 - 100,
  maxAgeMs: 10_000,
  error,
});

describe('a fair-value source replayed from a recording', () => {
  it('answers the reading recorded last, each value as recorded, again and again until the next', async () => {
    const clock = new TestClock(T0 + 1000);
    const source = new RecordedSource('feed', 1000, [row(1, '100.25'), row(3, null, 'timeout'), row(5, '99.5')], clock);
    const seen: Array<[number, string | null, string | null]> = [];
    for (const atS of [1, 2, 3, 4, 5, 6]) {
      if (atS > 1) clock.advance(1000);
      await source.refresh();
      const first = source.reading();
      const again = source.reading();
      expect(again.value).toEqual(first.value);
      seen.push([atS, first.value?.toFixed() ?? null, first.error]);
    }
    expect(seen).toEqual([
      [1, '100.25', null],
      [2, '100.25', null],
      [3, null, 'timeout'],
      [4, null, 'timeout'],
      [5, '99.5', null],
      [6, '99.5', null],
    ]);
  });
});
