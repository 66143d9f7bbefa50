/**
 * The sandbox order book's matching engine (rules.md). Used by the chain B emulator as its order book and by
 * the fixture tests as the reference the Solidity order book is held to.
 */
import { EXECUTION_CONDITION_CODE, ORDER_TYPE_CODE, SIDE_CODE, type Side } from '../../core/order-terms.ts';
import { baseNative, lockFor, min } from './amounts.ts';
import { insertResting, removeResting, sideOf } from './book.ts';
import { cancelResting } from './cancel.ts';
import { checkAccess, checkOrder, volatilityReason } from './checks.ts';
import { settleMatch, type Fill } from './settle.ts';
import type { Book, BookContext, BookEvent, IncomingOrder, RestingOrder, SubmitResult } from './types.ts';

export { bestBidOffer, bestFiftyOffers, cloneBook, createBook, setPhase, setStaticReferencePrice } from './book.ts';
export { cancelOrder, clearOrders } from './cancel.ts';

const DAY = 86_400n;
const DEFAULT_LIFETIME_DAYS = 90;

function crosses(resting: RestingOrder, side: Side, order: IncomingOrder): boolean {
  if (order.type === 'market') return true;
  return side === 'buy' ? resting.price <= order.price : resting.price >= order.price;
}

/** No-prefund books: can the resting order's wallet fund `fill` on top of what it already owes in this match? */
function canFund(book: Book, ctx: BookContext, r: RestingOrder, fill: bigint, owed: Map<string, bigint>): boolean {
  const p = book.params;
  const token = r.side === 'buy' ? 'quote' : 'base';
  const need = r.side === 'buy' ? lockFor(r.price, fill, r.lockRateBps, p.scales) : baseNative(fill, p.scales);
  const key = `${token}:${r.wallet}`;
  const total = (owed.get(key) ?? 0n) + need;
  const ok = ctx.ledger.balance(token, r.wallet) >= total && ctx.ledger.allowance(token, r.wallet, p.self) >= total;
  if (ok) owed.set(key, total);
  return ok;
}

/** One incoming order being matched: what every step of `submitOrder` reads, and the events it appends to. */
interface Submission {
  readonly book: Book;
  readonly ctx: BookContext;
  readonly wallet: string;
  readonly side: Side;
  readonly order: IncomingOrder;
  readonly orderId: bigint;
  readonly events: BookEvent[];
}

/** The crossing resting orders collected for an incoming order and the quantity they cover. */
interface Collection {
  readonly fills: readonly Fill[];
  /** Collection stopped at `maximumMatches` while quantity was still wanted. */
  readonly truncated: boolean;
  readonly collected: bigint;
}

function receivedEvent(wallet: string, orderId: bigint, side: Side, order: IncomingOrder): BookEvent {
  return {
    type: 'OrderReceived',
    client: wallet,
    orderId,
    quantity: order.quantity,
    price: order.price,
    side: SIDE_CODE[side],
    reportingData: order.reportingData,
    crossIdentifier: order.crossId,
    orderType: ORDER_TYPE_CODE[order.type],
    executionCondition: EXECUTION_CONDITION_CODE[order.condition],
  };
}

function reject(submission: Submission, reason: number, quantityNotExecuted: bigint): void {
  submission.events.push({
    type: 'OrderRejected',
    client: submission.wallet,
    orderId: submission.orderId,
    reason,
    quantityNotExecuted,
    side: SIDE_CODE[submission.side],
    price: submission.order.price,
  });
}

/**
 * 1. Collects the crossing resting orders, best price then oldest, up to maximumMatches. In no-prefund books a
 * resting order whose wallet cannot fund its fill is cancelled on the spot and skipped.
 */
function collect(submission: Submission): Collection {
  const { book, ctx, side, order } = submission;
  const p = book.params;
  const opposite = sideOf(book, side === 'buy' ? 'sell' : 'buy');
  const fills: Fill[] = [];
  const owed = new Map<string, bigint>();
  let need = order.quantity;
  let truncated = false;
  let at = 0;
  while (need > 0n && at < opposite.length) {
    const resting = opposite[at] as RestingOrder;
    if (!crosses(resting, side, order)) break;
    if (p.maximumMatches > 0 && fills.length >= p.maximumMatches) {
      truncated = true;
      break;
    }
    const fill = min(resting.remaining, need);
    if (!p.prefunded && !canFund(book, ctx, resting, fill, owed)) {
      submission.events.push(cancelResting(book, ctx, resting, 'ByContract'));
      continue;
    }
    fills.push({ resting, quantity: fill });
    need -= fill;
    at++;
  }
  return { fills, truncated, collected: order.quantity - need };
}

/** 2-5. The reason the whole order is rejected, null when it goes on to execute or rest. */
function rejectionInFull(submission: Submission, { fills, collected }: Collection): number | null {
  const { wallet, order } = submission;
  if (fills.some((f) => f.resting.wallet === wallet && f.resting.crossId === order.crossId)) return 1;
  if ((order.condition === 'boc' && fills.length > 0) || (order.condition === 'fok' && collected < order.quantity))
    return 8;
  if (fills.length === 0 && (order.type === 'market' || order.condition === 'ioc' || order.condition === 'fok'))
    return 8;
  return null;
}

/** 6. The one execution price: the last price, kept between the last collected resting price and the limit. */
function executionPrice(submission: Submission, fills: readonly Fill[]): bigint {
  const { book, side, order } = submission;
  const last = fills[fills.length - 1] as Fill;
  const lo = side === 'buy' ? last.resting.price : order.type === 'market' ? 0n : order.price;
  const hi = side === 'buy' ? (order.type === 'market' ? null : order.price) : last.resting.price;
  const price = book.lastPrice < lo ? lo : book.lastPrice;
  return hi !== null && price > hi ? hi : price;
}

/** The rates of the incoming order's wallet: as taker now, and as maker for what rests. */
interface Rates {
  readonly taker: number;
  readonly maker: number;
}

/** 8. Funds, fills and settles the collected orders at `price`, and reports the trade. */
function execute(submission: Submission, collection: Collection, price: bigint, rates: Rates, restQty: bigint): void {
  const { book, ctx, wallet, side, order } = submission;
  const plan = settleMatch(book.params, collection.fills, price, side, rates.taker);
  fund(book, ctx, wallet, side, plan.takerPays, restQty, order.price, rates.maker);
  plan.execute(ctx, wallet);
  for (const f of collection.fills) {
    f.resting.remaining -= f.quantity;
    if (f.resting.remaining === 0n) removeResting(book, f.resting.side, f.resting.id);
  }
  book.lastPrice = price;
  submission.events.push({
    type: side === 'buy' ? 'NewBuyInitiatedTrade' : 'NewSellInitiatedTrade',
    client: wallet,
    orderId: submission.orderId,
    quantity: collection.collected,
    price,
  });
}

/** 9. Puts the remainder of a limit order on the book at its limit, with the wallet's maker rate. */
function rest(submission: Submission, remainder: bigint, makerRate: number): void {
  const { book, ctx, wallet, side, order, orderId } = submission;
  const lifetime = BigInt(order.lifetimeDays === 0 ? DEFAULT_LIFETIME_DAYS : order.lifetimeDays);
  insertResting(book, {
    id: orderId,
    wallet,
    side,
    remaining: remainder,
    price: order.price,
    crossId: order.crossId,
    lockRateBps: makerRate,
    validity: order.validity,
    expiresAt: order.validity === 'gtd' ? ctx.nowSeconds + lifetime * DAY : null,
  });
  submission.events.push({
    type: side === 'buy' ? 'NewBuyOrder' : 'NewSellOrder',
    client: wallet,
    orderId,
    quantity: remainder,
    price: order.price,
  });
}

/** Matches an incoming order against the book (rules.md, "Matching an incoming order X", steps 1-9). */
export function submitOrder(
  book: Book,
  ctx: BookContext,
  wallet: string,
  side: Side,
  decode: () => IncomingOrder,
): SubmitResult {
  const client = checkAccess(book, ctx, wallet, side);
  const order = decode();
  checkOrder(book, order);
  const p = book.params;
  const orderId = book.nextOrderId++;
  const events = [receivedEvent(wallet, orderId, side, order)];
  const submission: Submission = { book, ctx, wallet, side, order, orderId, events };
  const collection = collect(submission);
  const inFull = rejectionInFull(submission, collection);
  if (inFull !== null) {
    reject(submission, inFull, order.quantity);
    return { orderId, events };
  }

  const rates: Rates = {
    taker: client.isMarketMaker ? p.marketMakerBps : p.takerBps,
    maker: client.isMarketMaker ? p.marketMakerBps : p.makerBps,
  };
  const remainder = order.quantity - collection.collected;
  const rests = remainder > 0n && !collection.truncated && order.type === 'limit' && order.condition !== 'ioc';
  if (collection.fills.length === 0) {
    fund(book, ctx, wallet, side, { base: 0n, quote: 0n }, remainder, order.price, rates.maker);
  } else {
    const price = executionPrice(submission, collection.fills);
    // 7. The volatility controls.
    const reason = volatilityReason(book, price);
    if (reason !== 0) {
      book.phase = 'automaticHalt';
      book.haltCount++;
      reject(submission, reason, order.quantity);
      return { orderId, events };
    }
    execute(submission, collection, price, rates, rests ? remainder : 0n);
  }

  if (remainder > 0n) {
    if (collection.truncated) reject(submission, 2, remainder);
    else if (!rests) reject(submission, 7, remainder);
    else rest(submission, remainder, rates.maker);
  }
  return { orderId, events };
}

/**
 * Takes the incoming order's tokens: a sell gives the base it sells now plus, in pre-funded books, the base that
 * will rest; a buy pays for what it takes now plus, in pre-funded books, the lock of what will rest.
 */
function fund(
  book: Book,
  ctx: BookContext,
  wallet: string,
  side: Side,
  takerPays: { base: bigint; quote: bigint },
  restQty: bigint,
  limit: bigint,
  makerRate: number,
): void {
  const p = book.params;
  const restLock =
    p.prefunded && restQty > 0n
      ? side === 'buy'
        ? lockFor(limit, restQty, makerRate, p.scales)
        : baseNative(restQty, p.scales)
      : 0n;
  const base = takerPays.base + (side === 'sell' ? restLock : 0n);
  const quote = takerPays.quote + (side === 'buy' ? restLock : 0n);
  if (base > 0n) ctx.ledger.transferFrom('base', p.self, wallet, p.self, base);
  if (quote > 0n) ctx.ledger.transferFrom('quote', p.self, wallet, p.self, quote);
}
