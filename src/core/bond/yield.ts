/**
 * Yield from a clean price: the yield (percent, compounded at the coupon frequency, ICMA) at which the bond's
 * remaining payments are worth the clean price plus accrued interest. The dirty price falls strictly as the yield
 * rises, from +∞ at −100%·f towards the payments due without discounting as the yield grows, so a yield fits
 * exactly when the dirty price lies between. Newton's method, falling back to bisection whenever a step would
 * leave the bracket known to hold the yield; it stops when a step or the bracket is under 1e-10 percent.
 */
import { Decimal } from '../decimal.ts';
import type { DltError } from '../errors.ts';
import { bondInputError, type PlainDate } from './dates.ts';
import { settle, type BondTerms } from './cash-flows.ts';
import { valueAtYield, type Valuation } from './discount.ts';
import type { BondPrice } from './price.ts';

/** The solver's tolerance, in yield percent (1e-12 as a decimal yield). */
export const YIELD_TOLERANCE_PERCENT = new Decimal('1e-10');
/** Newton or bisection steps at most, after the bracket is found. */
export const MAX_YIELD_ITERATIONS = 200;
/** Doublings of the step up, or halvings of the distance to −100%·f down, when looking for the bracket. */
const MAX_BRACKET_STEPS = 200;

type Valuer = (yieldPercent: Decimal) => Valuation;

interface Bracket {
  /** A yield whose dirty price is at or above the target. */
  readonly low: Decimal;
  /** A yield whose dirty price is at or below the target. */
  readonly high: Decimal;
}

function noYield(target: Decimal, why: string): DltError {
  const shown = target.toSignificantDigits(20).toFixed();
  return bondInputError(`no yield fits the dirty price ${shown}: ${why}`, { dirtyPrice: target.toFixed() });
}

/** Up from `guess` (worth at least the target) by 1, 2, 4, … percent until a yield is worth at most the target. */
function bracketAbove(value: Valuer, target: Decimal, guess: Decimal): Bracket {
  let low = guess;
  for (let i = 0, step = new Decimal(1); ; i++, step = step.mul(2)) {
    const high = guess.add(step);
    if (value(high).dirtyPrice.lte(target)) return { low, high };
    if (i === MAX_BRACKET_STEPS)
      throw noYield(target, `it is below the value even at a yield of ${high.toExponential(3)}%`);
    low = high;
  }
}

/** Down from `guess` (worth less than the target), halving the distance to `floor`, until a yield is worth more. */
function bracketBelow(value: Valuer, target: Decimal, guess: Decimal, floor: Decimal): Bracket {
  let high = guess;
  for (let i = 0, distance = guess.sub(floor).div(2); ; i++, distance = distance.div(2)) {
    const low = floor.add(distance);
    if (value(low).dirtyPrice.gte(target)) return { low, high };
    if (i === MAX_BRACKET_STEPS)
      throw noYield(target, 'it is above the value at any yield the solver reaches, 2^-200 above -100% a period');
    high = low;
  }
}

function solve(value: Valuer, target: Decimal, bracket: Bracket, start: Decimal): Decimal {
  let { low, high } = bracket;
  let y = start;
  for (let i = 0; i < MAX_YIELD_ITERATIONS; i++) {
    const { dirtyPrice, slope } = value(y);
    const gap = dirtyPrice.sub(target);
    if (gap.isZero()) return y;
    if (gap.gt(0)) low = y;
    else high = y;
    const step = slope.isZero() ? null : gap.div(slope);
    if (step !== null && step.abs().lt(YIELD_TOLERANCE_PERCENT)) return y.sub(step);
    const newton = step === null ? null : y.sub(step);
    y = newton !== null && newton.gt(low) && newton.lt(high) ? newton : low.add(high).div(2);
    if (high.sub(low).lt(YIELD_TOLERANCE_PERCENT)) return y;
  }
  throw noYield(target, `the solver did not converge in ${MAX_YIELD_ITERATIONS} steps`);
}

/** The yield in percent at which the bond is worth `cleanPrice` (per 100 nominal) at `settlement`. */
export function yieldFromCleanPrice(terms: BondTerms, settlement: PlainDate, cleanPrice: Decimal): BondPrice {
  const bond = settle(terms, settlement);
  const dirtyPrice = cleanPrice.add(bond.accruedInterest);
  if (!dirtyPrice.gt(0)) throw noYield(dirtyPrice, 'a dirty price must be above zero');
  const value: Valuer = (y) => valueAtYield(bond.flows, terms.frequency, y);
  const floor = new Decimal(-100 * terms.frequency);
  const guess = terms.couponPercent;
  const bracket = value(guess).dirtyPrice.gte(dirtyPrice)
    ? bracketAbove(value, dirtyPrice, guess)
    : bracketBelow(value, dirtyPrice, guess, floor);
  const yieldPercent = solve(value, dirtyPrice, bracket, guess);
  return { cleanPrice, accruedInterest: bond.accruedInterest, dirtyPrice, yieldPercent };
}
