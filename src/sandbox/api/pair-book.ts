/**
 * The venue's view of one pair's resting orders, rebuilt from order book events the way the venue's back end
 * does it: an order rests when `NewBuyOrder` / `NewSellOrder` says so; a trade event of quantity m (which
 * names only the incoming order) fills the opposite side's resting orders in priority order (best price,
 * then oldest = lowest order id), exactly as the contract collected them; a `CancelOrder` removes one.
 * This is exact because matching always fills a prefix of the opposite side in that order (rules.md), and a
 * no-prefund book's skipped candidates arrive as `CancelOrder` events before the trade event.
 */
import type { ExecutionCondition, OrderType, Side } from '../../core/order-terms.ts';

export interface RestingOrderView {
  readonly pairId: string;
  readonly orderId: bigint;
  readonly wallet: string;
  readonly side: Side;
  /** Raw internal units. */
  readonly price: bigint;
  readonly quantity: bigint;
  remaining: bigint;
  readonly orderType: OrderType;
  readonly condition: ExecutionCondition;
  /** Sandbox clock when the order was received. */
  readonly placedAtMs: number;
}

export interface Fill {
  readonly order: RestingOrderView;
  readonly quantity: bigint;
}

export interface LevelView {
  readonly price: bigint;
  readonly quantity: bigint;
  readonly orderCount: number;
}

/** True when `a` comes before `b` in the priority of its side. */
function before(side: Side, a: RestingOrderView, b: RestingOrderView): boolean {
  if (a.price !== b.price) return side === 'buy' ? a.price > b.price : a.price < b.price;
  return a.orderId < b.orderId;
}

export class PairBook {
  /** Priority order: best price first, then oldest. */
  readonly buys: RestingOrderView[] = [];
  readonly sells: RestingOrderView[] = [];
  readonly #byId = new Map<bigint, RestingOrderView>();

  side(side: Side): RestingOrderView[] {
    return side === 'buy' ? this.buys : this.sells;
  }

  get(orderId: bigint): RestingOrderView | undefined {
    return this.#byId.get(orderId);
  }

  get size(): number {
    return this.#byId.size;
  }

  rest(order: RestingOrderView): void {
    if (this.#byId.has(order.orderId)) return;
    const list = this.side(order.side);
    let i = list.length;
    while (i > 0 && before(order.side, order, list[i - 1] as RestingOrderView)) i--;
    list.splice(i, 0, order);
    this.#byId.set(order.orderId, order);
  }

  remove(orderId: bigint): RestingOrderView | undefined {
    const order = this.#byId.get(orderId);
    if (order === undefined) return undefined;
    const list = this.side(order.side);
    list.splice(list.indexOf(order), 1);
    this.#byId.delete(orderId);
    return order;
  }

  /**
   * An incoming order of `takerSide` matched `quantity`: fills the opposite side from the front. Returns the
   * fills; a quantity the book cannot cover (an event the view never saw the orders for) is left unfilled.
   */
  fill(takerSide: Side, quantity: bigint): Fill[] {
    const list = this.side(takerSide === 'buy' ? 'sell' : 'buy');
    const fills: Fill[] = [];
    let left = quantity;
    while (left > 0n && list.length > 0) {
      const order = list[0] as RestingOrderView;
      const q = order.remaining < left ? order.remaining : left;
      order.remaining -= q;
      left -= q;
      fills.push({ order, quantity: q });
      if (order.remaining === 0n) {
        list.shift();
        this.#byId.delete(order.orderId);
      }
    }
    return fills;
  }

  /** Price levels of a side, best first; at most `limit` levels. */
  levels(side: Side, limit = Number.POSITIVE_INFINITY): LevelView[] {
    const out: LevelView[] = [];
    for (const o of this.side(side)) {
      const last = out[out.length - 1];
      if (last !== undefined && last.price === o.price) {
        out[out.length - 1] = {
          price: o.price,
          quantity: last.quantity + o.remaining,
          orderCount: last.orderCount + 1,
        };
      } else {
        if (out.length >= limit) break;
        out.push({ price: o.price, quantity: o.remaining, orderCount: 1 });
      }
    }
    return out;
  }

  ordersOf(wallet: string): RestingOrderView[] {
    return [...this.#byId.values()].filter((o) => o.wallet === wallet);
  }

  /** Removes everything (the book was cleared by a redeployment or a reset). */
  clear(): RestingOrderView[] {
    const all = [...this.#byId.values()];
    this.buys.length = 0;
    this.sells.length = 0;
    this.#byId.clear();
    return all;
  }
}
