/**
 * The background maker's view of the true value: an exponentially weighted average with a half-life of
 * wall time, so that its quotes (and the book's mid) trail the value as a thin market's book trails news.
 * After `halfLifeMs` half the distance to the value is closed; a half-life of 0 follows the value at once.
 */
import { Decimal } from '../../core/decimal.ts';

export class LaggedReference {
  readonly #halfLifeMs: number;
  #value: Decimal;
  #atMs: number;

  constructor(start: Decimal, atMs: number, halfLifeMs: number) {
    this.#value = start;
    this.#atMs = atMs;
    this.#halfLifeMs = halfLifeMs;
  }

  get value(): Decimal {
    return this.#value;
  }

  /** Moves towards `target` for the wall time since the last update and returns the view. */
  update(target: Decimal, nowMs: number): Decimal {
    const dt = Math.max(0, nowMs - this.#atMs);
    this.#atMs = Math.max(this.#atMs, nowMs);
    const weight = this.#halfLifeMs <= 0 ? 1 : 1 - 2 ** (-dt / this.#halfLifeMs);
    this.#value = this.#value.add(target.sub(this.#value).mul(weight.toFixed(15)));
    return this.#value;
  }
}
