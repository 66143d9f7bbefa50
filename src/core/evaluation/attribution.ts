/**
 * PnL of one pair marked to a value (the fair value, or the mid of others' book where there is none), split so
 * that the parts add up exactly:
 *
 *   total = spread capture + inventory result - commissions - chain fees
 *
 * - spread capture: each fill against the value at its moment, at the amounts the chain moved: a buy of q base
 *   for c quote (commission excluded) captures q × value - c, a sell captures c - q × value;
 * - inventory result: what the position won or lost as the value moved after each fill, position × value now
 *   less Σ (signed quantity × value at the fill);
 * - commissions: what the venue charged on our fills (quote units);
 * - chain fees: the native fees of our transactions at a configured rate to the quote currency.
 *
 * total itself is the cash the fills moved (commissions included) plus the position at the value now, less the
 * chain fees. Every figure is a sum of exact decimal products (200 significant digits), so the identity holds
 * to the last unit. Incremental: each fill and each fee is applied once, whatever the length of the day.
 */
import { Decimal } from '../decimal.ts';

const ZERO = new Decimal(0);

/** One fill as the chain settled it, in human units. */
export interface AttributedFill {
  /** Base the wallet gained (negative for a sell). */
  readonly baseDelta: Decimal;
  /** Quote the wallet gained, commission included (negative for a buy). */
  readonly quoteDelta: Decimal;
  /** Commission charged, quote units (included in quoteDelta). */
  readonly commission: Decimal;
  /** The value (quote per base) at the fill's moment. */
  readonly valueAtFill: Decimal;
}

export interface AttributionParts {
  readonly total: Decimal;
  readonly spreadCapture: Decimal;
  readonly inventory: Decimal;
  readonly commissions: Decimal;
  readonly chainFees: Decimal;
  readonly position: Decimal;
  /** The value the position is marked at (null: none yet; the position then counts at its fills' values). */
  readonly value: Decimal | null;
}

export class Attribution {
  #position = ZERO;
  #cash = ZERO;
  #spreadCapture = ZERO;
  /** Σ signed quantity × value at the fill. */
  #valueAtFills = ZERO;
  #commissions = ZERO;
  #chainFees = ZERO;
  #fills = 0;

  addFill(f: AttributedFill): void {
    const tradeCash = f.quoteDelta.add(f.commission);
    const atValue = f.baseDelta.mul(f.valueAtFill);
    this.#position = this.#position.add(f.baseDelta);
    this.#cash = this.#cash.add(f.quoteDelta);
    this.#spreadCapture = this.#spreadCapture.add(atValue).add(tradeCash);
    this.#valueAtFills = this.#valueAtFills.add(atValue);
    this.#commissions = this.#commissions.add(f.commission);
    this.#fills += 1;
  }

  /**
   * A position held before the figures start (a trading day's opening position), valued at `value`: it adds no
   * spread capture and no PnL at that value; what it wins or loses afterwards is inventory result.
   */
  addOpening(position: Decimal, value: Decimal): void {
    const atValue = position.mul(value);
    this.#position = this.#position.add(position);
    this.#cash = this.#cash.sub(atValue);
    this.#valueAtFills = this.#valueAtFills.add(atValue);
  }

  /** A transaction's native fee, already converted to quote units. */
  addChainFee(quote: Decimal): void {
    this.#chainFees = this.#chainFees.add(quote);
  }

  get fills(): number {
    return this.#fills;
  }

  get position(): Decimal {
    return this.#position;
  }

  /** The parts with the position marked at `value` (null: at its fills' values, so the inventory result is 0). */
  at(value: Decimal | null): AttributionParts {
    const marked = value === null ? this.#valueAtFills : this.#position.mul(value);
    const inventory = marked.sub(this.#valueAtFills);
    return {
      total: this.#cash.add(marked).sub(this.#chainFees),
      spreadCapture: this.#spreadCapture,
      inventory,
      commissions: this.#commissions,
      chainFees: this.#chainFees,
      position: this.#position,
      value,
    };
  }
}
