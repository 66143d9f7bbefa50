/**
 * The executions of one pair, as the trade events report them (one record per incoming order's match: one
 * price, the matched quantity), kept for a retention window: the source of the last price, the 24 h volume
 * and change, and the OHLC candles. Times are the sandbox clock when the venue saw the event.
 */
import type { Side } from '../../core/order-terms.ts';

export interface TradeRecord {
  readonly atMs: number;
  /** Raw internal units. */
  readonly price: bigint;
  readonly quantity: bigint;
  readonly takerSide: Side;
  readonly takerOrderId: bigint;
}

export interface Candle {
  readonly startMs: number;
  readonly open: bigint;
  readonly high: bigint;
  readonly low: bigint;
  readonly close: bigint;
  readonly volume: bigint;
  readonly trades: number;
}

export const DEFAULT_TRADE_RETENTION_MS = 8 * 86_400_000;
const MAX_TRADES = 200_000;

export class TradeLog {
  readonly #retentionMs: number;
  #trades: TradeRecord[] = [];

  constructor(retentionMs = DEFAULT_TRADE_RETENTION_MS) {
    this.#retentionMs = retentionMs;
  }

  add(trade: TradeRecord): void {
    this.#trades.push(trade);
    const cutoff = trade.atMs - this.#retentionMs;
    let drop = 0;
    while (
      drop < this.#trades.length &&
      ((this.#trades[drop] as TradeRecord).atMs < cutoff || this.#trades.length - drop > MAX_TRADES)
    )
      drop++;
    if (drop > 0) this.#trades = this.#trades.slice(drop);
  }

  get count(): number {
    return this.#trades.length;
  }

  last(): TradeRecord | undefined {
    return this.#trades[this.#trades.length - 1];
  }

  all(): readonly TradeRecord[] {
    return this.#trades;
  }

  /** The last trade at or before `atMs`. */
  lastAtOrBefore(atMs: number): TradeRecord | undefined {
    for (let i = this.#trades.length - 1; i >= 0; i--) {
      const t = this.#trades[i] as TradeRecord;
      if (t.atMs <= atMs) return t;
    }
    return undefined;
  }

  /** Base quantity traded in `(fromMs, toMs]`. */
  volume(fromMs: number, toMs: number): bigint {
    let sum = 0n;
    for (let i = this.#trades.length - 1; i >= 0; i--) {
      const t = this.#trades[i] as TradeRecord;
      if (t.atMs <= fromMs) break;
      if (t.atMs <= toMs) sum += t.quantity;
    }
    return sum;
  }

  /**
   * Candles of `intervalMs` aligned to the epoch, for trades in `[fromMs, toMs)`; intervals without a trade
   * are left out. The newest `limit` candles, oldest first.
   */
  candles(intervalMs: number, fromMs: number, toMs: number, limit: number): Candle[] {
    const out: Candle[] = [];
    for (const t of this.#trades) {
      if (t.atMs < fromMs || t.atMs >= toMs) continue;
      const startMs = Math.floor(t.atMs / intervalMs) * intervalMs;
      const c = out[out.length - 1];
      if (c !== undefined && c.startMs === startMs) {
        out[out.length - 1] = {
          startMs,
          open: c.open,
          high: t.price > c.high ? t.price : c.high,
          low: t.price < c.low ? t.price : c.low,
          close: t.price,
          volume: c.volume + t.quantity,
          trades: c.trades + 1,
        };
      } else {
        out.push({
          startMs,
          open: t.price,
          high: t.price,
          low: t.price,
          close: t.price,
          volume: t.quantity,
          trades: 1,
        });
      }
    }
    return out.slice(Math.max(0, out.length - limit));
  }
}
