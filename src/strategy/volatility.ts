/**
 * Online volatility of the reference price: an exponentially weighted mean of squared log returns per second,
 * with weights by elapsed time (a half-life), so irregular sampling needs no resampling. Pure state in,
 * state out; the state is plain JSON so that the engine can keep it across restarts.
 *
 * Units: the variance is per second of log returns, so sigma = sqrt(variance) is per square-root second
 * (0.0001 per sqrt(s) is about 29 % a year over 252 trading days of 9 hours).
 */
import { modelLn } from '../core/decimal-math.ts';
import { Decimal } from '../core/decimal.ts';

export interface VolatilityParams {
  /** Time after which a sample's weight has halved. */
  readonly halfLifeMs: number;
  /** Floor of sigma, per square-root second: quiet markets do not collapse the spread of a model. */
  readonly minimum: number;
  /** Prior sigma before any return was seen, per square-root second; it fades with the half-life. */
  readonly initial: number;
  /** A longer gap between samples (a halt, a night) re-anchors the price instead of counting as a return. */
  readonly maxGapMs: number;
}

export interface VolatilityState {
  /** Variance of log returns per second, decimal text. */
  readonly variance: string;
  /** The last sampled price (decimal text) and its time; null before the first sample. */
  readonly lastPrice: string | null;
  readonly lastMs: number | null;
  /** Returns folded in so far. */
  readonly samples: number;
}

export function initialVolatilityState(params: Pick<VolatilityParams, 'initial'>): VolatilityState {
  const sigma = new Decimal(params.initial);
  return { variance: sigma.mul(sigma).toFixed(), lastPrice: null, lastMs: null, samples: 0 };
}

const MS_PER_SECOND = new Decimal(1000);

/**
 * Folds the price sampled at `atMs` into the estimate. A sample that is not later than the previous one, or
 * not positive, changes nothing (the next sample measures the move over the whole interval instead).
 */
export function updateVolatility(
  state: VolatilityState,
  price: Decimal,
  atMs: number,
  params: VolatilityParams,
): VolatilityState {
  if (!price.gt(0) || !Number.isFinite(atMs)) return state;
  if (state.lastPrice === null || state.lastMs === null) {
    return { ...state, lastPrice: price.toFixed(), lastMs: atMs };
  }
  const dtMs = atMs - state.lastMs;
  if (dtMs <= 0) return state;
  if (dtMs > params.maxGapMs) return { ...state, lastPrice: price.toFixed(), lastMs: atMs };
  const logReturn = modelLn(price.div(state.lastPrice));
  const observed = logReturn.mul(logReturn).div(new Decimal(dtMs).div(MS_PER_SECOND));
  // Weight of the new observation: 1 - 2^(-dt / halfLife), a dimensionless fraction. For short intervals
  // it is about dt / tau, so observed * weight ~ r^2 / tau: tiny intervals cannot blow the estimate up.
  const weight = new Decimal(-Math.expm1((-dtMs / params.halfLifeMs) * Math.LN2));
  const previous = new Decimal(state.variance);
  // 34 significant digits are far beyond what an estimate means, and keep the stored state short.
  const variance = previous.add(observed.sub(previous).mul(weight)).toSignificantDigits(34);
  return { variance: variance.toFixed(), lastPrice: price.toFixed(), lastMs: atMs, samples: state.samples + 1 };
}

/** Variance per second with the floor applied: what a model uses as sigma^2. */
export function variancePerSecond(state: VolatilityState, params: Pick<VolatilityParams, 'minimum'>): Decimal {
  const floor = new Decimal(params.minimum);
  const floorVariance = floor.mul(floor);
  const estimate = new Decimal(state.variance);
  return estimate.gt(floorVariance) ? estimate : floorVariance;
}

const isDecimalText = (s: unknown) => typeof s === 'string' && /^[0-9]+(?:\.[0-9]+)?$/.test(s);

/** A state restored from storage, or the initial state when it is not one (never trust a file blindly). */
export function restoreVolatilityState(value: unknown, params: Pick<VolatilityParams, 'initial'>): VolatilityState {
  const v = value as Partial<VolatilityState> | null;
  const ok =
    typeof v === 'object' &&
    v !== null &&
    isDecimalText(v.variance) &&
    (v.lastPrice === null || isDecimalText(v.lastPrice)) &&
    (v.lastMs === null || Number.isFinite(v.lastMs)) &&
    (v.lastPrice === null) === (v.lastMs === null) &&
    Number.isInteger(v.samples) &&
    (v.samples as number) >= 0;
  return ok ? (v as VolatilityState) : initialVolatilityState(params);
}
