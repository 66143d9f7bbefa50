import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/core/decimal.ts';
import type { ObligationTerms } from '../../../../src/core/obligations.ts';
import { guardTerms } from '../../../../src/engine/obligations/tracked-pair.ts';

const termsOf = (maxSpreadBps: string): ObligationTerms => ({
  maxSpread: { unit: 'bps', value: new Decimal(maxSpreadBps) },
  minSize: { unit: 'base', value: new Decimal(5) },
  maxSizeRatio: 0.5,
  target: 0.9,
  stressedSpreadMultiplier: new Decimal('1.5'),
});

describe("the guard's terms", () => {
  it('are the pair terms, widened while stressed, one object for each while the terms stay', () => {
    const terms = termsOf('200');
    const plain = guardTerms(terms, false);
    const stressed = guardTerms(terms, true);
    expect(plain).toEqual({ maxSpread: terms.maxSpread, minSize: terms.minSize, maxSizeRatio: 0.5 });
    expect({ ...stressed, maxSpread: stressed.maxSpread.value.toFixed() }).toEqual({
      maxSpread: '300',
      minSize: terms.minSize,
      maxSizeRatio: 0.5,
    });
    expect([guardTerms(terms, false), guardTerms(terms, true)]).toEqual([plain, stressed]);
    expect(guardTerms(terms, false)).toBe(plain);
    expect(guardTerms(terms, true)).toBe(stressed);
    const other = termsOf('100');
    expect(guardTerms(other, true).maxSpread.value.toFixed()).toBe('150');
    expect(guardTerms(other, false).maxSpread.value.toFixed()).toBe('100');
  });
});
