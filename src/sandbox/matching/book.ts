/** Book state: creation, priority insertion, snapshots and the packed read views of the contracts. */
import type { Side } from '../../core/order-terms.ts';
import type { Book, BookParams, Phase, RestingOrder } from './types.ts';

export function createBook(params: BookParams): Book {
  return {
    params,
    phase: 'open',
    lastPrice: params.staticReferencePrice,
    staticReferencePrice: params.staticReferencePrice,
    nextOrderId: 1n,
    buys: [],
    sells: [],
    haltCount: 0,
  };
}

export function sideOf(book: Book, side: Side): RestingOrder[] {
  return side === 'buy' ? book.buys : book.sells;
}

/** Inserts behind every order of equal or better price: price first, then time. */
export function insertResting(book: Book, order: RestingOrder): void {
  const list = sideOf(book, order.side);
  const better = (o: RestingOrder) => (order.side === 'buy' ? o.price >= order.price : o.price <= order.price);
  let at = 0;
  while (at < list.length && better(list[at] as RestingOrder)) at++;
  list.splice(at, 0, order);
}

export function removeResting(book: Book, side: Side, id: bigint): RestingOrder | undefined {
  const list = sideOf(book, side);
  const at = list.findIndex((o) => o.id === id);
  return at < 0 ? undefined : list.splice(at, 1)[0];
}

export function findResting(book: Book, id: bigint): RestingOrder | undefined {
  return book.buys.find((o) => o.id === id) ?? book.sells.find((o) => o.id === id);
}

export function setPhase(book: Book, phase: Phase): void {
  book.phase = phase;
}

export function setStaticReferencePrice(book: Book, price: bigint): void {
  book.staticReferencePrice = price;
}

export function cloneBook(book: Book): Book {
  return {
    ...book,
    buys: book.buys.map((o) => ({ ...o })),
    sells: book.sells.map((o) => ({ ...o })),
  };
}

const PACK = 1n << 64n;

/** Price levels best first, quantity summed per price, at most `depth` levels. */
export function levels(
  orders: readonly RestingOrder[],
  depth: number,
): Array<{ price: bigint; quantity: bigint; count: number }> {
  const out: Array<{ price: bigint; quantity: bigint; count: number }> = [];
  for (const o of orders) {
    const last = out[out.length - 1];
    if (last !== undefined && last.price === o.price) {
      last.quantity += o.remaining;
      last.count++;
    } else if (out.length < depth) out.push({ price: o.price, quantity: o.remaining, count: 1 });
    else break;
  }
  return out;
}

/** The best fifty price levels per side, each packed as `(quantity << 64) | price`. */
const pack = (l: { price: bigint; quantity: bigint }): bigint => l.quantity * PACK + l.price;

export function bestFiftyOffers(book: Book): { buys: bigint[]; sells: bigint[] } {
  return { buys: levels(book.buys, 50).map(pack), sells: levels(book.sells, 50).map(pack) };
}

/** Best buy price in the high 128 bits, best sell price in the low 128 bits (0 for an empty side). */
export function bestBidOffer(book: Book): bigint {
  return ((book.buys[0]?.price ?? 0n) << 128n) | (book.sells[0]?.price ?? 0n);
}
