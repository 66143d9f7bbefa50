/**
 * Markouts: what a fill of ours was worth some time after it, against the value (the fair value, or the mid of
 * others' book where there is none) at the fill and at each horizon. A buy at p with the value later at v marks
 * out at (v - p) × q quote units and (v - p) / p × 10^4 bp; a sell the other way round. Positive: the fill
 * earned; negative: it was picked off by someone who knew better.
 *
 * The per-pair figures are volume-weighted: Σ markout / Σ (price × quantity) × 10^4, kept by side and by ladder
 * level, incrementally (each fill at each horizon is added once).
 */
import { Decimal } from '../decimal.ts';
import type { Side } from '../order-terms.ts';

const ZERO = new Decimal(0);
const BP = new Decimal(10_000);

export interface MarkedFill {
  readonly side: Side;
  readonly quantity: Decimal;
  readonly price: Decimal;
}

/** The markout of one fill against `value`, in quote units and bp of its price. */
export function markoutOf(f: MarkedFill, value: Decimal): { readonly quote: Decimal; readonly bps: Decimal } {
  const perUnit = f.side === 'buy' ? value.sub(f.price) : f.price.sub(value);
  return { quote: perUnit.mul(f.quantity), bps: perUnit.div(f.price).mul(BP) };
}

/** Volume-weighted markout of a set of fills at one horizon. */
export class MarkoutSum {
  #quote = ZERO;
  #notional = ZERO;
  #fills = 0;

  add(f: MarkedFill, value: Decimal): void {
    this.#quote = this.#quote.add(markoutOf(f, value).quote);
    this.#notional = this.#notional.add(f.price.mul(f.quantity));
    this.#fills += 1;
  }

  get fills(): number {
    return this.#fills;
  }

  get quote(): Decimal {
    return this.#quote;
  }

  get notional(): Decimal {
    return this.#notional;
  }

  /** Σ markout / Σ notional in bp; null without fills. */
  get bps(): Decimal | null {
    return this.#notional.isZero() ? null : this.#quote.div(this.#notional).mul(BP);
  }
}

/** A value's path in time: the latest value at or before a moment, for as long as it is kept. */
export class ValueTimeline {
  readonly #times: number[] = [];
  readonly #values: Decimal[] = [];
  #start = 0;

  /** Appends `value` from `atMs` on (times never go back; an equal value is not stored twice). */
  push(atMs: number, value: Decimal): void {
    const n = this.#times.length;
    if (n > this.#start) {
      const lastAt = this.#times[n - 1]!;
      if (atMs < lastAt) throw new RangeError(`value timeline: ${atMs} before ${lastAt}`);
      if (this.#values[n - 1]!.eq(value)) return;
      if (atMs === lastAt) {
        this.#values[n - 1] = value;
        return;
      }
    }
    this.#times.push(atMs);
    this.#values.push(value);
  }

  /** The value in force at `atMs`, or null when none was known then (or it is no longer kept). */
  at(atMs: number): Decimal | null {
    let lo = this.#start;
    let hi = this.#times.length - 1;
    if (hi < lo || this.#times[lo]! > atMs) return null;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#times[mid]! <= atMs) lo = mid;
      else hi = mid - 1;
    }
    return this.#values[lo]!;
  }

  /** Forgets values superseded before `atMs` (the one in force at `atMs` stays). */
  forgetBefore(atMs: number): void {
    while (this.#start + 1 < this.#times.length && this.#times[this.#start + 1]! <= atMs) this.#start += 1;
    // Compact once the forgotten head outweighs what is kept.
    if (this.#start > 1024 && this.#start * 2 > this.#times.length) {
      this.#times.splice(0, this.#start);
      this.#values.splice(0, this.#start);
      this.#start = 0;
    }
  }

  get size(): number {
    return this.#times.length - this.#start;
  }
}
