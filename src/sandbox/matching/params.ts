/**
 * An order book's raw parameters from the core's rules of its pair: every value through the core's unit
 * conversions, so the book enforces exactly what the bot checks, and a value that does not scale exactly is
 * an error, never rounded.
 */
import { DltError } from '../../core/errors.ts';
import type { PairRules } from '../../core/rules.ts';
import { priceToRaw, quantityToRaw, quoteToNative } from '../../core/units.ts';
import type { BookParams, TickRow } from './types.ts';

export function bookParamsOf(
  rules: PairRules,
  accounts: { readonly self: string; readonly commissionWallet: string; readonly prefunded?: boolean },
): BookParams {
  const s = rules.scales;
  if (rules.staticReferencePrice === null) {
    throw new DltError('E_PAIR_RULES_MISSING', `pair ${rules.pairId}: an order book needs a staticReferencePrice`, {
      details: { pairId: rules.pairId, missing: ['staticReferencePrice'] },
    });
  }
  const tickTable: TickRow[] =
    rules.tick.kind === 'fixed'
      ? [{ from: 0n, tick: priceToRaw(rules.tick.tick, s) }]
      : rules.tick.rows.map((r) => ({ from: priceToRaw(r.from, s), tick: priceToRaw(r.tick, s) }));
  return {
    self: accounts.self,
    commissionWallet: accounts.commissionWallet,
    scales: s,
    makerBps: rules.commissions.makerBps,
    takerBps: rules.commissions.takerBps,
    marketMakerBps: rules.commissions.marketMakerBps,
    maximumMatches: rules.maximumMatches,
    minimumSize: quantityToRaw(rules.minimumSize, s),
    sizeIncrement: quantityToRaw(rules.sizeIncrement, s),
    tickTable,
    priceCollarBps: Number(rules.priceCollarBps),
    staticReferencePrice: priceToRaw(rules.staticReferencePrice, s),
    staticThresholdBps: rules.staticThresholdBps,
    dynamicThresholdBps: rules.dynamicThresholdBps,
    minimumOrderValue: quoteToNative(rules.minimumOrderValue, s),
    maximumOrderValue: quoteToNative(rules.maximumOrderValue, s),
    prefunded: accounts.prefunded ?? true,
  };
}
