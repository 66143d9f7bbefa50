import * as fc from 'fast-check';
import { scValToNative, xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { read, scv, u128Of, u256Of } from '../../../../src/sandbox/wasm/scval.ts';

const viaSdk = (v: ReturnType<typeof scv.i128>) => scValToNative(xdr.ScVal.fromXdrObject(v)) as bigint;

describe('ScVal integers', () => {
  it('i128 values round-trip, including negatives, and the SDK reads the same number', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 127n), max: (1n << 127n) - 1n }), (v) => {
        expect(read.i128(scv.i128(v), 'v')).toBe(v);
        expect(viaSdk(scv.i128(v))).toBe(v);
      }),
    );
  });

  it('u128 and u256 values round-trip and match the SDK', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }), (v) => {
        expect(u256Of(scv.u256(v))).toBe(v);
        expect(viaSdk(scv.u256(v))).toBe(v);
        const low = v & ((1n << 128n) - 1n);
        expect(u128Of(scv.u128(low))).toBe(low);
      }),
    );
  });

  it('a value of the wrong type is the host error Error(Value, UnexpectedType)', () => {
    expect(() => read.u64(scv.u32(1), 'order_id')).toThrow(/Error\(Value, UnexpectedType\)/);
  });
});
