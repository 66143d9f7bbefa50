/**
 * The venue's integer settlement rules (the matching rules of the sandbox, which follow the specification's
 * "Price execution" and "Approvals"), as the engine needs them to explain token movements: values rounded in
 * the participants' favour, commissions rounded up, and the quote a pre-funded resting buy keeps locked.
 */
import { DltError } from '../../../core/errors.ts';
import { commissionOf, prefundedBuyLock, valueNative } from '../../../core/money.ts';
import type { Side } from '../../../core/order-terms.ts';
import type { PairScales } from '../../../core/units.ts';

/** Base quantity (internal units) in native units; an inexact conversion is an error, never rounded. */
export function baseNative(quantity: bigint, scales: PairScales): bigint {
  const num = quantity * scales.baseNative;
  if (num % scales.baseInternal !== 0n) {
    throw new DltError('E_NOT_EXACT', `base quantity ${quantity} has no exact native amount`, {
      details: {
        quantity: quantity.toString(),
        baseInternal: scales.baseInternal.toString(),
        baseNative: scales.baseNative.toString(),
      },
    });
  }
  return num / scales.baseInternal;
}

/** The inverse of `baseNative`, or null when the native amount is not a whole internal quantity. */
export function baseInternal(native: bigint, scales: PairScales): bigint | null {
  const num = native * scales.baseInternal;
  return num % scales.baseNative === 0n ? num / scales.baseNative : null;
}

export const floorValue = (price: bigint, quantity: bigint, scales: PairScales): bigint =>
  valueNative(price, quantity, scales, 'down');
export const ceilValue = (price: bigint, quantity: bigint, scales: PairScales): bigint =>
  valueNative(price, quantity, scales, 'up');
export const lockFor = (limit: bigint, quantity: bigint, rateBps: number, scales: PairScales): bigint =>
  prefundedBuyLock(limit, quantity, scales, rateBps);
export { commissionOf };

/** What a resting order of ours holds in the book: a sell its base, a pre-funded buy its value and commission. */
export function lockOf(
  order: { readonly side: Side; readonly price: bigint; readonly remaining: bigint; readonly lockRateBps: number },
  scales: PairScales,
  prefunded: boolean,
): { base: bigint; quote: bigint } {
  if (!prefunded || order.remaining <= 0n) return { base: 0n, quote: 0n };
  return order.side === 'sell'
    ? { base: baseNative(order.remaining, scales), quote: 0n }
    : { base: 0n, quote: lockFor(order.price, order.remaining, order.lockRateBps, scales) };
}

export const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
