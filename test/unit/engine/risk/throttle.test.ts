import { describe, expect, it } from 'vitest';
import {
  acquire,
  NO_THROTTLE,
  Throttle,
  THROTTLE_QUIET_MS,
  ThrottleEpisodes,
  throttleLimits,
  type ThrottleLimits,
  type ThrottleVerdict,
} from '../../../../src/engine/risk/throttle.ts';

const limited = (limits: Partial<ThrottleLimits>, scope = 'wallet') =>
  new Throttle(scope, () => ({ ...NO_THROTTLE, ...limits }));

function refused(v: ThrottleVerdict): Exclude<ThrottleVerdict, { ok: true }> {
  if (v.ok) throw new Error('expected a refusal');
  return v;
}

function granted(v: ThrottleVerdict): () => void {
  if (!v.ok) throw new Error(`expected a place: ${v.detail}`);
  return v.release;
}

describe('placement throttles', () => {
  it('per block: no more placements in flight than the limit; an outcome frees a place', () => {
    const t = limited({ perBlock: 2 });
    const first = granted(acquire([t], 0));
    granted(acquire([t], 0));
    const third = refused(acquire([t], 0));
    expect(third).toMatchObject({ scope: 'wallet', rule: 'perBlock', retryAtMs: null });
    expect(third.detail).toContain('2 placements of the wallet not yet included, at most 2');
    first();
    expect(t.inFlight).toBe(1);
    granted(acquire([t], 0));
    expect(t.inFlight).toBe(2);
  });

  it('per second: a sliding window, and the moment it lets the next one through', () => {
    const t = limited({ perSecond: 2 }, 'pair');
    granted(acquire([t], 0))();
    granted(acquire([t], 100))();
    const held = refused(acquire([t], 500));
    expect(held).toMatchObject({ scope: 'pair', rule: 'perSecond', retryAtMs: 1_000 });
    refused(acquire([t], 999));
    granted(acquire([t], 1_000));
    expect(refused(acquire([t], 1_050)).retryAtMs).toBe(1_100);
  });

  it("takes a place in every throttle or in none: a full wallet leaves the pair's places untouched", () => {
    const wallet = limited({ perBlock: 1 });
    const pair = limited({ perBlock: 5 }, 'pair');
    granted(acquire([wallet, pair], 0));
    expect(refused(acquire([wallet, pair], 0)).scope).toBe('wallet');
    expect(pair.inFlight).toBe(1);
    expect(pair.sentWithin(0)).toBe(1);
  });

  it('gives a place back once, however often its release is called', () => {
    const t = limited({ perBlock: 1 });
    const release = granted(acquire([t], 0));
    release();
    release();
    expect(t.inFlight).toBe(0);
    granted(acquire([t], 0));
    refused(acquire([t], 0));
  });

  it("without limits nothing is held; a pair's own keys win over the defaults key by key", () => {
    const t = new Throttle('pair', () => NO_THROTTLE);
    for (let i = 0; i < 100; i++) granted(acquire([t], 0));
    expect(throttleLimits({ perBlock: 2, perSecond: 5 }, { perSecond: 1 })).toEqual({ perBlock: 2, perSecond: 1 });
    expect(throttleLimits({})).toEqual(NO_THROTTLE);
  });

  it('an episode is said once when it starts and once when placements have gone out unheld for a while', () => {
    const e = new ThrottleEpisodes();
    const t = limited({ perBlock: 1 });
    granted(acquire([t], 0));
    const why = refused(acquire([t], 0));
    expect(e.held(0, why)).toBe(`placements throttled (wallet perBlock): ${why.detail}`);
    expect(e.held(2_000, why)).toBeNull();
    expect(e.rule).toBe('wallet perBlock');
    expect(e.passed(2_000 + THROTTLE_QUIET_MS - 1)).toBeNull();
    expect(e.passed(2_000 + THROTTLE_QUIET_MS)).toBe(
      'placements no longer throttled: 2 held over 2 s (first by wallet perBlock)',
    );
    expect(e.rule).toBeNull();
    expect(e.passed(60_000)).toBeNull();
  });
});
