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
  readonly mc: bigint;
}

function price(fills: readonly Fill[], p: BookParams, at: bigint, side: Side, takerRate: number, subsidise: boolean) {
  const priced: Priced[] = fills.map((fill) => {
    const bv = floorValue(at, fill.quantity, p.scales);
    const sv = subsidise ? ceilValue(at, fill.quantity, p.scales) : bv;
    // The resting order is the maker: it buys when the incoming order sells.
    const mc = commissionOf(side === 'sell' ? bv : sv, fill.resting.lockRateBps);
    return { fill, bv, sv, mc };
  });
  const takerValue = priced.reduce((s, x) => s + (side === 'buy' ? x.bv : x.sv), 0n);
  const tc = commissionOf(takerValue, takerRate);
  const subsidy = priced.reduce((s, x) => s + (x.sv - x.bv), 0n);
  const makerCommissions = priced.reduce((s, x) => s + x.mc, 0n);
  return { priced, tc, subsidy, makerCommissions };
}

export function settleMatch(p: BookParams, fills: readonly Fill[], at: bigint, side: Side, takerRate: number): SettlementPlan {
  let s = price(fills, p, at, side, takerRate, true);
  // Rounding is given away only while the commissions can pay for it.
  if (s.tc + s.makerCommissions < s.subsidy) s = price(fills, p, at, side, takerRate, false);
  const { priced, tc, subsidy } = s;
  const matched = fills.reduce((n, f) => n + f.quantity, 0n);

  if (side === 'buy') {
    const quoteIn = priced.reduce((n, x) => n + x.bv, 0n) + tc;
    return {
      takerPays: { base: 0n, quote: quoteIn },
      execute(ctx, taker) {
        for (const x of priced) {
          if (!p.prefunded) ctx.ledger.transferFrom('base', p.self, x.fill.resting.wallet, p.self, baseNative(x.fill.quantity, p.scales));
        }
        ctx.ledger.transfer('base', p.self, taker, baseNative(matched, p.scales));
        for (const x of priced) {
          if (x.sv - x.mc > 0n) ctx.ledger.transfer('quote', p.self, x.fill.resting.wallet, x.sv - x.mc);
        }
        const fee = tc + s.makerCommissions - subsidy;
        if (fee > 0n) ctx.ledger.transfer('quote', p.self, p.commissionWallet, fee);
      },
    };
  }

  return {
    takerPays: { base: baseNative(matched, p.scales), quote: 0n },
    execute(ctx, taker) {
      let shortfall = 0n;
      for (const x of priced) {
        const r = x.fill.resting;
        ctx.ledger.transfer('base', p.self, r.wallet, baseNative(x.fill.quantity, p.scales));
        const owed = x.bv + x.mc;
        if (!p.prefunded) {
          ctx.ledger.transferFrom('quote', p.self, r.wallet, p.self, owed);
          continue;
        }
        // The lock always equals lockFor(limit, remaining): a fill releases the difference.
        const released = lockFor(r.price, r.remaining, r.lockRateBps, p.scales) - lockFor(r.price, r.remaining - x.fill.quantity, r.lockRateBps, p.scales);
        const paid = min(owed, released);
        shortfall += owed - paid;
        if (released - paid > 0n) ctx.ledger.transfer('quote', p.self, r.wallet, released - paid);
      }
      const toTaker = priced.reduce((n, x) => n + x.sv, 0n) - tc;
      if (toTaker > 0n) ctx.ledger.transfer('quote', p.self, taker, toTaker);
      const fee = tc + s.makerCommissions - shortfall - subsidy;
      if (fee > 0n) ctx.ledger.transfer('quote', p.self, p.commissionWallet, fee);
    },
  };
}
