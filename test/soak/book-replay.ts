/**
 * Every order book event of the run, of every participant, replayed in chain order through the venue's own
 * book model (`PairMarket`, as the sandbox's back end rebuilds its books): it tells for each order of ours when
 * it rested, what of it filled and when and how it left the book, although a trade event names only the
 * incoming order. It also collects the heights at which others changed each book and the heights of automatic
 * halts (rejections by a volatility control).
 */
import { PairMarket } from '../../src/sandbox/api/market.ts';
import type { RestingOrderView } from '../../src/sandbox/api/pair-book.ts';
import type { BookEvent } from '../../src/sandbox/matching/types.ts';
import type { Chain, OrderTruth } from './model.ts';

export interface SeenBookEvent {
  readonly chain: Chain;
  readonly pairId: string;
  readonly height: number;
  readonly event: BookEvent;
}

const VOLATILITY_REASONS = new Set([3, 4, 5, 6]);
const CANCELLED_BY = ['cancelled by us', 'cancelled by the venue', 'cancelled by the contract'] as const;

export class BookReplay {
  readonly orders = new Map<string, OrderTruth>();
  /** Per pair: heights at which others' orders changed the book (rested, traded, cancelled). */
  readonly changes = new Map<string, number[]>();
  /** Per pair: heights of automatic halts. */
  readonly halts = new Map<string, number[]>();
  readonly #markets = new Map<string, PairMarket>();
  readonly #ours: Readonly<Record<Chain, string>>;

  constructor(ours: Readonly<Record<Chain, string>>) {
    this.#ours = ours;
  }

  static key(chain: Chain, pairId: string, orderId: bigint | string): string {
    return `${chain}|${pairId}|${orderId.toString()}`;
  }

  #isOurs(chain: Chain, client: string): boolean {
    return chain === 'evm' ? client.toLowerCase() === this.#ours.evm.toLowerCase() : client === this.#ours.wasm;
  }

  #market(chain: Chain, pairId: string): PairMarket {
    const height = () => this.#height;
    let m = this.#markets.get(pairId);
    if (m !== undefined) return m;
    m = new PairMarket(pairId);
    const closed = (o: RestingOrderView, how: OrderTruth['closedBy']) => {
      const t = this.orders.get(BookReplay.key(chain, pairId, o.orderId));
      if (t === undefined || t.closedHeight !== null) return;
      t.closedHeight = height();
      t.closedBy = how;
    };
    m.listen({
      orderClosed: (o) => {
        if (!this.#isOurs(chain, o.wallet)) return;
        const cancel = this.#current?.type === 'CancelOrder' ? this.#current : null;
        if (cancel === null) {
          this.#fill(chain, pairId, o, height());
          closed(o, 'filled');
        } else closed(o, CANCELLED_BY[cancel.cancellationType]);
      },
      orderChanged: (o) => {
        if (
          this.#isOurs(chain, o.wallet) &&
          (this.#current?.type === 'NewBuyInitiatedTrade' || this.#current?.type === 'NewSellInitiatedTrade')
        )
          this.#fill(chain, pairId, o, height());
      },
    });
    this.#markets.set(pairId, m);
    return m;
  }

  #current: BookEvent | null = null;
  #height = 0;
  /** Remaining of each resting order of ours before the event being applied, to measure its fills. */
  readonly #remaining = new Map<string, bigint>();

  #fill(chain: Chain, pairId: string, o: RestingOrderView, height: number): void {
    const k = BookReplay.key(chain, pairId, o.orderId);
    const t = this.orders.get(k);
    const before = this.#remaining.get(k);
    if (t === undefined || before === undefined || before <= o.remaining) return;
    t.fills.push({ height, quantity: before - o.remaining });
    t.filled += before - o.remaining;
    this.#remaining.set(k, o.remaining);
  }

  apply(e: SeenBookEvent): void {
    const ev = e.event;
    const ours = this.#isOurs(e.chain, ev.client);
    const k = BookReplay.key(e.chain, e.pairId, ev.orderId);
    if (ours && ev.type === 'OrderReceived') {
      this.orders.set(k, {
        chain: e.chain,
        pairId: e.pairId,
        orderId: ev.orderId.toString(),
        crossId: ev.crossIdentifier.toString(),
        side: ev.side === 1 ? 'buy' : 'sell',
        quantity: ev.quantity,
        receivedHeight: e.height,
        restedHeight: null,
        filled: 0n,
        fills: [],
        closedHeight: null,
        closedBy: null,
        rejectReason: null,
        tradedOnArrival: 0n,
      });
    }
    const t = ours ? this.orders.get(k) : undefined;
    if (t !== undefined) {
      if (ev.type === 'NewBuyOrder' || ev.type === 'NewSellOrder') {
        t.restedHeight ??= e.height;
        this.#remaining.set(k, ev.quantity);
      } else if (ev.type === 'NewBuyInitiatedTrade' || ev.type === 'NewSellInitiatedTrade') {
        // Our own incoming order traded on arrival (taker).
        t.fills.push({ height: e.height, quantity: ev.quantity });
        t.filled += ev.quantity;
        t.tradedOnArrival += ev.quantity;
      } else if (ev.type === 'OrderRejected') {
        t.rejectReason = ev.reason;
        if (t.closedHeight === null && t.restedHeight === null) {
          t.closedHeight = e.height;
          t.closedBy = 'rejected';
        }
      }
    }
    if (!ours && ev.type !== 'OrderReceived' && ev.type !== 'OrderRejected') push(this.changes, e.pairId, e.height);
    if (ev.type === 'OrderRejected' && VOLATILITY_REASONS.has(ev.reason)) push(this.halts, e.pairId, e.height);
    this.#current = ev;
    this.#height = e.height;
    try {
      this.#market(e.chain, e.pairId).apply(ev, 0);
    } finally {
      this.#current = null;
    }
  }
}

/** Our orders resting on the books after block or ledger `height` of `chain`. */
export function restingAt(orders: Iterable<OrderTruth>, chain: Chain, height: number): OrderTruth[] {
  const out: OrderTruth[] = [];
  for (const o of orders)
    if (
      o.chain === chain &&
      o.restedHeight !== null &&
      o.restedHeight <= height &&
      (o.closedHeight === null || o.closedHeight > height)
    )
      out.push(o);
  return out;
}

/** Remaining quantity of a resting order of ours after `height` (raw internal units). */
export function remainingAt(o: OrderTruth, height: number): bigint {
  return o.quantity - o.fills.filter((f) => f.height <= height).reduce((n, f) => n + f.quantity, 0n);
}

/** Net base our fills on `pairId` added in block or ledger `height` (buys up, sells down; raw internal units). */
export function netFilledIn(orders: Iterable<OrderTruth>, pairId: string, height: number): bigint {
  let n = 0n;
  for (const o of orders) {
    if (o.pairId !== pairId) continue;
    for (const f of o.fills) if (f.height === height) n += o.side === 'buy' ? f.quantity : -f.quantity;
  }
  return n;
}

function push(map: Map<string, number[]>, key: string, height: number): void {
  const list = map.get(key) ?? [];
  if (list.at(-1) !== height) list.push(height);
  map.set(key, list);
}
