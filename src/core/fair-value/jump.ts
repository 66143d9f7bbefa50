/**
 * The jump guard's memory: fair values seen within a window; a value further than the threshold from any of
 * them starts a cool-down that ends `coolDownMs` after the last such move. Pure: time is passed in.
 */
import { Decimal } from '../decimal.ts';

export interface JumpSettings {
  readonly thresholdBps: number;
  readonly windowMs: number;
  readonly coolDownMs: number;
}

export interface JumpVerdict {
  /** Until when the pair is paused; null when it is not. */
  readonly pausedUntilMs: number | null;
  /** The move that started or extended the pause, when this observation made one. */
  readonly move: { readonly fromValue: Decimal; readonly toValue: Decimal; readonly bps: Decimal } | null;
}

const BPS = new Decimal(10_000);

export class JumpDetector {
  readonly #s: JumpSettings;
  #history: Array<{ atMs: number; value: Decimal }> = [];
  #pausedUntilMs: number | null = null;

  constructor(settings: JumpSettings) {
    this.#s = settings;
  }

  /** The fair value at `nowMs` (null: none); returns whether the pair is paused and the move that did it. */
  observe(nowMs: number, value: Decimal | null): JumpVerdict {
    this.#history = this.#history.filter((h) => nowMs - h.atMs <= this.#s.windowMs);
    let move: JumpVerdict['move'] = null;
    if (value !== null && this.#history.length > 0) {
      // The largest move from any value seen is from the lowest (a rise) or the highest (a fall): |v - h| / h
      // falls as h rises below v and rises with h above it. Two divisions instead of one per value seen.
      let low = (this.#history[0] as { value: Decimal }).value;
      let high = low;
      for (const h of this.#history) {
        if (h.value.lt(low)) low = h.value;
        if (h.value.gt(high)) high = h.value;
      }
      for (const h of low.eq(high) ? [low] : [low, high]) {
        const moved = value.sub(h).abs().mul(BPS);
        // Within the threshold of a positive value (the usual case): no division needed to know it.
        if (h.isPositive() && !h.isZero() && moved.lte(h.mul(this.#s.thresholdBps))) continue;
        const bps = moved.div(h);
        if (bps.gt(this.#s.thresholdBps) && (move === null || bps.gt(move.bps)))
          move = { fromValue: h, toValue: value, bps };
      }
    }
    if (value !== null) {
      const last = this.#history.at(-1);
      if (last === undefined || !last.value.eq(value) || nowMs - last.atMs >= this.#s.windowMs / 4)
        this.#history.push({ atMs: nowMs, value });
    }
    if (move !== null) {
      this.#pausedUntilMs = nowMs + this.#s.coolDownMs;
      // What was seen before the move is not compared again: the cool-down runs from the move, not from history.
      this.#history = [{ atMs: nowMs, value: value as Decimal }];
    }
    if (this.#pausedUntilMs !== null && nowMs >= this.#pausedUntilMs) this.#pausedUntilMs = null;
    return { pausedUntilMs: this.#pausedUntilMs, move };
  }
}
