/**
 * Avellaneda-Stoikov (2008), "High-frequency trading in a limit order book", in relative units:
 *
 *   reservation  r = s * (1 - q * gamma * sigma^2 * tau)
 *   spread       delta = s * (gamma * sigma^2 * tau + (2 / gamma) * ln(1 + gamma / kappa))
 *   bid = r - delta / 2,  ask = r + delta / 2
 *
 * s: reference price (quote per base); sigma: volatility of log returns per square-root second (so s * sigma
 * is the paper's absolute sigma); tau = T - t in seconds; q: inventory deviation from the target in lots of the
 * quoted size ((base - target) / size), since the paper counts inventory in units of one fill; gamma and kappa
 * are dimensionless. This is the paper's model with gamma_abs = gamma / s and kappa_abs = kappa / s (per unit
 * of price), which makes one parameter set fit pairs at any price level: kappa = 2000 means the arrival rate
 * of market orders falls by e every 5 bp from the reference.
 */
import { modelLn } from '../core/decimal-math.ts';
import { Decimal } from '../core/decimal.ts';
import type { DesiredQuote } from './types.ts';

export interface AvellanedaStoikovParams {
  /** gamma, dimensionless. */
  readonly riskAversion: number;
  /** kappa, per unit of relative distance from the reference. */
  readonly orderBookLiquidity: number;
  /** Base quantity of each quote: one lot. */
  readonly size: Decimal;
  readonly targetInventory: Decimal;
}

export interface AvellanedaStoikovInput {
  readonly reference: Decimal;
  /** sigma^2, per second. */
  readonly variance: Decimal;
  /** T - t, seconds (not negative). */
  readonly horizonSeconds: Decimal;
  /** Base inventory, free and locked. */
  readonly baseInventory: Decimal;
}

export interface AvellanedaStoikovQuotes {
  readonly quotes: DesiredQuote[];
  readonly reservation: Decimal;
  readonly spread: Decimal;
  /** Inventory in lots, as used in the formula. */
  readonly q: Decimal;
}

const ONE = new Decimal(1);
const TWO = new Decimal(2);

/** One bid and one ask of `size` around the reservation price. */
export function avellanedaStoikovQuotes(
  input: AvellanedaStoikovInput,
  params: AvellanedaStoikovParams,
): AvellanedaStoikovQuotes {
  const gamma = new Decimal(params.riskAversion);
  const kappa = new Decimal(params.orderBookLiquidity);
  const s = input.reference;
  const q = input.baseInventory.sub(params.targetInventory).div(params.size);
  const risk = gamma.mul(input.variance).mul(Decimal.max(0, input.horizonSeconds));
  const reservation = s.mul(ONE.sub(q.mul(risk)));
  const intensity = TWO.div(gamma).mul(modelLn(ONE.add(gamma.div(kappa))));
  const spread = s.mul(risk.add(intensity));
  const half = spread.div(TWO);
  return {
    quotes: [
      { side: 'buy', price: reservation.sub(half), quantity: params.size, level: 0 },
      { side: 'sell', price: reservation.add(half), quantity: params.size, level: 0 },
    ],
    reservation,
    spread,
    q,
  };
}
