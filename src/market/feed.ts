/**
 * The market-data feed the engine reads: WebSocket books while they are fresh, and for a stale market the
 * REST `pricelevels` snapshot, polled at a throttled rate until WebSocket data flows again. A stale market's
 * old WebSocket book is withdrawn at once (it is older than the staleness limit), so `book()` never serves
 * data past that limit without saying so: it is undefined until the first snapshot arrives.
 *
 * Throttling: one poll per market every `fallbackPollMs` (the first at once), never two in flight for one
 * market, and at most `maxConcurrentPolls` in flight overall (a market that finds them taken waits for the
 * next free slot, first come first served). A snapshot that arrives after the market turned fresh is
 * discarded.
 *
 * Where each book came from is measured in time: `dltmm_venue_book_source_seconds_total{market, source}`
 * counts the seconds a market was fed by the WebSocket (`ws`), on the REST fallback (`rest`, from the moment
 * it went stale) or by nothing yet (`none`, from `add` to its first data), and `dltmm_venue_book_ws_share`
 * is the WebSocket's share of the whole; both are brought up to date at every scrape.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { silentLogger } from '../telemetry/logger.ts';
import { createMetrics, type Metrics } from '../telemetry/metrics.ts';
import type { Clock, Timer } from '../core/clock.ts';
import { systemClock } from '../core/system-clock.ts';
import type { OrderBookSnapshot } from '../venue/payload/order-book.ts';
import { BookStore, type MarketBook } from '../venue/market-data/book.ts';
import type { TickerUpdate } from '../venue/market-data/ticker.ts';
import { TickerCheck } from '../venue/market-data/ticker-check.ts';
import type { MarketDataClient, StaleEvent } from '../venue/market-data/ws-client.ts';

export interface FeedMarket {
  /** Market symbol of the WebSocket channel. */
  readonly symbol: string;
  /** Trading pair id for the REST snapshot. */
  readonly pairId: string;
}

export interface SnapshotSource {
  getPriceLevels(pairId: string, limit?: number): Promise<OrderBookSnapshot>;
}

export interface MarketDataFeedOptions {
  readonly client: MarketDataClient;
  readonly rest: SnapshotSource;
  /** Default 2 s. */
  readonly fallbackPollMs?: number;
  /** Levels per side asked of `pricelevels`; default: the venue's default. */
  readonly depth?: number;
  /** Default 4. */
  readonly maxConcurrentPolls?: number;
  /**
   * Also follow each market's ticker channel, as a cross-check of the book's top (ticker-check.ts): a
   * disagreement counts once it lasted `graceMs`. Without it no ticker is subscribed.
   */
  readonly ticker?: { readonly graceMs: number };
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
}

export interface MarketDataFeedEvents {
  /** The served book of a market changed (from either source). */
  book: [book: MarketBook];
  stale: [event: StaleEvent];
  fresh: [symbol: string];
}

interface Poller {
  timer: Timer | undefined;
  inFlight: boolean;
}

type BookSource = 'ws' | 'rest' | 'none';

interface SourceClock {
  source: BookSource;
  /** Clock ms since which `source` has been accrued. */
  since: number;
  /** Accrued seconds per source. */
  readonly seconds: Record<BookSource, number>;
}

export class MarketDataFeed extends EventEmitter<MarketDataFeedEvents> {
  readonly #options: MarketDataFeedOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #metrics: Metrics;
  readonly #markets = new Map<string, FeedMarket>();
  readonly #books = new BookStore();
  readonly #pollers = new Map<string, Poller>();
  readonly #sources = new Map<string, SourceClock>();
  readonly #unhook: () => void;
  readonly #tickers: TickerCheck;
  #inFlight = 0;
  #waiting: FeedMarket[] = [];
  readonly #onBook = (book: MarketBook) => this.#wsBook(book);
  readonly #onStale = (event: StaleEvent) => this.#stale(event);
  readonly #onFresh = (symbol: string) => this.#fresh(symbol);
  readonly #onTicker = (t: TickerUpdate) => {
    if (this.#markets.has(t.symbol)) this.#tickers.onTicker(t);
  };

  constructor(options: MarketDataFeedOptions) {
    super();
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger();
    this.#metrics = options.metrics ?? createMetrics();
    options.client.on('book', this.#onBook);
    options.client.on('stale', this.#onStale);
    options.client.on('fresh', this.#onFresh);
    options.client.on('ticker', this.#onTicker);
    this.#tickers = new TickerCheck({
      graceMs: options.ticker?.graceMs ?? 0,
      clock: this.#clock,
      logger: this.#logger,
      metrics: this.#metrics,
      book: (symbol) => this.#books.get(symbol),
    });
    this.#unhook = this.#metrics.venue.beforeCollect(() => {
      for (const symbol of this.#sources.keys()) this.#accrue(symbol);
    });
  }

  /** Seconds per source of a followed market so far (see the class comment). */
  sourceSeconds(symbol: string): Readonly<Record<BookSource, number>> | undefined {
    this.#accrue(symbol);
    const s = this.#sources.get(symbol);
    return s === undefined ? undefined : { ...s.seconds };
  }

  add(market: FeedMarket): void {
    this.#markets.set(market.symbol, market);
    if (!this.#sources.has(market.symbol))
      this.#sources.set(market.symbol, {
        source: 'none',
        since: this.#clock.now(),
        seconds: { ws: 0, rest: 0, none: 0 },
      });
    this.#options.client.subscribe(market.symbol);
    if (this.#options.ticker !== undefined) this.#options.client.subscribeTicker(market.symbol);
  }

  remove(symbol: string): void {
    this.#stopPolling(symbol);
    this.#accrue(symbol);
    this.#sources.delete(symbol);
    this.#markets.delete(symbol);
    this.#books.delete(symbol);
    this.#tickers.forget(symbol);
    this.#options.client.unsubscribe(symbol);
    if (this.#options.ticker !== undefined) this.#options.client.unsubscribeTicker(symbol);
  }

  /** The book to quote from: fresh WebSocket data, or the REST snapshot while the market is stale. */
  book(symbol: string): MarketBook | undefined {
    return this.#books.get(symbol);
  }

  /** The market's latest ticker (its last price, best bid and ask), when the ticker is followed; quotes do not use it. */
  ticker(symbol: string): TickerUpdate | undefined {
    return this.#tickers.ticker(symbol);
  }

  isStale(symbol: string): boolean {
    return this.#options.client.isStale(symbol);
  }

  close(): void {
    for (const symbol of this.#sources.keys()) this.#accrue(symbol);
    this.#unhook();
    for (const symbol of [...this.#pollers.keys()]) this.#stopPolling(symbol);
    this.#options.client.off('book', this.#onBook);
    this.#options.client.off('stale', this.#onStale);
    this.#options.client.off('fresh', this.#onFresh);
    this.#options.client.off('ticker', this.#onTicker);
    this.#tickers.close();
  }

  #wsBook(book: MarketBook): void {
    if (!this.#markets.has(book.symbol)) return;
    this.#switch(book.symbol, 'ws');
    this.#books.apply(book);
    this.#tickers.check(book.symbol);
    this.emit('book', book);
  }

  #stale(event: StaleEvent): void {
    const market = this.#markets.get(event.symbol);
    if (market === undefined) return;
    this.#switch(event.symbol, 'rest');
    this.#books.delete(event.symbol);
    this.#tickers.check(event.symbol);
    this.emit('stale', event);
    if (!this.#pollers.has(event.symbol)) {
      this.#pollers.set(event.symbol, { timer: undefined, inFlight: false });
      this.#poll(market);
    }
  }

  #fresh(symbol: string): void {
    if (!this.#markets.has(symbol)) return;
    this.#switch(symbol, 'ws');
    this.#stopPolling(symbol);
    this.emit('fresh', symbol);
  }

  /** Adds the time since the last accrual to the market's current source. */
  #accrue(symbol: string): void {
    const s = this.#sources.get(symbol);
    if (s === undefined) return;
    const now = this.#clock.now();
    const seconds = Math.max(0, now - s.since) / 1000;
    s.since = now;
    if (seconds > 0) {
      s.seconds[s.source] += seconds;
      this.#metrics.venue.bookSourceSeconds.inc({ market: symbol, source: s.source }, seconds);
    }
    const total = s.seconds.ws + s.seconds.rest + s.seconds.none;
    if (total > 0) this.#metrics.venue.bookWsShare.set({ market: symbol }, s.seconds.ws / total);
  }

  #switch(symbol: string, source: BookSource): void {
    const s = this.#sources.get(symbol);
    if (s === undefined || s.source === source) return;
    this.#accrue(symbol);
    s.source = source;
  }

  #stopPolling(symbol: string): void {
    this.#pollers.get(symbol)?.timer?.cancel();
    this.#pollers.delete(symbol);
    this.#waiting = this.#waiting.filter((m) => m.symbol !== symbol);
  }

  #poll(market: FeedMarket): void {
    const poller = this.#pollers.get(market.symbol);
    if (poller === undefined) return;
    poller.timer = this.#clock.setTimer(() => this.#poll(market), this.#options.fallbackPollMs ?? 2_000);
    if (poller.inFlight) return;
    if (this.#inFlight >= (this.#options.maxConcurrentPolls ?? 4)) {
      // Wait for a free slot in arrival order, so no market starves behind the others.
      if (!this.#waiting.includes(market)) this.#waiting.push(market);
      return;
    }
    this.#fetch(market, poller);
  }

  #fetch(market: FeedMarket, poller: Poller): void {
    poller.inFlight = true;
    this.#inFlight += 1;
    // Settled before any listener runs, so a listener that moves the clock sees the poll as finished.
    const settle = () => {
      poller.inFlight = false;
      this.#inFlight -= 1;
      this.#startWaiting();
    };
    this.#options.rest.getPriceLevels(market.pairId, this.#options.depth).then(
      (snapshot) => {
        settle();
        if (this.#pollers.get(market.symbol) !== poller) {
          this.#metrics.venue.fallbackPolls.inc({ market: market.symbol, outcome: 'discarded' });
          return;
        }
        this.#metrics.venue.fallbackPolls.inc({ market: market.symbol, outcome: 'ok' });
        const book: MarketBook = {
          symbol: market.symbol,
          buy: snapshot.buy,
          sell: snapshot.sell,
          receivedAt: this.#clock.now(),
          source: 'rest',
        };
        this.#books.apply(book);
        this.#tickers.check(book.symbol);
        this.emit('book', book);
      },
      (error: unknown) => {
        settle();
        this.#metrics.venue.fallbackPolls.inc({ market: market.symbol, outcome: 'error' });
        this.#logger.warn(
          { err: error, market: market.symbol },
          'fallback snapshot failed; trying again at the next poll',
        );
      },
    );
  }

  #startWaiting(): void {
    while (this.#inFlight < (this.#options.maxConcurrentPolls ?? 4)) {
      const market = this.#waiting.shift();
      if (market === undefined) return;
      const poller = this.#pollers.get(market.symbol);
      if (poller !== undefined && !poller.inFlight) this.#fetch(market, poller);
    }
  }
}
