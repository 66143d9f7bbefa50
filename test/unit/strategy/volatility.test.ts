import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.ts';
import {
  initialVolatilityState,
  restoreVolatilityState,
  updateVolatility,
  variancePerSecond,
  type VolatilityParams,
  type VolatilityState,
} from '../../../src/strategy/volatility.ts';
import { d } from '../../support/strategy/builders.ts';

const params: VolatilityParams = { halfLifeMs: 60_000, minimum: 0.00001, initial: 0.001, maxGapMs: 600_000 };
const T0 = 1_000_000;

function feed(prices: ReadonlyArray<readonly [number, string]>, p: VolatilityParams = params): VolatilityState {
  return prices.reduce((s, [t, price]) => updateVolatility(s, d(price), t, p), initialVolatilityState(p));
}

describe('online volatility', () => {
  it('starts from the prior sigma and does not count the first sample as a return', () => {
    const s = feed([[T0, '100']]);
    expect(s.samples).toBe(0);
    expect(variancePerSecond(s, params).toNumber()).toBeCloseTo(1e-6, 15);
  });

  it('a quiet price halves the variance every half-life, however the time is sampled', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 20_000 }), { minLength: 1, maxLength: 30 }), (gaps) => {
        const total = gaps.reduce((a, b) => a + b, 0);
        let t = T0;
        let s = updateVolatility(initialVolatilityState(params), d('100'), t, params);
        for (const g of gaps) s = updateVolatility(s, d('100'), (t += g), params);
        // Zero returns: each step keeps 2^(-dt/h) of the variance, so the product is 2^(-total/h).
        const expected = 1e-6 * 2 ** (-total / params.halfLifeMs);
        expect(Number(s.variance) / expected).toBeCloseTo(1, 9);
      }),
    );
  });

  it('moves from the prior to r^2 / dt for a steady alternating price, at the half-life', () => {
    const r = Math.log(101 / 100);
    const steps = Array.from({ length: 400 }, (_, i) => [T0 + i * 1000, i % 2 === 0 ? '100' : '101'] as const);
    const s = feed(steps);
    // Every return is +-ln(1.01) over one second, so every observation is r^2; after 399 s the prior
    // keeps the weight 2^(-399/60).
    const priorWeight = 2 ** (-399_000 / params.halfLifeMs);
    const expected = r * r + (1e-6 - r * r) * priorWeight;
    expect(Number(s.variance) / expected).toBeCloseTo(1, 9);
    expect(s.samples).toBe(399);
  });

  it('applies the floor to sigma', () => {
    const s = feed(Array.from({ length: 50 }, (_, i) => [T0 + i * 60_000, '100'] as const));
    expect(variancePerSecond(s, params).toNumber()).toBeCloseTo(1e-10, 20);
    expect(Number(s.variance)).toBeLessThan(1e-10);
  });

  it('ignores samples that are not later, not positive, or not finite in time', () => {
    const s = feed([
      [T0, '100'],
      [T0 + 1000, '100.5'],
    ]);
    expect(updateVolatility(s, d('120'), T0 + 1000, params)).toBe(s);
    expect(updateVolatility(s, d('120'), T0 + 500, params)).toBe(s);
    expect(updateVolatility(s, d('0'), T0 + 2000, params)).toBe(s);
    expect(updateVolatility(s, d('99'), Number.NaN, params)).toBe(s);
  });

  it('re-anchors across a gap longer than maxGapMs instead of counting the jump', () => {
    const s = feed([
      [T0, '100'],
      [T0 + 1000, '100'],
    ]);
    const after = updateVolatility(s, d('150'), T0 + 1000 + params.maxGapMs + 1, params);
    expect(after).toEqual({ ...s, lastPrice: '150', lastMs: T0 + 1000 + params.maxGapMs + 1 });
  });

  it('a bigger move raises the estimate more than a smaller one', () => {
    const base = feed([[T0, '100']]);
    const small = updateVolatility(base, d('100.1'), T0 + 1000, params);
    const big = updateVolatility(base, d('101'), T0 + 1000, params);
    expect(new Decimal(big.variance).gt(small.variance)).toBe(true);
  });

  it('its state survives JSON, and a damaged state restores to the prior', () => {
    const s = feed([
      [T0, '100'],
      [T0 + 1000, '100.7'],
      [T0 + 3000, '99.9'],
    ]);
    expect(restoreVolatilityState(JSON.parse(JSON.stringify(s)), params)).toEqual(s);
    for (const bad of [null, 7, { variance: 'x' }, { ...s, samples: -1 }, { ...s, lastMs: null }]) {
      expect(restoreVolatilityState(bad, params)).toEqual(initialVolatilityState(params));
    }
  });
});
