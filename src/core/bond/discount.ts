/**
 * Discounting at the yield, at 40 significant digits instead of the 200 of money arithmetic: fractional powers
 * (exp and ln) at 200 digits cost many times more and no price per 100 needs more than 40 digits. The working
 * context is private to this module; results are the project's Decimal.
 */
import { Decimal } from '../decimal.ts';
import { workingPrecision } from '../decimal-math.ts';
import { bondInputError } from './dates.ts';
import type { CashFlow } from './cash-flows.ts';

export const WORKING_DIGITS = 40;

const Work = workingPrecision(WORKING_DIGITS);

export interface Valuation {
  /** Present value of the flows at settlement, per 100 nominal. */
  readonly dirtyPrice: Decimal;
  /** Its derivative with respect to the yield in percent. */
  readonly slope: Decimal;
}

/** One plus the yield per period; at or below zero the yield has no meaning. */
function growthPerPeriod(yieldPercent: Decimal, frequency: number): InstanceType<typeof Work> {
  // At the project's precision: a yield a hair above −100% a period leaves a base far below 1e-40.
  const base = new Work(new Decimal(1).add(yieldPercent.div(100 * frequency)));
  if (!base.gt(0))
    throw bondInputError(`yield ${yieldPercent.toString()}% is not above -${100 * frequency}% (-100% a period)`);
  return base;
}

/**
 * Σ amount × (1 + y/f)^(−periods), with y the yield in percent / 100 compounded `frequency` times a year. Each
 * discount factor is the previous one times (1 + y/f)^(−step), and the powers of the few distinct steps (one
 * period, or an ACT/360 month of 28 to 31 days) are computed once.
 */
export function valueAtYield(flows: readonly CashFlow[], frequency: number, yieldPercent: Decimal): Valuation {
  const base = growthPerPeriod(yieldPercent, frequency);
  const logBase = base.ln();
  const powers = new Map<string, InstanceType<typeof Work>>();
  const power = (step: InstanceType<typeof Work>) => {
    const key = step.toString();
    const known = powers.get(key) ?? logBase.mul(step).neg().exp();
    powers.set(key, known);
    return known;
  };
  // d/dy base^(−t) = −t × base^(−t) / (base × 100 × f) for y in percent.
  const slopeUnit = base.mul(100 * frequency);
  let value = new Work(0);
  let slope = new Work(0);
  let discount = new Work(1);
  let previous = new Work(0);
  for (const flow of flows) {
    const periods = new Work(flow.periods).toSignificantDigits(WORKING_DIGITS);
    discount = discount.mul(power(periods.sub(previous)));
    previous = periods;
    const discounted = new Work(flow.amount).toSignificantDigits(WORKING_DIGITS).mul(discount);
    value = value.add(discounted);
    slope = slope.sub(discounted.mul(periods).div(slopeUnit));
  }
  return { dirtyPrice: new Decimal(value), slope: new Decimal(slope) };
}
