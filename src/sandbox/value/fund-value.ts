/**
 * The true value of an accumulating fund: its start value grown at an annual accrual rate on the sandbox
 * clock (simple interest, ACT/365, as the bot's NAV accrual counts it), times a random walk on wall time that
 * reverts to and stays banded around the static reference price. The walk runs on the value without its
 * accrual (its "level"), so the accrual moves the anchor and the band along with the value: at the start
 * the level is the static reference price; when the reference price changes (calendar mode: the last price
 * at the close), the level's anchor becomes that price without the accrual up to then.
 */
import { Decimal } from '../../core/decimal.ts';
import { walkStep, type ValueModel, type WalkSettings } from './walk.ts';

const YEAR_MS = 365 * 86_400_000;

export interface FundValueOptions extends WalkSettings {
  /** The value at `startMs`: the static reference price. */
  readonly start: Decimal;
  /** Sandbox time the value starts at, epoch ms. */
  readonly startMs: number;
  /** Annual accrual rate, percent. */
  readonly accrualPercent: Decimal;
}

export class FundValue implements ValueModel {
  readonly kind = 'fund' as const;
  readonly #options: FundValueOptions;
  #level: Decimal;
  #anchorLevel: Decimal;
  #seenAnchor: Decimal;

  constructor(options: FundValueOptions) {
    this.#options = options;
    this.#level = options.start;
    this.#anchorLevel = options.start;
    this.#seenAnchor = options.start;
  }

  /** The accrual factor from the start to `sandboxMs` (below 1 before the start). */
  growth(sandboxMs: number): Decimal {
    return new Decimal(1).add(
      this.#options.accrualPercent
        .div(100)
        .mul(sandboxMs - this.#options.startMs)
        .div(YEAR_MS),
    );
  }

  step(dtWallMs: number, sandboxMs: number, anchor: Decimal): void {
    if (!anchor.eq(this.#seenAnchor)) {
      this.#seenAnchor = anchor;
      this.#anchorLevel = anchor.div(this.growth(sandboxMs));
    }
    this.#level = walkStep(this.#level, dtWallMs, this.#anchorLevel, this.#options);
  }

  value(sandboxMs: number): Decimal {
    return this.#level.mul(this.growth(sandboxMs));
  }

  yieldPercent(): null {
    return null;
  }

  shock(bps: number): void {
    this.#level = this.#level.mul(10_000 + bps).div(10_000);
  }
}
