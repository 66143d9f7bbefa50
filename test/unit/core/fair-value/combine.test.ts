import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import { combine, median, stateOf, type SourceReading } from '../../../../src/core/fair-value/combine.ts';

const d = (s: string) => new Decimal(s);
const NOW = 1_000_000;
const reading = (kind: SourceReading['kind'], value: string | null, ageMs = 0, maxAgeMs = 10_000): SourceReading => ({
  kind,
  value: value === null ? null : d(value),
  atMs: value === null ? null : NOW - ageMs,
  error: value === null ? 'HTTP 503' : null,
  maxAgeMs,
});

describe('a source reading', () => {
  it('is usable while no older than its maximum age, by the time it describes', () => {
    expect(stateOf(reading('feed', '100', 10_000), NOW)).toMatchObject({ usable: true, ageMs: 10_000 });
    const stale = stateOf(reading('feed', '100', 10_001), NOW);
    expect(stale.usable).toBe(false);
    expect(stale.reason).toBe('stale: 10.0 s old, at most 10.0 s');
  });
  it('dated ahead of the reader counts as age 0; no value says why; a non-positive value is unusable', () => {
    expect(stateOf(reading('nav', '100', -5_000), NOW)).toMatchObject({ usable: true, ageMs: 0 });
    expect(stateOf(reading('feed', null), NOW)).toMatchObject({ usable: false, reason: 'HTTP 503' });
    expect(stateOf(reading('oracle', '0'), NOW)).toMatchObject({ usable: false, reason: 'not positive' });
  });
});

describe('combining sources', () => {
  it('first: the first usable source in the configured order', () => {
    const c = combine(
      [reading('feed', '101', 20_000), reading('oracle', '100.5'), reading('nav', '99')],
      'first',
      100,
      NOW,
    );
    expect(c.value?.toFixed()).toBe('100.5');
    expect(c.source).toBe('oracle');
    expect(c.problem).toBeNull();
  });
  it('median: of the usable ones, with their dispersion in bp of the median', () => {
    const c = combine([reading('feed', '100.2'), reading('oracle', '100'), reading('nav', '99.9')], 'median', 100, NOW);
    expect(c.value?.toFixed()).toBe('100');
    expect(c.source).toBe('median');
    expect(c.dispersionBps?.toFixed()).toBe('20');
    expect(median([d('1'), d('3'), d('2'), d('10')]).toFixed()).toBe('2.5');
  });
  it('median: sources further apart than the maximum dispersion give no value, and say so', () => {
    const c = combine([reading('feed', '101'), reading('oracle', '100')], 'median', 40, NOW);
    expect(c.value).toBeNull();
    expect(c.problem?.guard).toBe('dispersion');
    expect(c.problem?.detail).toContain('feed 101, oracle 100: 49.8 bp from their median, at most 40');
  });
  it('nothing usable is the unavailable problem, naming each source with its reason', () => {
    const c = combine([reading('feed', '100', 60_000), reading('oracle', null)], 'median', 100, NOW);
    expect(c.value).toBeNull();
    expect(c.problem).toEqual({
      guard: 'unavailable',
      detail: 'feed: stale: 60.0 s old, at most 10.0 s; oracle: HTTP 503',
    });
  });
});
