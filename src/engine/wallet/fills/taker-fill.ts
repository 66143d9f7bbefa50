/**
 * The fill of our own incoming order. Its trade event gives the matched quantity and the single execution
 * price; what the wallet paid or received for it is the transaction's net movement with the book once the
 * lock of the part that rests is taken out (the value of each resting order's fill is rounded on its own, so
 * the sum is not `P * m` rounded once). The base side must match `baseNative(m)` exactly.
 */
import type { Side } from '../../../core/order-terms.ts';
import type { PairScales } from '../../../core/units.ts';
import { baseNative, ceilValue, commissionOf, floorValue, lockOf } from './amounts.ts';
import type { PairFlows } from './flows.ts';

export interface TakerInput {
  readonly side: Side;
  readonly limit: bigint;
  readonly matched: bigint;
  readonly price: bigint;
  /** The part of the order that rests after matching (0 when none). */
  readonly rest: bigint;
  readonly prefunded: boolean;
  /** Maker rate the resting part is locked at. */
  readonly lockRateBps: number;
  readonly takerRateBps: number;
  readonly scales: PairScales;
  readonly flows: PairFlows;
}

export interface TakerFill {
  readonly baseDelta: bigint;
  readonly quoteDelta: bigint;
  readonly fee: bigint;
  /** False when the movements do not add up; the amounts are then the formula's and the caller raises an alert. */
  readonly consistent: boolean;
}

export function takerFill(i: TakerInput): TakerFill {
  const s = i.scales;
  const lock = lockOf({ side: i.side, price: i.limit, remaining: i.rest, lockRateBps: i.lockRateBps }, s, i.prefunded);
  const base = baseNative(i.matched, s);
  const expectedBase = i.side === 'buy' ? base : -base;
  const baseDelta = i.flows.baseIn + lock.base;
  const quoteDelta = i.flows.quoteIn + lock.quote;
  const value = i.side === 'buy' ? floorValue(i.price, i.matched, s) : ceilValue(i.price, i.matched, s);
  const plausible = i.side === 'buy' ? quoteDelta < 0n : quoteDelta >= 0n;
  if (baseDelta === expectedBase && plausible) {
    const fee = i.side === 'buy' ? -quoteDelta - value : value - quoteDelta;
    return { baseDelta, quoteDelta, fee: fee < 0n ? 0n : fee, consistent: true };
  }
  const fee = commissionOf(value, i.takerRateBps);
  return {
    baseDelta: expectedBase,
    quoteDelta: i.side === 'buy' ? -(value + fee) : value - fee,
    fee,
    consistent: false,
  };
}
