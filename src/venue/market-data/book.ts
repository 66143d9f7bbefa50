/** The order book of one market as the bot sees it, and the store where each update replaces the last. */
import type { PriceLevel } from '../payload/price-level.ts';

export type { PriceLevel } from '../payload/price-level.ts';

export interface MarketBook {
  /** The market symbol of the WebSocket channel. */
  readonly symbol: string;
  /** Best (highest) first. */
  readonly buy: readonly PriceLevel[];
  /** Best (lowest) first. */
  readonly sell: readonly PriceLevel[];
  /** The venue's timestamp of the data (WebSocket `time`); REST snapshots carry none. */
  readonly time?: string;
  /** When this process received it, clock milliseconds. */
  readonly receivedAt: number;
  readonly source: 'ws' | 'rest';
}

/** Latest book per market. Every message is a full snapshot of its market, so it replaces, never merges. */
export class BookStore {
  readonly #books = new Map<string, MarketBook>();

  apply(book: MarketBook): void {
    this.#books.set(book.symbol, book);
  }

  get(symbol: string): MarketBook | undefined {
    return this.#books.get(symbol);
  }

  delete(symbol: string): void {
    this.#books.delete(symbol);
  }

  get size(): number {
    return this.#books.size;
  }
}
