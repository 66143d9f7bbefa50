/**
 * What the market-data client (ws-client.ts) does with the venue's updates: each book of a market it follows
 * replaces the previous one and proves the market fresh, each ticker is passed on, and a market or ticker the
 * decoder rejected is counted and logged (the previous book stays).
 */
import type { BookStore, MarketBook } from './book.ts';
import type { MarketDataMessage, Rejected } from './decode.ts';
import type { StalenessWatchdog } from './staleness-watchdog.ts';
import { ALL_MARKETS } from './subscribe-messages.ts';
import type { Subscriptions } from './subscriptions.ts';
import { MARKET_DATA, type ClientContext } from './ws-client-parts.ts';

/** The client's markets: which are wanted, their staleness, their latest books. */
export interface FollowedMarkets {
  readonly subscriptions: Subscriptions;
  readonly watchdog: StalenessWatchdog;
  readonly books: BookStore;
}

function reportRejected(context: ClientContext, rejected: readonly Rejected[], what: string): void {
  for (const entry of rejected) {
    context.metrics.venue.malformedPayloads.inc({ source: 'ws' });
    context.logger.warn({ index: entry.index, market: entry.symbol, problems: entry.problems }, what);
  }
}

/** The tickers of a `ticker` message, each emitted with the time it was received. */
export function applyTickers(context: ClientContext, message: Extract<MarketDataMessage, { type: 'ticker' }>): void {
  reportRejected(context, message.rejected, 'ticker update rejected');
  for (const ticker of message.tickers) context.events.emit('ticker', { ...ticker, receivedAt: context.clock.now() });
}

/**
 * The books of a `data` message for the markets followed (every market, with `'*'`); `applied` runs before
 * each book is emitted.
 */
export function applyBooks(
  context: ClientContext,
  markets: FollowedMarkets,
  message: Extract<MarketDataMessage, { type: 'data' }>,
  applied: () => void,
): void {
  reportRejected(context, message.rejected, 'market update rejected; keeping the previous book');
  const { subscriptions, watchdog } = markets;
  const everything = subscriptions.wants(ALL_MARKETS);
  const receivedAt = context.clock.now();
  context.incidents.succeeded(MARKET_DATA, receivedAt);
  for (const market of message.markets) {
    if (!everything && !subscriptions.wants(market.symbol)) continue;
    if (everything) watchdog.watch(market.symbol);
    watchdog.seen(market.symbol);
    const { symbol, buy, sell, time } = market;
    const book: MarketBook = { symbol, buy, sell, time, receivedAt, source: 'ws' };
    markets.books.apply(book);
    applied();
    context.events.emit('book', book);
  }
}
