import { describe, expect, it } from 'vitest';
import { SettledDay } from '../../../../src/engine/obligations/settled-day.ts';

describe('a day settled stretch by stretch', () => {
  it('goes back to the last checkpoint at or before a late event, thinned or not, with the sums up to it', () => {
    const day = new SettledDay('2027-01-15', 0);
    // 1,000 stretches of 10 s, each 10 s continuous and 7 s present: more than the checkpoints kept.
    for (let i = 1; i <= 1_000; i++) day.extend(i * 10_000, { continuousMs: 10_000, presentMs: 7_000 });
    expect([day.upTo, day.continuousMs, day.presentMs]).toEqual([10_000_000, 10_000_000, 7_000_000]);
    // Recent checkpoints are kept one by one: a late event close to the clock costs one stretch.
    day.reopen(9_995_000);
    expect(day.upTo).toBe(9_990_000);
    for (const at of [9_000_000, 4_321_000, 1_234_567, 5_000]) {
      day.reopen(at);
      expect(day.upTo).toBeLessThanOrEqual(at);
      expect([day.continuousMs, day.presentMs]).toEqual([day.upTo, (day.upTo / 10) * 7]);
    }
    day.reopen(0);
    expect([day.upTo, day.continuousMs, day.presentMs]).toEqual([0, 0, 0]);
  });
});
