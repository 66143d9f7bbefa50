/**
 * The fee-aware minimum distance of a quote from the centre it was built around. A bid at c - h and an ask
 * at c + h that both fill earn 2h and pay the maker commission on both legs, m * (bid + ask) = 2 * c * m,
 * plus the chain cost of refreshing the level afterwards, spread over the quantity Q. So
 *
 *   h(Q) = c * m / 10000 + refreshCost / (2 * Q) + c * minSpreadBps / (2 * 10000)
 *
 * makes any such round trip earn at least minSpreadBps of the centre after costs. m is the maker rate, or
 * the market-maker rate for market-maker wallets (they pay it in both roles). The centre (the skewed
 * reference or the reservation price) is used rather than the raw reference so that a skew survives.
 */
import { Decimal } from '../core/decimal.ts';
import { roleRateBps } from '../core/money.ts';
import { BPS } from '../core/rules.ts';
import type { Commissions } from '../core/rules.ts';

export interface FeeFloorParams {
  readonly commissions: Commissions;
  readonly marketMaker: boolean;
  /** Quote units per refresh of a level. */
  readonly refreshCost: Decimal;
  readonly minSpreadBps: number;
}

const TWO = new Decimal(2);

/**
 * The terms of h(Q) that depend on the centre alone, for the last centre and parameters: a round asks for the
 * floor of each of its quotes around one centre (and again for a quote cut to a smaller size).
 */
let lastCentre: {
  readonly centre: Decimal;
  readonly params: FeeFloorParams;
  readonly commission: Decimal;
  readonly margin: Decimal;
} | null = null;

function centreTerms(centre: Decimal, params: FeeFloorParams): { commission: Decimal; margin: Decimal } {
  if (lastCentre !== null && lastCentre.centre === centre && lastCentre.params === params) return lastCentre;
  const makerBps = roleRateBps(params.commissions, 'maker', params.marketMaker);
  const commission = centre.mul(makerBps).div(BPS);
  const margin = centre.mul(params.minSpreadBps).div(BPS.mul(TWO));
  lastCentre = { centre, params, commission, margin };
  return lastCentre;
}

/** h(Q) above, in quote units per base unit. */
export function minimumHalfSpread(centre: Decimal, quantity: Decimal, params: FeeFloorParams): Decimal {
  const { commission, margin } = centreTerms(centre, params);
  const refresh = params.refreshCost.gt(0) ? params.refreshCost.div(TWO.mul(quantity)) : new Decimal(0);
  return commission.add(refresh).add(margin);
}

/** Whether a quote keeps at least h(Q) from the centre on its own side. */
export function clearsFeeFloor(
  side: 'buy' | 'sell',
  price: Decimal,
  quantity: Decimal,
  centre: Decimal,
  params: FeeFloorParams,
): boolean {
  const h = minimumHalfSpread(centre, quantity, params);
  return side === 'buy' ? centre.sub(price).gte(h) : price.sub(centre).gte(h);
}
