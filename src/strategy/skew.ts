/**
 * Inventory skew: quotes lean towards a target base inventory, in price (the centre moves against the
 * position) and in size (the side that would add to the position shrinks), and hard bounds keep the
 * position within target +- maxInventory even if every quote of a side were filled.
 *
 * Deviation d = (base free + base locked) - target, in base units; u = d / maxInventory clamped to [-1, 1].
 */
import { Decimal } from '../core/decimal.ts';
import { BPS } from '../core/rules.ts';
import { show } from './show.ts';
import type { DesiredQuote, Inventory, QuoteReason, Side } from './types.ts';

export interface SkewParams {
  readonly targetInventory: Decimal;
  /** Positive, base units. */
  readonly maxInventory: Decimal;
  /** Price shift of the centre at full deviation (u = +-1), in basis points of the reference. */
  readonly priceSkewBps: number;
  /** Fraction of size removed from the side that adds to the position, at full deviation. */
  readonly sizeSkew: number;
}

const ONE = new Decimal(1);

/** Base inventory (free and locked in our sells) less the target, in base units. */
export function inventoryDeviation(inventory: Inventory, target: Decimal): Decimal {
  return inventory.base.free.add(inventory.base.locked).sub(target);
}

/** d / max clamped to [-1, 1]. */
export function skewRatio(deviation: Decimal, maxInventory: Decimal): Decimal {
  const u = deviation.div(maxInventory);
  return Decimal.max(-1, Decimal.min(1, u));
}

/** The centre moves down when long (cheaper asks, less eager bids) and up when short. */
export function skewedCentre(reference: Decimal, deviation: Decimal, params: SkewParams): Decimal {
  const u = skewRatio(deviation, params.maxInventory);
  return reference.mul(ONE.sub(u.mul(params.priceSkewBps).div(BPS)));
}

/** Long: bids shrink by sizeSkew * u; short: asks shrink by sizeSkew * |u|. The other side is unchanged. */
export function skewedSizes(quotes: readonly DesiredQuote[], deviation: Decimal, params: SkewParams): DesiredQuote[] {
  const u = skewRatio(deviation, params.maxInventory);
  const adding: Side | null = u.gt(0) ? 'buy' : u.lt(0) ? 'sell' : null;
  if (adding === null || params.sizeSkew === 0) return [...quotes];
  const factor = ONE.sub(u.abs().mul(params.sizeSkew));
  return quotes.map((q) => (q.side === adding ? { ...q, quantity: q.quantity.mul(factor) } : q));
}

/**
 * Hard bounds: the bids together never exceed maxInventory - d and the asks together never exceed
 * maxInventory + d, so a full fill of one side ends at most at target +- maxInventory. At d >= max no bid is
 * left, at d <= -max no ask. Levels are served from the centre outwards; what does not fit is dropped.
 */
export function applyInventoryBounds(
  quotes: readonly DesiredQuote[],
  deviation: Decimal,
  maxInventory: Decimal,
): { quotes: DesiredQuote[]; reasons: QuoteReason[] } {
  const room: Record<Side, Decimal> = { buy: maxInventory.sub(deviation), sell: maxInventory.add(deviation) };
  const out: DesiredQuote[] = [];
  const reasons: QuoteReason[] = [];
  for (const q of quotes.toSorted((a, b) => a.level - b.level)) {
    const left = room[q.side];
    if (left.lte(0)) {
      reasons.push({
        side: q.side,
        level: q.level,
        rule: 'inventory-bound',
        action: 'dropped',
        detail: `inventory deviation ${show(deviation)} leaves no room within maxInventory ${show(maxInventory)}`,
      });
      continue;
    }
    const quantity = Decimal.min(q.quantity, left);
    room[q.side] = left.sub(quantity);
    if (quantity.lt(q.quantity)) {
      reasons.push({
        side: q.side,
        level: q.level,
        rule: 'inventory-bound',
        action: 'adjusted',
        detail: `size ${show(q.quantity)} cut to ${show(quantity)} to stay within maxInventory ${show(maxInventory)}`,
      });
    }
    out.push({ ...q, quantity });
  }
  return { quotes: out, reasons };
}
