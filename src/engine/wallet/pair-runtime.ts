/**
 * What the engine knows about one pair while it trades it: the binding the adapter uses, the order book's own
 * configuration (funding mode, commissions), and the derived facts fill attribution needs (size step, tick
 * grid, the range of execution prices the venue's controls allow).
 */
import type { OnChainPairState, PairBinding } from '../../chains/types.ts';
import { Decimal } from '../../core/decimal.ts';
import { ZERO_REPORTING, type ReportingData } from '../../core/encoding/reporting.ts';
import { isOnTick } from '../../core/ticks.ts';
import { priceFromRaw, priceToRaw, quantityToRaw } from '../../core/units.ts';
import { gcd } from './fills/amounts.ts';

export interface PairRuntime {
  readonly binding: PairBinding;
  readonly prefunded: boolean;
  readonly makerBps: number;
  readonly takerBps: number;
  readonly marketMakerBps: number;
  /** Every order size is a multiple of this, raw. */
  readonly sizeStep: bigint;
  readonly onTick: (price: bigint) => boolean;
  readonly priceBounds: { readonly lo: bigint; readonly hi: bigint } | undefined;
  /** The reporting values every placement on the pair carries (owner and decision identifiers). */
  readonly reporting: ReportingData;
}

const BPS = new Decimal(10_000);

export function pairRuntime(
  binding: PairBinding,
  state: OnChainPairState,
  reporting: ReportingData = ZERO_REPORTING,
): PairRuntime {
  const r = binding.rules;
  const s = r.scales;
  const sizeStep = gcd(quantityToRaw(r.minimumSize, s), quantityToRaw(r.sizeIncrement, s));
  let priceBounds: PairRuntime['priceBounds'];
  const ref = r.staticReferencePrice;
  // Every order's limit is inside the collar and every execution inside the static threshold: execution
  // prices are bounded by the narrower of the two bands that are switched on.
  const widths = [
    r.priceCollarBps > 0n ? new Decimal(r.priceCollarBps.toString()) : null,
    r.staticThresholdBps > 0 ? new Decimal(r.staticThresholdBps) : null,
  ].filter((x): x is Decimal => x !== null);
  if (ref !== null && widths.length > 0) {
    const w = Decimal.min(...widths);
    const lo = ref.mul(BPS.sub(w)).div(BPS);
    const hi = ref.mul(BPS.add(w)).div(BPS);
    priceBounds = {
      lo: priceToRaw(lo.mul(s.quoteInternal.toString()).floor().div(s.quoteInternal.toString()), s),
      hi: priceToRaw(hi.mul(s.quoteInternal.toString()).ceil().div(s.quoteInternal.toString()), s),
    };
  }
  return {
    binding,
    reporting,
    prefunded: state.prefunded,
    makerBps: state.makerBps,
    takerBps: state.takerBps,
    marketMakerBps: state.marketMakerBps,
    sizeStep,
    onTick: (p) => p > 0n && isOnTick(priceFromRaw(p, s), r.tick),
    priceBounds: priceBounds !== undefined && priceBounds.lo < 1n ? { lo: 1n, hi: priceBounds.hi } : priceBounds,
  };
}

/** The maker rate an order of this wallet is placed with (market makers pay their own rate in both roles). */
export function makerRateOf(p: PairRuntime, marketMaker: boolean): number {
  return marketMaker ? p.marketMakerBps : p.makerBps;
}
