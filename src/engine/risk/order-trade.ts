/**
 * A pair's order messages against its trades over the venue's trading day, as a venue counts them for its
 * order-to-trade limit (Regulation (EU) 2017/566, "RTS 9"): every placement and every cancellation sent is a
 * message, every fill of ours an execution; the ratio is messages over executions (over one before the first
 * fill). Two limits, both off unless configured: `maxOrderMessagesPerDay`, after which no placement is sent that
 * day, and `maxOrderToTradeRatio`, at which placements wait for fills to bring the ratio down; from 80 % of it
 * the quotes are replaced less eagerly (four times the refresh cost), to stay under it. Cancellations are never
 * held back: they are how risk leaves the book.
 */
export interface OrderTradeLimits {
  readonly maxOrderMessagesPerDay: number | null;
  readonly maxOrderToTradeRatio: number | null;
}

/** The share of the ratio limit from which replacements slow down. */
export const ORDER_TO_TRADE_WARN = 0.8;

export type PlacementVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly rule: 'maxOrderMessagesPerDay' | 'maxOrderToTradeRatio'; readonly detail: string };

export class OrderTradeCount {
  #day = '';
  #messages = 0;
  #fillsBefore = 0;
  #fills = 0;

  /** The trading day and the pair's fill count so far (all days): a new day starts from zero. */
  roll(day: string, fills: number): void {
    if (day !== this.#day) {
      this.#day = day;
      this.#messages = 0;
      this.#fillsBefore = fills;
    }
    this.#fills = fills;
  }

  /** A placement or a cancellation left the process. */
  message(count = 1): void {
    this.#messages += count;
  }

  get messages(): number {
    return this.#messages;
  }

  get executions(): number {
    return this.#fills - this.#fillsBefore;
  }

  get ratio(): number {
    return this.#messages / Math.max(1, this.executions);
  }

  /** Whether one more placement (and the cancellation it may bring) keeps within the limits. */
  placement(l: OrderTradeLimits): PlacementVerdict {
    if (l.maxOrderMessagesPerDay !== null && this.#messages >= l.maxOrderMessagesPerDay)
      return {
        ok: false,
        rule: 'maxOrderMessagesPerDay',
        detail: `${this.#messages} order messages today, at most ${l.maxOrderMessagesPerDay}`,
      };
    if (l.maxOrderToTradeRatio !== null && this.ratio >= l.maxOrderToTradeRatio)
      return {
        ok: false,
        rule: 'maxOrderToTradeRatio',
        detail: `${this.#messages} order messages for ${this.executions} trades today, at most ${l.maxOrderToTradeRatio} per trade`,
      };
    return { ok: true };
  }

  /** Near the ratio limit: replacements should cost more, so that only those that matter are sent. */
  slow(l: OrderTradeLimits): boolean {
    return l.maxOrderToTradeRatio !== null && this.ratio >= ORDER_TO_TRADE_WARN * l.maxOrderToTradeRatio;
  }
}
