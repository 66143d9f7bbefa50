/**
 * What the true values of the sandbox share: one interface per pair (the model of a fund or a bond), and the
 * banded, mean-reverting random walk both move by. The walk's time is wall time (a value moves as fast
 * whatever the sandbox clock's speed); the anchor is the pair's static reference price, and the band around
 * it keeps the simulated traders out of the price collar and the volatility controls on their own.
 */
import { Decimal } from '../../core/decimal.ts';
import type { SeededRandom } from '../flow/random.ts';

export const HOUR_MS = 3_600_000;

/** A pair's true value over time: moved by `step`, read at any sandbox instant. */
export interface ValueModel {
  readonly kind: 'fund' | 'bond';
  /** Moves the value on by `dtWallMs` of wall time, at sandbox time `sandboxMs`, around `anchor`. */
  step(dtWallMs: number, sandboxMs: number, anchor: Decimal): void;
  /** The value (quote per base) at sandbox time `sandboxMs`, with the state as it is now. */
  value(sandboxMs: number): Decimal;
  /** A bond's yield in percent; null for a fund. */
  yieldPercent(): Decimal | null;
  /** Moves the value by `bps` basis points at once (news), at sandbox time `sandboxMs`. */
  shock(bps: number, sandboxMs: number): void;
}

export interface WalkSettings {
  /** Standard deviation of the relative change per sqrt(hour), e.g. 0.02. */
  readonly volatility: number;
  /** Half-width of the band around the anchor, basis points. */
  readonly bandBps: number;
  /** Share of the distance to the anchor closed per hour; default 0.5. */
  readonly reversionPerHour?: number;
  readonly random: SeededRandom;
}

/** `value` kept within `bandBps` of `anchor`. */
export function clampToBand(value: Decimal, anchor: Decimal, bandBps: number): Decimal {
  const width = anchor.mul(bandBps).div(10_000);
  const lo = anchor.sub(width);
  const hi = anchor.add(width);
  if (value.lt(lo)) return lo;
  if (value.gt(hi)) return hi;
  return value;
}

/** The share of the way back to the anchor after `hours` (at most all of it). */
export function pullOver(hours: number, reversionPerHour = 0.5): Decimal {
  return new Decimal(Math.min(1, reversionPerHour * hours).toFixed(12));
}

/** One step: a relative shock, a pull towards the anchor, then the band. */
export function walkStep(value: Decimal, dtMs: number, anchor: Decimal, s: WalkSettings): Decimal {
  const hours = Math.max(0, dtMs) / HOUR_MS;
  const shock = s.volatility * Math.sqrt(hours) * s.random.normal();
  const next = value
    .mul(new Decimal(1).add(shock.toFixed(12)))
    .add(anchor.sub(value).mul(pullOver(hours, s.reversionPerHour)));
  return clampToBand(next, anchor, s.bandBps);
}

/**
 * The band a pair's value keeps around its static reference price: half the tighter of the static threshold
 * and the price collar (each 1000 bp when the pair has none), at least 10 bp.
 */
export function bandBpsOf(rules: { readonly staticThresholdBps: number; readonly priceCollarBps: bigint }): number {
  return Math.max(
    10,
    Math.floor(Math.min(rules.staticThresholdBps || 1000, Number(rules.priceCollarBps) || 1000) * 0.5),
  );
}
