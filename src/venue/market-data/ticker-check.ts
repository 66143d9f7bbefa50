/**
 * The ticker as a cross-check of the order book's top. The two channels are separate streams and are not
 * sent at the same moment, so a disagreement between the ticker's best bid or ask and the book's first level
 * counts only once it has lasted `graceMs`: then it is logged once (warning) and counted in
 * `dltmm_venue_ticker_book_mismatch_total{market}`; the episode ends when they agree again (logged at info with
 * its length). Prices are compared, not quantities; "none" (an empty side) agrees only with "none". A market
 * without a ticker or without a book is not compared. The latest ticker of each market is kept here (its last
 * price for whoever wants the venue's market state); quotes do not use it. Only a book from the WebSocket is
 * compared: while the market is served from REST snapshots the ticker is as stale as the WebSocket.
 */
import type { Logger } from 'pino';
import type { Clock, Timer } from '../../core/clock.ts';
import type { Decimal } from '../../core/decimal.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import type { MarketBook } from './book.ts';
import type { TickerUpdate } from './ticker.ts';

export interface TickerCheckOptions {
  readonly graceMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** The book the bot quotes from for a market. */
  readonly book: (symbol: string) => MarketBook | undefined;
}

export interface TopDisagreement {
  readonly ticker: { readonly bid: string | null; readonly ask: string | null };
  readonly book: { readonly bid: string | null; readonly ask: string | null };
}

interface Episode {
  readonly since: number;
  timer: Timer | undefined;
  reported: boolean;
}

const same = (a: Decimal | undefined, b: Decimal | undefined): boolean =>
  a === undefined || b === undefined ? a === b : a.eq(b);
const show = (d: Decimal | undefined): string | null => (d === undefined ? null : d.toFixed());

/** How the ticker's top and the book's differ; undefined when they agree. */
export function topDisagreement(t: TickerUpdate, book: MarketBook): TopDisagreement | undefined {
  const bid = book.buy[0]?.limit;
  const ask = book.sell[0]?.limit;
  if (same(t.bestBid, bid) && same(t.bestAsk, ask)) return undefined;
  return {
    ticker: { bid: show(t.bestBid), ask: show(t.bestAsk) },
    book: { bid: show(bid), ask: show(ask) },
  };
}

export class TickerCheck {
  readonly #options: TickerCheckOptions;
  readonly #tickers = new Map<string, TickerUpdate>();
  readonly #episodes = new Map<string, Episode>();

  constructor(options: TickerCheckOptions) {
    this.#options = options;
  }

  /** The market's latest ticker. */
  ticker(symbol: string): TickerUpdate | undefined {
    return this.#tickers.get(symbol);
  }

  /** A ticker arrived. */
  onTicker(t: TickerUpdate): void {
    this.#tickers.set(t.symbol, t);
    this.check(t.symbol);
  }

  /** Compares the market's ticker and book now (call it on every book change too). */
  check(symbol: string): void {
    const differs = this.#disagreement(symbol) !== undefined;
    const episode = this.#episodes.get(symbol);
    if (!differs) {
      if (episode === undefined) return;
      episode.timer?.cancel();
      this.#episodes.delete(symbol);
      if (episode.reported)
        this.#options.logger.info(
          { market: symbol, forMs: this.#options.clock.now() - episode.since },
          'ticker agrees with the order book again',
        );
      return;
    }
    if (episode !== undefined) return;
    const started: Episode = { since: this.#options.clock.now(), timer: undefined, reported: false };
    started.timer = this.#options.clock.setTimer(() => this.#graceOver(symbol, started), this.#options.graceMs);
    this.#episodes.set(symbol, started);
  }

  /** Stops following a market. */
  forget(symbol: string): void {
    this.#episodes.get(symbol)?.timer?.cancel();
    this.#episodes.delete(symbol);
    this.#tickers.delete(symbol);
  }

  close(): void {
    for (const symbol of [...this.#episodes.keys()]) this.forget(symbol);
  }

  #disagreement(symbol: string): TopDisagreement | undefined {
    const t = this.#tickers.get(symbol);
    const book = this.#options.book(symbol);
    // A book served from REST snapshots stands in for a WebSocket that has gone quiet: the ticker, from that same
    // WebSocket, is as old as its silence, and comparing the two would report the silence, not a disagreement.
    if (t === undefined || book === undefined || book.source !== 'ws') return undefined;
    return topDisagreement(t, book);
  }

  #graceOver(symbol: string, episode: Episode): void {
    episode.timer = undefined;
    if (this.#episodes.get(symbol) !== episode) return;
    const d = this.#disagreement(symbol);
    if (d === undefined) {
      this.#episodes.delete(symbol);
      return;
    }
    episode.reported = true;
    this.#options.metrics.venue.tickerBookMismatch.inc({ market: symbol });
    this.#options.logger.warn(
      { market: symbol, ...d, forMs: this.#options.clock.now() - episode.since },
      'ticker best bid or ask disagrees with the order book beyond the grace',
    );
  }
}
