/**
 * The sandbox order book's matching engine (rules.md). Used by the chain B emulator as its order book and by
 * the fixture tests as the reference the Solidity order book is held to.
 */
import { EXECUTION_CONDITION_CODE, ORDER_TYPE_CODE, SIDE_CODE, type Side } from '../../core/order-terms.ts';
import { baseNative, lockFor, min } from './amounts.ts';
import { insertResting, removeResting, sideOf } from './book.ts';
import { checkAccess, checkOrder, fail, volatilityReason } from './checks.ts';
import { settleMatch, type Fill } from './settle.ts';
import type { Book, BookContext, BookEvent, CancelBy, IncomingOrder, RestingOrder, SubmitResult } from './types.ts';

export { bestBidOffer, bestFiftyOffers, cloneBook, createBook, setPhase, setStaticReferencePrice } from './book.ts';

const DAY = 86_400n;
const DEFAULT_LIFETIME_DAYS = 90;
const CANCEL_CODE: Record<CancelBy, 0 | 1 | 2> = { ByParticipant: 0, ByAdmin: 1, ByContract: 2 };

function crosses(resting: RestingOrder, side: Side, order: IncomingOrder): boolean {
  if (order.type === 'market') return true;
  return side === 'buy' ? resting.price <= order.price : resting.price >= order.price;
}

/** Removes a resting order, returns its lock to the owner and describes the cancellation. */
function cancelResting(book: Book, ctx: BookContext, order: RestingOrder, by: CancelBy): BookEvent {
  removeResting(book, order.side, order.id);
  const p = book.params;
  const token = order.side === 'buy' ? 'quote' : 'base';
  if (p.prefunded) {
    const amount =
      order.side === 'buy'
        ? lockFor(order.price, order.remaining, order.lockRateBps, p.scales)
        : baseNative(order.remaining, p.scales);
    if (amount > 0n) ctx.ledger.transfer(token, p.self, order.wallet, amount);
  }
  return {
    type: 'CancelOrder',
    client: order.wallet,
    orderId: order.id,
    quantity: order.remaining,
    price: order.price,
    cancellationType: CANCEL_CODE[by],
    token,
    toAddress: order.wallet,
  };
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
  const events: BookEvent[] = [
    {
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
    },
  ];
  const reject = (reason: number, quantityNotExecuted: bigint) =>
    events.push({
      type: 'OrderRejected',
      client: wallet,
      orderId,
      reason,
      quantityNotExecuted,
      side: SIDE_CODE[side],
      price: order.price,
    });

  // 1. Collect crossing resting orders, best price then oldest, up to maximumMatches.
  const opposite = sideOf(book, side === 'buy' ? 'sell' : 'buy');
  const fills: Fill[] = [];
  const owed = new Map<string, bigint>();
  let need = order.quantity;
  let truncated = false;
  let at = 0;
  while (need > 0n && at < opposite.length) {
    const r = opposite[at] as RestingOrder;
    if (!crosses(r, side, order)) break;
    if (p.maximumMatches > 0 && fills.length >= p.maximumMatches) {
      truncated = true;
      break;
    }
    const fill = min(r.remaining, need);
    if (!p.prefunded && !canFund(book, ctx, r, fill, owed)) {
      events.push(cancelResting(book, ctx, r, 'ByContract'));
      continue;
    }
    fills.push({ resting: r, quantity: fill });
    need -= fill;
    at++;
  }
  const collected = order.quantity - need;

  // 2-5. Rejections in full.
  if (fills.some((f) => f.resting.wallet === wallet && f.resting.crossId === order.crossId)) {
    reject(1, order.quantity);
    return { orderId, events };
  }
  if ((order.condition === 'boc' && fills.length > 0) || (order.condition === 'fok' && collected < order.quantity)) {
    reject(8, order.quantity);
    return { orderId, events };
  }
  if (fills.length === 0 && (order.type === 'market' || order.condition === 'ioc' || order.condition === 'fok')) {
    reject(8, order.quantity);
    return { orderId, events };
  }

  const takerRate = client.isMarketMaker ? p.marketMakerBps : p.takerBps;
  const makerRate = client.isMarketMaker ? p.marketMakerBps : p.makerBps;
  const remainder = order.quantity - collected;
  const rests = remainder > 0n && !truncated && order.type === 'limit' && order.condition !== 'ioc';

  if (fills.length === 0) {
    fund(book, ctx, wallet, side, { base: 0n, quote: 0n }, remainder, order.price, makerRate);
  } else {
    // 6-7. One execution price, then the volatility controls.
    const last = fills[fills.length - 1] as Fill;
    const lo = side === 'buy' ? last.resting.price : order.type === 'market' ? 0n : order.price;
    const hi = side === 'buy' ? (order.type === 'market' ? null : order.price) : last.resting.price;
    let price = book.lastPrice < lo ? lo : book.lastPrice;
    if (hi !== null && price > hi) price = hi;
    const reason = volatilityReason(book, price);
    if (reason !== 0) {
      book.phase = 'automaticHalt';
      book.haltCount++;
      reject(reason, order.quantity);
      return { orderId, events };
    }
    // 8. Fill and settle.
    const plan = settleMatch(p, fills, price, side, takerRate);
    fund(book, ctx, wallet, side, plan.takerPays, rests ? remainder : 0n, order.price, makerRate);
    plan.execute(ctx, wallet);
    for (const f of fills) {
      f.resting.remaining -= f.quantity;
      if (f.resting.remaining === 0n) removeResting(book, f.resting.side, f.resting.id);
    }
    book.lastPrice = price;
    events.push({
      type: side === 'buy' ? 'NewBuyInitiatedTrade' : 'NewSellInitiatedTrade',
      client: wallet,
      orderId,
      quantity: collected,
      price,
    });
  }

  // 9. The remainder.
  if (remainder > 0n) {
    if (truncated) reject(2, remainder);
    else if (!rests) reject(7, remainder);
    else {
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
      events.push({
        type: side === 'buy' ? 'NewBuyOrder' : 'NewSellOrder',
        client: wallet,
        orderId,
        quantity: remainder,
        price: order.price,
      });
    }
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

export function cancelOrder(
  book: Book,
  ctx: BookContext,
  caller: string,
  side: Side,
  orderId: bigint,
  by: 'ByParticipant' | 'ByAdmin',
): BookEvent[] {
  if (by === 'ByParticipant') {
    const client = ctx.client(caller);
    if (client === undefined) fail('E_VENUE_CLIENT_NOT_FOUND', `${caller} is not in the client registry`, { caller });
    if (!client.canCancel) fail('E_VENUE_NOT_ALLOWED_TO_CANCEL', `${caller} may not cancel`, { caller });
  }
  const order = sideOf(book, side).find((o) => o.id === orderId);
  if (order === undefined) fail('E_VENUE_ORDER_NOT_FOUND', `no resting ${side} order ${orderId}`, { orderId, side });
  if (by === 'ByParticipant' && order.wallet !== caller)
    fail('E_VENUE_NOT_ALLOWED_TO_CANCEL', `order ${orderId} belongs to another wallet`, { orderId });
  return [cancelResting(book, ctx, order, by)];
}

/** End-of-day clearing: every GFD order and every expired GTD order, in order id order, `ByContract`. */
export function clearOrders(book: Book, ctx: BookContext): BookEvent[] {
  const due = [...book.buys, ...book.sells]
    .filter((o) => o.validity === 'gfd' || (o.expiresAt !== null && o.expiresAt <= ctx.nowSeconds))
    .toSorted((a, b) => (a.id < b.id ? -1 : 1));
  return due.map((o) => cancelResting(book, ctx, o, 'ByContract'));
}
