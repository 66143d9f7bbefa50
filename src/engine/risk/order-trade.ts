/**
 * A pair's order messages against its trades over the venue's trading day, as a venue counts them for its
 * order-to-trade limit (Regulation (EU) 2017/566, "RTS 9"): every placement and every cancellation sent is a
 * message, every fill of ours an execution; the ratio is messages over executions (over one before the first
 * fill). Two limits, both off unless configured: `maxOrderMessagesPerDay`, the day's messages at most, and
 * `maxOrderToTradeRatio`, messages per execution at most; from 80 % of the ratio the quotes are replaced less
 * eagerly (four times the refresh cost), to stay under it. Cancellations are never held back (they are how risk
 * leaves the book), so a placement goes only if the count stays within both limits after it and after a
 * cancellation of every order of ours on the pair, itself included: whatever the market does next, cancelling
 * everything never takes the day over a limit. Placements then wait for fills (the ratio) or the next day.
 */
export interface OrderTradeLimits {
  readonly maxOrderMessagesPerDay: number | null;
  readonly maxOrderToTradeRatio: number | null;
}

/** Messages a placement may bring beyond the live orders' cancellations: itself and its own cancellation. */
export const PLACEMENT_RESERVE = 2;

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

  /**
   * Whether one more placement keeps within the limits, with `live` orders of ours on the pair: the placement
   * and its cancellation, and the cancellation of each live order, must all fit (`PLACEMENT_RESERVE` + `live`).
   * A replacement sends the cancellation of a live order, already among them: the same reserve.
   */
  placement(l: OrderTradeLimits, live = 0): PlacementVerdict {
    const after = this.#messages + PLACEMENT_RESERVE + live;
    const spare = `${this.#messages} sent, ${live} live order(s) to cancel at worst`;
    if (l.maxOrderMessagesPerDay !== null && after > l.maxOrderMessagesPerDay)
      return {
        ok: false,
        rule: 'maxOrderMessagesPerDay',
        detail: `order messages today: ${spare}, at most ${l.maxOrderMessagesPerDay}`,
      };
    if (l.maxOrderToTradeRatio !== null && after / Math.max(1, this.executions) > l.maxOrderToTradeRatio)
      return {
        ok: false,
        rule: 'maxOrderToTradeRatio',
        detail: `order messages for ${this.executions} trades today: ${spare}, at most ${l.maxOrderToTradeRatio} per trade`,
      };
    return { ok: true };
  }

  /** Near the ratio limit: replacements should cost more, so that only those that matter are sent. */
  slow(l: OrderTradeLimits): boolean {
    return l.maxOrderToTradeRatio !== null && this.ratio >= ORDER_TO_TRADE_WARN * l.maxOrderToTradeRatio;
  }
}
