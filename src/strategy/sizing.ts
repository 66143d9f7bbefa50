/**
 * Order sizes and what they cost. A size is always `minimumSize + k * sizeIncrement` and is only ever rounded
 * down, so no step of conformance makes a quote larger than its model asked for.
 */
import { Decimal, quotientDown } from '../core/decimal.ts';
import { approvalFor } from '../core/money.ts';
import type { PairRules } from '../core/rules.ts';
import type { Side } from './types.ts';

/** The largest valid size not above `quantity`; null when even the minimum size is above it. */
export function roundSizeDown(
  quantity: Decimal,
  rules: Pick<PairRules, 'minimumSize' | 'sizeIncrement'>,
): Decimal | null {
  if (quantity.lt(rules.minimumSize)) return null;
  const steps = quantity.sub(rules.minimumSize).div(rules.sizeIncrement).floor();
  return rules.minimumSize.add(steps.mul(rules.sizeIncrement));
}

/**
 * What a quote commits: a sell its base quantity; a buy the quote amount the order book may take for it,
 * value plus commission at the approval rate, rounded up to the native unit exactly as the approval is
 * (`approvalFor` of the core). Resting buys lock the maker rate, so this errs on the safe side.
 */
export function quoteCost(
  side: Side,
  price: Decimal,
  quantity: Decimal,
  rules: Pick<PairRules, 'scales' | 'commissions'>,
  marketMaker: boolean,
): Decimal {
  if (side === 'sell') return quantity;
  const known = buyCosts.get(price);
  if (
    known !== undefined &&
    known.quantity === quantity &&
    known.scales === rules.scales &&
    known.commissions === rules.commissions &&
    known.marketMaker === marketMaker
  )
    return known.cost;
  const need = approvalFor('buy', quantity, price, rules.scales, rules.commissions, marketMaker);
  const cost = new Decimal(need.amount.toString()).div(rules.scales.quoteNative.toString());
  buyCosts.set(price, { quantity, scales: rules.scales, commissions: rules.commissions, marketMaker, cost });
  return cost;
}

/**
 * Each buy price's last cost, with what it was worked out from: a live order's price and size are the same
 * Decimals round after round (and a quote's through conformance and sequencing), and all of it is immutable.
 */
const buyCosts = new WeakMap<
  Decimal,
  {
    readonly quantity: Decimal;
    readonly scales: PairRules['scales'];
    readonly commissions: PairRules['commissions'];
    readonly marketMaker: boolean;
    readonly cost: Decimal;
  }
>();

/**
 * The largest valid size at `price` whose cost fits in `budget` (base units for sells, quote units for buys);
 * null when not even the minimum size does.
 */
export function largestFundedSize(
  side: Side,
  price: Decimal,
  budget: Decimal,
  rules: Pick<PairRules, 'minimumSize' | 'sizeIncrement' | 'scales' | 'commissions'>,
  marketMaker: boolean,
): Decimal | null {
  if (budget.lte(0)) return null;
  const rateBps = marketMaker
    ? rules.commissions.marketMakerBps
    : Math.max(rules.commissions.makerBps, rules.commissions.takerBps);
  const estimate = side === 'sell' ? budget : budget.div(price.mul(new Decimal(10_000).add(rateBps).div(10_000)));
  let size = roundSizeDown(estimate, rules);
  // Rounding the cost up to a native unit can push the estimate just over the budget: step down.
  while (size !== null && quoteCost(side, price, size, rules, marketMaker).gt(budget)) {
    size = roundSizeDown(size.sub(rules.sizeIncrement), rules);
  }
  return size;
}

/** The largest valid size whose value at `price` is at most `maximumValue`; null when none is. */
export function largestSizeWithinValue(
  price: Decimal,
  maximumValue: Decimal,
  rules: Pick<PairRules, 'minimumSize' | 'sizeIncrement'>,
): Decimal | null {
  return roundSizeDown(quotientDown(maximumValue, price), rules);
}
