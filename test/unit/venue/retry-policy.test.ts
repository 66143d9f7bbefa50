import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoff } from '../../../src/core/backoff.ts';
import { backoffDelay, parseRetryAfter } from '../../../src/venue/retry-policy.ts';

const policy = { baseMs: 100, capMs: 1_000 };

describe('backoff with full jitter', () => {
  it('doubles the ceiling per retry up to the cap (the one back-off: without jitter it is the ceiling)', () => {
    expect([-1, 0, 1, 2, 3, 4, 5, 60, 5000].map((n) => backoff(n, policy))).toEqual([
      100, 100, 200, 400, 800, 1000, 1000, 1000, 1000,
    ]);
  });

  it('draws the wait uniformly below the ceiling: random 0 waits nothing, random ~1 waits the whole ceiling', () => {
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(400);
    expect(backoffDelay(3, policy, () => 0.999999)).toBe(799);
  });

  it('never waits less than Retry-After, and keeps the jitter when it is longer', () => {
    expect(backoffDelay(0, policy, () => 0.5, 3_000)).toBe(3_000);
    expect(backoffDelay(4, policy, () => 0.9, 10)).toBe(900);
  });

  it('stays within [0, min(cap, base * 2^n)) for every retry and random value (property)', () => {
    fc.assert(
      fc.property(fc.nat(100), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (n, r) => {
        const d = backoffDelay(n, policy, () => r);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThan(Math.min(policy.capMs, policy.baseMs * 2 ** n));
      }),
    );
  });
});

describe('Retry-After', () => {
  const now = Date.UTC(2026, 2, 2, 9, 0, 0);
  it('reads delay-seconds and HTTP dates', () => {
    expect(parseRetryAfter('7', now)).toBe(7_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Mon, 02 Mar 2026 09:00:30 GMT', now)).toBe(30_000);
  });
  it('a past date means now; absent or unreadable values mean no header', () => {
    expect(parseRetryAfter('Mon, 02 Mar 2026 08:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});
