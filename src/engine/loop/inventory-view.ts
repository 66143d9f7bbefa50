/**
 * The inventory a quote model sees for one pair, in human units: the wallet's free balances (on-chain) and
 * what our live orders of this pair lock. A quote token shared by several pairs of one wallet is split
 * between them in equal shares, so that the pairs together never quote more than the wallet holds.
 */
import type { Balances, PairBinding } from '../../chains/types.ts';
import { Decimal } from '../../core/decimal.ts';
import { isCancellable, isLive, isOnBook, isQuoting, remainingOf } from '../../core/order-state.ts';
import { baseFromNative, quoteFromNative } from '../../core/units.ts';
import type { StoredOrder } from '../../store/order-store.ts';
import type { DesiredQuote, Inventory, LiveOrder } from '../../strategy/types.ts';
import type { MarketBook } from '../../venue/market-data/book.ts';
import { lockOf } from '../wallet/fills/amounts.ts';
import { makerRateOf, type PairRuntime } from '../wallet/pair-runtime.ts';
import { priceFromRaw, priceToRaw, quantityFromRaw, type PairScales } from '../../core/units.ts';

export function pairInventory(
  runtime: PairRuntime,
  marketMaker: boolean,
  balances: Balances,
  live: readonly StoredOrder[],
  quoteShare: Decimal,
): Inventory {
  const s = runtime.binding.rules.scales;
  let lockedBase = 0n;
  let lockedQuote = 0n;
  for (const o of live) {
    if (!isOnBook(o.status)) continue;
    const lock = lockOf(
      {
        side: o.side,
        price: o.price,
        remaining: remainingOf(o),
        lockRateBps: o.lockRateBps ?? makerRateOf(runtime, marketMaker),
      },
      s,
      o.prefunded ?? runtime.prefunded,
    );
    lockedBase += lock.base;
    lockedQuote += lock.quote;
  }
  const last = inventories.get(runtime);
  if (
    last !== undefined &&
    last.scales === s &&
    last.base === balances.base &&
    last.quote === balances.quote &&
    last.lockedBase === lockedBase &&
    last.lockedQuote === lockedQuote &&
    last.quoteShare === quoteShare
  )
    return last.inventory;
  const inventory = {
    base: { free: baseFromNative(balances.base, s), locked: baseFromNative(lockedBase, s) },
    quote: { free: quoteFromNative(balances.quote, s).mul(quoteShare), locked: quoteFromNative(lockedQuote, s) },
  };
  inventories.set(runtime, {
    scales: s,
    base: balances.base,
    quote: balances.quote,
    lockedBase,
    lockedQuote,
    quoteShare,
    inventory,
  });
  return inventory;
}

/** Each pair's last inventory, with the amounts it was made from: balances and locks change far less often. */
const inventories = new WeakMap<
  PairRuntime,
  {
    readonly scales: PairScales;
    readonly base: bigint;
    readonly quote: bigint;
    readonly lockedBase: bigint;
    readonly lockedQuote: bigint;
    readonly quoteShare: Decimal;
    readonly inventory: Inventory;
  }
>();

/**
 * Each order's last view, with the raw price and remainder it was made from: a pair's orders are seen again at
 * every round and change far less often, and a view is immutable, so an unchanged order is not converted again.
 */
const views = new WeakMap<StoredOrder, { scales: PairScales; price: bigint; remaining: bigint; view: LiveOrder }>();

function viewOf(o: StoredOrder, remaining: bigint, s: PairScales): LiveOrder {
  const known = views.get(o);
  if (known !== undefined && known.scales === s && known.price === o.price && known.remaining === remaining)
    return known.view;
  const view: LiveOrder = {
    id: o.clientOrderId.toString(),
    side: o.side,
    price: priceFromRaw(o.price, s),
    quantity: quantityFromRaw(remaining, s),
  };
  views.set(o, { scales: s, price: o.price, remaining, view });
  return view;
}

/** Our orders as the strategy sees them: what remains, at its price, keyed by client order id. */
export function liveQuotes(binding: PairBinding, live: readonly StoredOrder[]): LiveOrder[] {
  const s = binding.rules.scales;
  const out: LiveOrder[] = [];
  for (const o of live) {
    if (!isQuoting(o.status)) continue;
    const remaining = remainingOf(o);
    if (remaining > 0n) out.push(viewOf(o, remaining, s));
  }
  return out;
}

/**
 * Our orders that are or may still be on the venue's book: the live quotes and those whose cancellation is on
 * its way. A book read while a cancel travels still shows the order; counted as someone else's, it would move
 * the reference price by our own quote and the next round would chase it back and forth.
 */
export function ownOnBook(binding: PairBinding, live: readonly StoredOrder[]): LiveOrder[] {
  return liveQuotes(
    binding,
    live.map((o) => (o.status === 'cancelRequested' ? stillResting(o) : o)),
  );
}

/** An order whose cancellation travels, as resting: one object per record, so that its view is kept too. */
const resting = new WeakMap<StoredOrder, StoredOrder>();
function stillResting(o: StoredOrder): StoredOrder {
  let r = resting.get(o);
  // What the strategy's view reads of it, checked: a record is replaced when written, never changed, but the
  // copy must not outlive a change anyway.
  if (
    r === undefined ||
    r.price !== o.price ||
    r.quantity !== o.quantity ||
    r.filled !== o.filled ||
    r.side !== o.side ||
    r.clientOrderId !== o.clientOrderId
  ) {
    r = { ...o, status: 'resting' as const };
    resting.set(o, r);
  }
  return r;
}

/**
 * The orders to quote from: `newest` (the live orders less those a block not final yet shows gone) once the
 * venue's book no longer shows any of those gone, else every live order. A book that has not caught up with
 * that block still shows the filled quote and not what the fill left (the taker's remainder, resting on the
 * other side); a replacement priced off it could trade with that remainder. It waits for a book that shows the
 * order gone (the book message starts another round), or for the fill to be final.
 *
 * `seenGone` (the pair's, kept between rounds) holds the gone orders a book message has already shown gone.
 * Book messages come in order, so a later one has caught up with that block too: a level at such an order's
 * price is what came after it (its own replacement, typically), never the order itself.
 */
export function quotableOn(
  book: Pick<MarketBook, 'buy' | 'sell'>,
  binding: PairBinding,
  live: readonly StoredOrder[],
  newest: readonly StoredOrder[],
  seenGone: Set<bigint>,
): readonly StoredOrder[] {
  if (newest.length === live.length) {
    seenGone.clear();
    return live;
  }
  const kept = new Set(newest.map((o) => o.clientOrderId));
  const gone = live.filter((o) => !kept.has(o.clientOrderId));
  const ids = new Set(gone.map((o) => o.clientOrderId));
  for (const id of seenGone) if (!ids.has(id)) seenGone.delete(id);
  const s = binding.rules.scales;
  let stillShown = false;
  for (const o of gone) {
    if (seenGone.has(o.clientOrderId)) continue;
    const price = priceFromRaw(o.price, s);
    const level = (o.side === 'buy' ? book.buy : book.sell).find((l) => l.limit.eq(price));
    if (level !== undefined && level.quantity.gte(quantityFromRaw(remainingOf(o), s))) stillShown = true;
    else seenGone.add(o.clientOrderId);
  }
  return stillShown ? live : newest;
}

/** Whether `quote` would trade with an order of ours of the other side that is or may be on the book. */
export function crossesOurs(live: readonly StoredOrder[], quote: DesiredQuote, scales: PairScales): boolean {
  const price = priceToRaw(quote.price, scales);
  return live.some(
    (o) => isLive(o.status) && o.side !== quote.side && (quote.side === 'buy' ? o.price <= price : o.price >= price),
  );
}

/** Whether an order of ours rests on each side of the book (as far as the chain has told us). */
export function presenceOf(live: readonly StoredOrder[]): { buy: boolean; sell: boolean } {
  // A cancel in flight leaves the order on the book until it is included; one found gone is not there.
  const resting = live.filter(
    (o) =>
      (isCancellable(o.status) || (o.status === 'cancelRequested' && o.cancelTxHash !== null)) && remainingOf(o) > 0n,
  );
  return { buy: resting.some((o) => o.side === 'buy'), sell: resting.some((o) => o.side === 'sell') };
}
