import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Decimal,
  formatDecimal,
  isDecimalString,
  parseDecimalString,
  parseHumanDecimal,
} from '../../../src/core/decimal.ts';
import { DltError } from '../../../src/core/errors.ts';
import {
  assertUint,
  fromScaled,
  parseScale,
  priceToRaw,
  quantityToRaw,
  toScaled,
  UINT64_MAX,
} from '../../../src/core/units.ts';

function errorOf(fn: () => unknown): DltError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DltError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

describe('DecimalString', () => {
  it('accepts the specification pattern with up to 18 fraction digits', () => {
    for (const ok of ['0', '-1', '12.5', '007', '1.000000000000000001', '-0.5']) expect(isDecimalString(ok)).toBe(true);
  });
  it('refuses other text, including a non-dot separator, 19 fraction digits, exponents and numbers', () => {
    for (const bad of ['1x5', '1.', '.5', '1.0000000000000000001', '1e5', ' 1', '+1', '', '1,5'])
      expect(isDecimalString(bad)).toBe(false);
    expect(isDecimalString(12.5)).toBe(false);
    expect(isDecimalString('1'.repeat(256))).toBe(false);
    expect(isDecimalString('1'.repeat(255))).toBe(true);
  });
  it('names the field of a bad value', () => {
    const e = errorOf(() => parseDecimalString('12,5', 'minimumOrderValue'));
    expect(e.code).toBe('E_DECIMAL_FORMAT');
    expect(e.message).toContain('minimumOrderValue');
  });
  it('formats without exponent notation, however small or large', () => {
    expect(formatDecimal(new Decimal('1e-30'))).toBe('0.000000000000000000000000000001');
    expect(formatDecimal(new Decimal('1e40'))).toBe(`1${'0'.repeat(40)}`);
  });
  it('parses human input with many fraction digits but nothing exotic', () => {
    expect(parseHumanDecimal('0.0000000000000000000001', 'x').toFixed()).toBe('0.0000000000000000000001');
    expect(() => parseHumanDecimal('1e3', 'x')).toThrow(DltError);
  });
});

describe('scales', () => {
  it('accepts scale strings up to 38 digits and refuses 39', () => {
    const s38 = `1${'0'.repeat(37)}`;
    expect(parseScale(s38, 'baseTokenNativeScale')).toBe(10n ** 37n);
    expect(parseScale('9'.repeat(38), 'x')).toBe(10n ** 38n - 1n);
    expect(errorOf(() => parseScale(`1${'0'.repeat(38)}`, 'x')).code).toBe('E_SCALE_FORMAT');
  });
  it('refuses zero, negative and non-integer scales', () => {
    for (const bad of ['0', '-100', '1e6', '10.0', '', ' 10'])
      expect(errorOf(() => parseScale(bad, 'quoteTokenInternalScale')).code).toBe('E_SCALE_FORMAT');
    expect(errorOf(() => parseScale(1000, 'x')).code).toBe('E_SCALE_FORMAT');
  });
});

describe('scaling', () => {
  it('scales exactly', () => {
    expect(toScaled(new Decimal('101.25'), 10_000n, 'price')).toBe(1_012_500n);
    expect(toScaled(new Decimal('1.5'), 10n ** 18n, 'qty')).toBe(1_500_000_000_000_000_000n);
  });
  it('refuses a product that is not an integer, naming the value and the scale, never rounding', () => {
    const e = errorOf(() => toScaled(new Decimal('101.255'), 100n, 'price at quoteTokenInternalScale'));
    expect(e.code).toBe('E_NOT_EXACT');
    expect(e.message).toContain('101.255');
    expect(e.message).toContain('100');
    expect(e.details).toMatchObject({ value: '101.255', scale: '100', product: '10125.5' });
  });
  it('is off by one unit exactly at the edge of the scale', () => {
    expect(toScaled(new Decimal('0.0001'), 10_000n, 'q')).toBe(1n);
    expect(errorOf(() => toScaled(new Decimal('0.00001'), 10_000n, 'q')).code).toBe('E_NOT_EXACT');
  });
  it('handles 38-digit scales without losing precision', () => {
    const scale = 10n ** 37n;
    const value = new Decimal('123456789.0123456789012345678901234567');
    expect(toScaled(value, scale, 'v')).toBe(1234567890123456789012345678901234567000000000n);
    expect(fromScaled(1234567890123456789012345678901234567000000000n, scale).eq(value)).toBe(true);
  });
  it('keeps order fields inside uint64', () => {
    const scales = { baseInternal: 10n ** 18n, quoteInternal: 10n ** 18n, baseNative: 1n, quoteNative: 1n };
    expect(quantityToRaw(new Decimal('18'), scales)).toBe(18n * 10n ** 18n);
    expect(errorOf(() => quantityToRaw(new Decimal('19'), scales)).code).toBe('E_INTEGER_RANGE');
    expect(errorOf(() => priceToRaw(new Decimal('-1'), scales)).code).toBe('E_INTEGER_RANGE');
    expect(assertUint(UINT64_MAX, 64, 'x')).toBe(UINT64_MAX);
  });
  it('refuses a division that has no exact decimal form', () => {
    expect(errorOf(() => fromScaled(1n, 3n)).code).toBe('E_NOT_EXACT');
  });
  it('divides by a power of ten exactly as the general division does, negative and below one included', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 30 }), (raw, exp) => {
        const scale = 10n ** BigInt(exp);
        expect(fromScaled(raw, scale).eq(new Decimal(raw.toString()).div(scale.toString()))).toBe(true);
      }),
    );
    expect(fromScaled(-1234n, 100n).toFixed()).toBe('-12.34');
    expect(fromScaled(5n, 1000n).toFixed()).toBe('0.005');
    expect(fromScaled(6n, 20n).toFixed()).toBe('0.3');
  });
  it('round-trips every integer through any power-of-ten scale', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 40n }), fc.integer({ min: 0, max: 37 }), (raw, exp) => {
        const scale = 10n ** BigInt(exp);
        expect(toScaled(fromScaled(raw, scale), scale, 'v')).toBe(raw);
      }),
    );
  });
});
