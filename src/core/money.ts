/**
 * Approval, commission and settlement arithmetic in native token units. Approvals follow the specification's
 * "Approvals" section and are never derived from the scaled order price (`priceRaw`).
 */
import { Decimal, formatDecimal } from './decimal.ts';
import type { Side } from './order-terms.ts';
import type { Commissions } from './rules.ts';
import { baseToNative, ceilDiv, ceilToBigInt, type PairScales } from './units.ts';

const BPS = 10_000n;

/** Commission on a native value: ceil(value * bps / 10000). */
export function commissionOf(valueNative: bigint, bps: number | bigint): bigint {
  return ceilDiv(valueNative * BigInt(bps), BPS);
}

/** The rate a wallet pays when its order may either rest or match at once. */
export function approvalRateBps(commissions: Commissions, marketMaker: boolean): number {
  return marketMaker ? commissions.marketMakerBps : Math.max(commissions.makerBps, commissions.takerBps);
}

/** The rate a wallet pays in one role (market makers pay their own rate in both roles). */
export function roleRateBps(commissions: Commissions, role: 'maker' | 'taker', marketMaker: boolean): number {
  if (marketMaker) return commissions.marketMakerBps;
  return role === 'maker' ? commissions.makerBps : commissions.takerBps;
}

export interface ApprovalNeed {
  /** Which token the order book must be allowed to take. */
  readonly token: 'base' | 'quote';
  /** Native units. */
  readonly amount: bigint;
  /** Quote orders: notional in native units before commission (rounded up); base orders: the quantity. */
  readonly principal: bigint;
  readonly commission: bigint;
  readonly rateBps: number;
}

/**
 * What an order needs approved before it is sent.
 * Sell: base quantity in native units (exact, or an error).
 * Buy: notional = qty * price * quoteNativeScale, commission = notional * rate rounded up, required = notional +
 * commission, rate = max(maker, taker), or the market-maker rate for market-maker wallets. A notional that is not
 * a whole number of native units is rounded up: an approval is a ceiling, and rounding it down could fail.
 */
export function approvalFor(
  side: Side,
  quantity: Decimal,
  limitPrice: Decimal,
  scales: PairScales,
  commissions: Commissions,
  marketMaker: boolean,
): ApprovalNeed {
  if (side === 'sell') {
    const amount = baseToNative(quantity, scales);
    return { token: 'base', amount, principal: amount, commission: 0n, rateBps: 0 };
  }
  const rateBps = approvalRateBps(commissions, marketMaker);
  const exactNotional = quantity.mul(limitPrice).mul(scales.quoteNative.toString());
  const notional = ceilToBigInt(exactNotional);
  const commission = ceilToBigInt(exactNotional.mul(rateBps).div(10_000));
  return { token: 'quote', amount: notional + commission, principal: notional, commission, rateBps };
}

/** Exact value P*Q of scaled terms in native quote units, as numerator/denominator. */
function valueFraction(priceRaw: bigint, quantityRaw: bigint, scales: PairScales): { num: bigint; den: bigint } {
  return { num: priceRaw * quantityRaw * scales.quoteNative, den: scales.quoteInternal * scales.baseInternal };
}

/** Value of raw terms in native quote units, rounded down (what a buyer pays) or up (what a seller is owed). */
export function valueNative(
  priceRaw: bigint,
  quantityRaw: bigint,
  scales: PairScales,
  rounding: 'down' | 'up',
): bigint {
  const { num, den } = valueFraction(priceRaw, quantityRaw, scales);
  return rounding === 'down' ? num / den : ceilDiv(num, den);
}

export interface Settlement {
  /** Quote units the buyer pays for the tokens, before commission. */
  readonly buyerValue: bigint;
  /** Quote units the seller is credited, before commission. */
  readonly sellerValue: bigint;
  readonly buyerCommission: bigint;
  readonly sellerCommission: bigint;
  /** What the commission wallet receives: both commissions less the rounding given to participants. */
  readonly feeWallet: bigint;
}

/**
 * One execution of quantity Q at price P. value = rounded(P * Q): the buyer pays it rounded down and the seller
 * receives it rounded up, so rounding favours both participants by at most one unit at the cost of the
 * commission wallet (never more than the commissions collected).
 */
export function settle(
  priceRaw: bigint,
  quantityRaw: bigint,
  scales: PairScales,
  buyerBps: number,
  sellerBps: number,
): Settlement {
  const buyerValue = valueNative(priceRaw, quantityRaw, scales, 'down');
  const buyerCommission = commissionOf(buyerValue, buyerBps);
  let sellerValue = valueNative(priceRaw, quantityRaw, scales, 'up');
  let sellerCommission = commissionOf(sellerValue, sellerBps);
  if (buyerCommission + sellerCommission < sellerValue - buyerValue) {
    sellerValue = buyerValue;
    sellerCommission = commissionOf(sellerValue, sellerBps);
  }
  const feeWallet = buyerCommission + sellerCommission - (sellerValue - buyerValue);
  return { buyerValue, sellerValue, buyerCommission, sellerCommission, feeWallet };
}

/** Quote units a pre-funded resting buy locks for `quantityRaw` at its limit: value + commission at `bps`. */
export function prefundedBuyLock(limitRaw: bigint, quantityRaw: bigint, scales: PairScales, bps: number): bigint {
  const value = valueNative(limitRaw, quantityRaw, scales, 'down');
  return value + commissionOf(value, bps);
}

/**
 * The specification's reimbursement of a pre-funded resting buy that executes below its limit:
 * (limit - executionPrice) * Q * (1 + makerCommission), in native quote units (human formula, for checks).
 */
export function reimbursementFormula(
  limit: Decimal,
  executionPrice: Decimal,
  quantity: Decimal,
  makerBps: number,
  scales: PairScales,
): Decimal {
  return limit
    .sub(executionPrice)
    .mul(quantity)
    .mul(new Decimal(1).add(new Decimal(makerBps).div(10_000)))
    .mul(scales.quoteNative.toString());
}

export function describeApproval(need: ApprovalNeed, scales: PairScales): string {
  const unit = need.token === 'base' ? scales.baseNative : scales.quoteNative;
  return `${need.token} ${need.amount} native units (${formatDecimal(new Decimal(need.amount.toString()).div(unit.toString()))})`;
}
