import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { JumpDetector } from '../../../../src/core/fair-value/jump.ts';
import { accruedNav, navTimeOf } from '../../../../src/core/fair-value/nav.ts';

const d = (s: string) => new Decimal(s);
const DAY = 86_400_000;

const settings = { thresholdBps: 50, windowMs: 10_000, coolDownMs: 30_000 };

/** The jump guard's reference: every value seen in the window compared, the largest move beyond the threshold kept. */
function reference(history: ReadonlyArray<Decimal>, value: Decimal): string | null {
  let best: Decimal | null = null;
  for (const h of history) {
    const bps = value.sub(h).abs().mul(10_000).div(h);
    if (bps.gt(settings.thresholdBps) && (best === null || bps.gt(best))) best = bps;
  }
  return best?.toFixed() ?? null;
}

describe('the jump guard', () => {
  it('finds the largest move from any value in the window, as comparing against every one of them does', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 9_800, max: 10_200 }), { minLength: 1, maxLength: 40 }), (cents) => {
        const j = new JumpDetector({ ...settings, windowMs: 1_000_000, coolDownMs: 0 });
        const seen: Decimal[] = [];
        cents.forEach((c, i) => {
          const v = new Decimal(c).div(100);
          const got = j.observe(i * 1_000, v).move?.bps.toFixed() ?? null;
          expect(got).toBe(reference(seen, v));
          // A move starts over from the value it moved to; otherwise the value joins the window.
          if (got !== null) seen.splice(0, seen.length, v);
          else if (seen.at(-1)?.eq(v) !== true) seen.push(v);
        });
      }),
    );
  });

  it('pauses after a move beyond the threshold within the window, until the cool-down passes', () => {
    const j = new JumpDetector(settings);
    expect(j.observe(0, d('100')).pausedUntilMs).toBeNull();
    expect(j.observe(4_000, d('100.4')).pausedUntilMs).toBeNull();
    const v = j.observe(8_000, d('100.6'));
    expect(v.pausedUntilMs).toBe(38_000);
    expect(v.move?.bps.toFixed()).toBe('60');
    expect(j.observe(37_999, d('100.6')).pausedUntilMs).toBe(38_000);
    expect(j.observe(38_000, d('100.6')).pausedUntilMs).toBeNull();
  });
  it('a move of exactly the threshold is no jump, the smallest step beyond it is', () => {
    const at = new JumpDetector(settings);
    at.observe(0, d('100'));
    expect(at.observe(1_000, d('100.5')).move).toBeNull();
    const beyond = new JumpDetector(settings);
    beyond.observe(0, d('100'));
    expect(beyond.observe(1_000, d('100.500000000000000001')).move?.bps.toFixed()).toBe('50.0000000000000001');
  });
  it('a slow drift of the same size over more than the window is no jump', () => {
    const j = new JumpDetector(settings);
    for (let t = 0; t <= 60_000; t += 5_000)
      expect(j.observe(t, new Decimal(100 + t / 60_000)).pausedUntilMs).toBeNull();
  });
  it('a further move during the cool-down extends it', () => {
    const j = new JumpDetector(settings);
    j.observe(0, d('100'));
    expect(j.observe(1_000, d('101')).pausedUntilMs).toBe(31_000);
    expect(j.observe(12_000, d('101')).pausedUntilMs).toBe(31_000);
    expect(j.observe(20_000, d('102')).pausedUntilMs).toBe(50_000);
  });
});

describe('a NAV carried forward', () => {
  it('a date-only NAV describes the end of its day; an ISO time is taken as it is', () => {
    expect(navTimeOf('2026-03-02')).toBe(Date.UTC(2026, 2, 3));
    expect(navTimeOf('2026-03-02T16:30:00Z')).toBe(Date.UTC(2026, 2, 2, 16, 30));
    expect(navTimeOf('2026-02-30')).toBeNull();
    expect(navTimeOf('yesterday')).toBeNull();
  });
  it('accrues simple interest from its time, ACT/365F or ACT/360, and nothing before it', () => {
    const at = Date.UTC(2026, 2, 3);
    expect(accruedNav(d('100'), at, at + 73 * DAY, { ratePercent: '5', dayCount: 'ACT/365F' }).toFixed()).toBe('101');
    expect(accruedNav(d('100'), at, at + 36 * DAY, { ratePercent: '5', dayCount: 'ACT/360' }).toFixed()).toBe('100.5');
    expect(accruedNav(d('100'), at, at - DAY, { ratePercent: '5', dayCount: 'ACT/360' }).toFixed()).toBe('100');
    expect(accruedNav(d('100'), at, at + DAY, undefined).toFixed()).toBe('100');
  });
});
