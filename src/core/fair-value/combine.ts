/**
 * Combining fair-value sources: each source's last reading is usable while it is younger than the source's
 * maximum age (by the reading's own time: a NAV's date, an oracle's `updatedAt`, a feed's timestamp); the
 * fair value is the first usable source in the configured order, or the median of the usable ones, which
 * refuses to answer when they lie further apart than the maximum dispersion. Pure: time is passed in.
 */
import { Decimal } from '../decimal.ts';
import type { FairValueSourceKind } from '../config/fair-value-config.ts';

/** A source's latest value and the time it describes (epoch ms), or why there is none. */
export interface SourceReading {
  readonly kind: FairValueSourceKind;
  readonly value: Decimal | null;
  /** The time the value describes; null when there is no value. */
  readonly atMs: number | null;
  /** Why there is no value (the last read failed, nothing read yet); null when there is one. */
  readonly error: string | null;
  readonly maxAgeMs: number;
}

export interface SourceState {
  readonly kind: FairValueSourceKind;
  readonly value: Decimal | null;
  readonly ageMs: number | null;
  readonly usable: boolean;
  /** Why it is not usable (stale, failing, not read yet). */
  readonly reason: string | null;
}

export interface Combined {
  /** The fair value; null when no source is usable or the usable ones disagree. */
  readonly value: Decimal | null;
  /** The source it came from (`median` for a median of several). */
  readonly source: FairValueSourceKind | 'median' | null;
  readonly sources: readonly SourceState[];
  /** Median: the largest distance of a usable source from the median, bp of the median. */
  readonly dispersionBps: Decimal | null;
  /** Why there is no fair value: `unavailable` or `dispersion`, with the detail. */
  readonly problem: { readonly guard: 'unavailable' | 'dispersion'; readonly detail: string } | null;
}

const BPS = new Decimal(10_000);

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Whether a reading is usable at `nowMs`, and why not. A value dated ahead of now counts as age 0. */
export function stateOf(r: SourceReading, nowMs: number): SourceState {
  if (r.value === null || r.atMs === null)
    return { kind: r.kind, value: null, ageMs: null, usable: false, reason: r.error ?? 'not read yet' };
  const ageMs = Math.max(0, nowMs - r.atMs);
  if (ageMs > r.maxAgeMs)
    return {
      kind: r.kind,
      value: r.value,
      ageMs,
      usable: false,
      reason: `stale: ${seconds(ageMs)} old, at most ${seconds(r.maxAgeMs)}${r.error === null ? '' : `; ${r.error}`}`,
    };
  if (r.value.lte(0)) return { kind: r.kind, value: r.value, ageMs, usable: false, reason: 'not positive' };
  return { kind: r.kind, value: r.value, ageMs, usable: true, reason: null };
}

/** The median of a non-empty list (the mean of the middle two for an even count). */
export function median(values: readonly Decimal[]): Decimal {
  const sorted = values.toSorted((a, b) => a.cmp(b));
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as Decimal)
    : (sorted[mid - 1] as Decimal).add(sorted[mid] as Decimal).div(2);
}

export function combine(
  readings: readonly SourceReading[],
  mode: 'first' | 'median',
  maxDispersionBps: number,
  nowMs: number,
): Combined {
  const sources = readings.map((r) => stateOf(r, nowMs));
  const usable = sources.filter((s) => s.usable);
  if (usable.length === 0) {
    const detail = sources.map((s) => `${s.kind}: ${s.reason ?? 'unusable'}`).join('; ');
    return { value: null, source: null, sources, dispersionBps: null, problem: { guard: 'unavailable', detail } };
  }
  if (mode === 'first') {
    const first = usable[0] as SourceState;
    return { value: first.value, source: first.kind, sources, dispersionBps: null, problem: null };
  }
  const values = usable.map((s) => s.value as Decimal);
  const m = median(values);
  const spread = values.reduce((w, v) => Decimal.max(w, v.sub(m).abs().mul(BPS).div(m)), new Decimal(0));
  if (spread.gt(maxDispersionBps)) {
    const detail = `${usable.map((s) => `${s.kind} ${(s.value as Decimal).toFixed()}`).join(', ')}: ${spread.toFixed(1)} bp from their median, at most ${maxDispersionBps}`;
    return { value: null, source: null, sources, dispersionBps: spread, problem: { guard: 'dispersion', detail } };
  }
  return {
    value: m,
    source: usable.length === 1 ? (usable[0] as SourceState).kind : 'median',
    sources,
    dispersionBps: spread,
    problem: null,
  };
}
