/**
 * A pair's simulated fair value: a random walk with the given volatility (standard deviation of the relative
 * change per square root of an hour), pulled gently back towards an anchor (the static reference price) and
 * kept inside a band around it, so that the simulated traders never walk the market into a volatility halt
 * or out of the price collar on their own.
 */
import { Decimal } from '../../core/decimal.ts';
import type { SeededRandom } from './random.ts';

export interface FairValueOptions {
  readonly start: Decimal;
  /** Relative standard deviation per sqrt(hour), e.g. 0.02. */
  readonly volatility: number;
  /** Half-width of the band around the anchor, in basis points. */
  readonly bandBps: number;
  /** Share of the distance to the anchor closed per hour. */
  readonly reversionPerHour?: number;
  readonly random: SeededRandom;
}

const HOUR_MS = 3_600_000;

export class FairValue {
  value: Decimal;
  readonly #o: FairValueOptions;

  constructor(options: FairValueOptions) {
    this.#o = options;
    this.value = options.start;
  }

  /** Moves the value on by `dtMs` of time and returns it. */
  step(dtMs: number, anchor: Decimal): Decimal {
    const hours = Math.max(0, dtMs) / HOUR_MS;
    const shock = this.#o.volatility * Math.sqrt(hours) * this.#o.random.normal();
    const pull = Math.min(1, (this.#o.reversionPerHour ?? 0.5) * hours);
    let next = this.value.mul(new Decimal(1).add(shock.toFixed(12))).add(anchor.sub(this.value).mul(pull.toFixed(12)));
    const width = anchor.mul(this.#o.bandBps).div(10_000);
    const lo = anchor.sub(width);
    const hi = anchor.add(width);
    if (next.lt(lo)) next = lo;
    if (next.gt(hi)) next = hi;
    this.value = next;
    return next;
  }
}
