/** Integer amount rules of the sandbox order books (rules.md, "Notation" and "Settlement"). */
import { DltError } from '../../core/errors.ts';
import { commissionOf, valueNative } from '../../core/money.ts';
import type { PairScales } from '../../core/units.ts';

export { commissionOf };

/** floor(P * q * qN / (qI * bI)): what a buyer pays. */
export function floorValue(price: bigint, quantity: bigint, scales: PairScales): bigint {
  return valueNative(price, quantity, scales, 'down');
}

/** ceil(P * q * qN / (qI * bI)): what a seller is credited. */
export function ceilValue(price: bigint, quantity: bigint, scales: PairScales): bigint {
  return valueNative(price, quantity, scales, 'up');
}

/** Base quantity in native units; sandbox pairs have bN a multiple of bI, so this is exact. */
export function baseNative(quantity: bigint, scales: PairScales): bigint {
  if (scales.baseNative % scales.baseInternal !== 0n) {
    throw new DltError(
      'E_SCALE_FORMAT',
      'sandbox pairs need baseTokenNativeScale to be a multiple of baseTokenInternalScale',
      {
        details: { baseNative: scales.baseNative.toString(), baseInternal: scales.baseInternal.toString() },
      },
    );
  }
  return quantity * (scales.baseNative / scales.baseInternal);
}

/** Quote a pre-funded resting buy of `quantity` at `limit` holds: floorValue + its commission at `rateBps`. */
export function lockFor(limit: bigint, quantity: bigint, rateBps: number, scales: PairScales): bigint {
  const value = floorValue(limit, quantity, scales);
  return value + commissionOf(value, rateBps);
}

/** Sign of exact(P, q) - nativeAmount, computed without rounding. */
export function compareValue(price: bigint, quantity: bigint, nativeAmount: bigint, scales: PairScales): -1 | 0 | 1 {
  const left = price * quantity * scales.quoteNative;
  const right = nativeAmount * scales.quoteInternal * scales.baseInternal;
  return left < right ? -1 : left > right ? 1 : 0;
}

export const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);
export const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
export const abs = (a: bigint): bigint => (a < 0n ? -a : a);
