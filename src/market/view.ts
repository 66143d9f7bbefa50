/**
 * The market as one recomputation of a pair sees it: whether the book is open now, its midpoint (everyone's, and
 * others' with our own orders taken out), and the view the strategy reads (levels, trade information, time).
 */
import type { ChainKind } from '../core/pair.ts';
import { isMarketOpen, msUntilClose, type CalendarUse } from '../core/calendar.ts';
import type { Decimal } from '../core/decimal.ts';
import { othersBook } from '../strategy/book.ts';
import { priceFrom } from '../strategy/reference-price.ts';
import type { BookLevel, LiveOrder, MarketView } from '../strategy/types.ts';
import type { MarketBook } from '../venue/market-data/book.ts';
import type { PairStatus } from './status.ts';

/** Whether the pair's book is open for trading now: its status and phase, and the calendar when it is used. */
export function marketOpenNow(status: PairStatus, chain: ChainKind, nowMs: number, calendar: CalendarUse): boolean {
  return isMarketOpen({
    nowMs,
    tradingStatus: status.tradingStatus,
    chain,
    phase: status.phase,
    calendar: calendar.config,
    useCalendar: calendar.enabled,
  });
}

/** The midpoint of the best bid and ask; null when a side is empty. */
export function midOf(book: MarketBook | undefined): Decimal | null {
  const bid = book?.buy[0]?.limit;
  const ask = book?.sell[0]?.limit;
  return bid === undefined || ask === undefined ? null : bid.add(ask).div(2);
}

/**
 * A side of the book as the strategy's levels, once per side: a book is replaced by the next message, never
 * changed, so its levels are the same objects for every round that reads it (and the others' book of a round
 * can be worked out once: strategy/book.ts).
 */
const sides = new WeakMap<MarketBook['buy'], readonly BookLevel[]>();
function levels(side: MarketBook['buy']): readonly BookLevel[] {
  let out = sides.get(side);
  if (out === undefined) {
    out = side.map((l) => ({ price: l.limit, quantity: l.quantity }));
    sides.set(side, out);
  }
  return out;
}

/** The midpoint of others' best bid and ask (our own orders taken out, as the strategy does); null when a side is empty. */
export function othersMidOf(book: MarketBook | undefined, own: readonly LiveOrder[]): Decimal | null {
  if (book === undefined) return null;
  const others = othersBook({ bids: levels(book.buy), asks: levels(book.sell) }, own);
  return priceFrom('mid', { book: others, lastPrice: null, staticReferencePrice: null, fair: null });
}

/** The market as the strategy sees it. */
export function marketViewOf(book: MarketBook, status: PairStatus, nowMs: number, calendar: CalendarUse): MarketView {
  return {
    bids: levels(book.buy),
    asks: levels(book.sell),
    lastPrice: status.lastPrice,
    staticReferencePrice: status.staticReferencePrice,
    tradeInfo: {
      lastPrice: status.lastPrice,
      previousClose: status.staticReferencePrice,
      tradeVolume24h: status.tradeVolume24h,
      tradingHaltCounter: status.haltCounter,
    },
    nowMs,
    // The session's close from the calendar; without a calendar (an always-open venue) it is unknown.
    msUntilClose: calendar.enabled ? msUntilClose(nowMs, calendar.config) : null,
  };
}
