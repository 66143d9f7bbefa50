/**
 * Settlement of one match at one price (rules.md, "Settlement"): values rounded in the participants' favour,
 * commissions, the pre-funded lock accounting of resting buys, and the commission wallet's share.
 */
import type { Side } from '../../core/order-terms.ts';
import { baseNative, ceilValue, commissionOf, floorValue, lockFor, min } from './amounts.ts';
import type { BookContext, BookParams, RestingOrder } from './types.ts';

export interface Fill {
  readonly resting: RestingOrder;
  readonly quantity: bigint;
}

export interface SettlementPlan {
  /** What the incoming order must hand over for the executed part (native units). */
  readonly takerPays: { readonly base: bigint; readonly quote: bigint };
  /** Pays everyone once the incoming order's tokens are in the book. Call before reducing `remaining`. */
  execute(ctx: BookContext, taker: string): void;
}

interface Priced {
  readonly fill: Fill;
  readonly bv: bigint;
  readonly sv: bigint;
  /** Maker commission of the resting order. */
  readonly mc: bigint;
  /** Pre-funded resting buys: what the fill releases from the lock, what it pays from it, and the unit it may lack. */
  readonly released: bigint;
  readonly paid: bigint;
  readonly shortfall: bigint;
}

function plan(fills: readonly Fill[], p: BookParams, at: bigint, side: Side, takerRate: number, subsidise: boolean) {
  const priced: Priced[] = fills.map((fill) => {
    const r = fill.resting;
    const bv = floorValue(at, fill.quantity, p.scales);
    const sv = subsidise ? ceilValue(at, fill.quantity, p.scales) : bv;
    // The resting order is the maker: it buys when the incoming order sells.
    const mc = commissionOf(side === 'sell' ? bv : sv, r.lockRateBps);
    if (side === 'buy' || !p.prefunded) return { fill, bv, sv, mc, released: 0n, paid: bv + mc, shortfall: 0n };
    // The lock always equals lockFor(limit, remaining): a fill releases the difference, which can be one unit
    // short of what the fill owes because the lock's commission was rounded on the whole quantity.
    const released =
      lockFor(r.price, r.remaining, r.lockRateBps, p.scales) -
      lockFor(r.price, r.remaining - fill.quantity, r.lockRateBps, p.scales);
    const paid = min(bv + mc, released);
    return { fill, bv, sv, mc, released, paid, shortfall: bv + mc - paid };
  });
  const sum = (f: (x: Priced) => bigint) => priced.reduce((s, x) => s + f(x), 0n);
  const tc = commissionOf(
    sum((x) => (side === 'buy' ? x.bv : x.sv)),
    takerRate,
  );
  return { priced, tc, subsidy: sum((x) => x.sv - x.bv), makerNet: sum((x) => x.mc - x.shortfall) };
}

export function settleMatch(
  p: BookParams,
  fills: readonly Fill[],
  at: bigint,
  side: Side,
  takerRate: number,
): SettlementPlan {
  let s = plan(fills, p, at, side, takerRate, true);
  // Rounding is given away only while the commissions, less any lock shortfall, can pay for it.
  if (s.tc + s.makerNet < s.subsidy) s = plan(fills, p, at, side, takerRate, false);
  const { priced, tc, subsidy, makerNet } = s;
  const fee = tc + makerNet - subsidy;
  const matched = fills.reduce((n, f) => n + f.quantity, 0n);

  if (side === 'buy') {
    return {
      takerPays: { base: 0n, quote: priced.reduce((n, x) => n + x.bv, 0n) + tc },
      execute(ctx, taker) {
        for (const x of priced) {
          if (!p.prefunded)
            ctx.ledger.transferFrom(
              'base',
              p.self,
              x.fill.resting.wallet,
              p.self,
              baseNative(x.fill.quantity, p.scales),
            );
        }
        ctx.ledger.transfer('base', p.self, taker, baseNative(matched, p.scales));
        for (const x of priced) {
          if (x.sv - x.mc > 0n) ctx.ledger.transfer('quote', p.self, x.fill.resting.wallet, x.sv - x.mc);
        }
        if (fee > 0n) ctx.ledger.transfer('quote', p.self, p.commissionWallet, fee);
      },
    };
  }

  return {
    takerPays: { base: baseNative(matched, p.scales), quote: 0n },
    execute(ctx, taker) {
      for (const x of priced) {
        const r = x.fill.resting;
        ctx.ledger.transfer('base', p.self, r.wallet, baseNative(x.fill.quantity, p.scales));
        if (!p.prefunded) ctx.ledger.transferFrom('quote', p.self, r.wallet, p.self, x.paid);
        else if (x.released - x.paid > 0n) ctx.ledger.transfer('quote', p.self, r.wallet, x.released - x.paid);
      }
      const toTaker = priced.reduce((n, x) => n + x.sv, 0n) - tc;
      if (toTaker > 0n) ctx.ledger.transfer('quote', p.self, taker, toTaker);
      if (fee > 0n) ctx.ledger.transfer('quote', p.self, p.commissionWallet, fee);
    },
  };
}
