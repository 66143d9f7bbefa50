/**
 * The fair-value sources of one pair. Each is read on its own schedule (`refresh`), keeps its last value and
 * the time that value describes, and answers `reading(nowMs)`: a NAV carried forward to now, a bond priced
 * for settlement today, a feed's or an oracle's last answer. A read that fails keeps the last value (its age
 * decides whether it is still usable) and says why; it never throws.
 */
import type { FairValueSourceKind } from '../../core/config/fair-value-config.ts';
import type { Decimal } from '../../core/decimal.ts';
import type { SourceReading } from '../../core/fair-value/combine.ts';

export interface FairValueSource {
  readonly kind: FairValueSourceKind;
  readonly pollMs: number;
  readonly maxAgeMs: number;
  /** Where it reads from, for people (an endpoint, a contract, an instrument id). */
  readonly origin: string;
  /** Reads its inputs once; a failure is kept as the reading's error. Resolves true when the value changed. */
  refresh(): Promise<boolean>;
  reading(nowMs: number): SourceReading;
}

/** A value with the time it describes, as a source's read returns it. */
export interface TimedValue {
  readonly value: Decimal;
  readonly atMs: number;
}

/** A source that reads one timed value and answers it as it is (a feed, an oracle). */
export class PolledSource implements FairValueSource {
  readonly kind: FairValueSourceKind;
  readonly pollMs: number;
  readonly maxAgeMs: number;
  readonly origin: string;
  readonly #read: () => Promise<TimedValue>;
  #last: TimedValue | null = null;
  #error: string | null = null;

  constructor(
    spec: { kind: FairValueSourceKind; pollMs: number; maxAgeMs: number; origin: string },
    read: () => Promise<TimedValue>,
  ) {
    this.kind = spec.kind;
    this.pollMs = spec.pollMs;
    this.maxAgeMs = spec.maxAgeMs;
    this.origin = spec.origin;
    this.#read = read;
  }

  async refresh(): Promise<boolean> {
    try {
      const next = await this.#read();
      const changed = this.#last === null || !this.#last.value.eq(next.value) || this.#last.atMs !== next.atMs;
      this.#last = next;
      const recovered = this.#error !== null;
      this.#error = null;
      return changed || recovered;
    } catch (e) {
      const was = this.#error;
      this.#error = e instanceof Error ? e.message : String(e);
      return was !== this.#error;
    }
  }

  /** The last value read, as it was read (the time it describes, not when it was read). */
  get last(): TimedValue | null {
    return this.#last;
  }

  get error(): string | null {
    return this.#error;
  }

  reading(_nowMs: number): SourceReading {
    return {
      kind: this.kind,
      value: this.#last?.value ?? null,
      atMs: this.#last?.atMs ?? null,
      error: this.#error,
      maxAgeMs: this.maxAgeMs,
    };
  }
}

/**
 * A source whose value at `nowMs` is derived from the last inputs read (a NAV accrued to now, a bond priced for
 * today's settlement): `derive` gives the value and the time it describes, or throws why it cannot.
 */
export class DerivedSource<I> implements FairValueSource {
  readonly kind: FairValueSourceKind;
  readonly pollMs: number;
  readonly maxAgeMs: number;
  readonly origin: string;
  readonly #inputs: PolledInputs<I>;
  readonly #derive: (inputs: I, nowMs: number) => TimedValue;

  constructor(
    spec: { kind: FairValueSourceKind; pollMs: number; maxAgeMs: number; origin: string },
    inputs: PolledInputs<I>,
    derive: (inputs: I, nowMs: number) => TimedValue,
  ) {
    this.kind = spec.kind;
    this.pollMs = spec.pollMs;
    this.maxAgeMs = spec.maxAgeMs;
    this.origin = spec.origin;
    this.#inputs = inputs;
    this.#derive = derive;
  }

  refresh(): Promise<boolean> {
    return this.#inputs.refresh();
  }

  reading(nowMs: number): SourceReading {
    const base = { kind: this.kind, maxAgeMs: this.maxAgeMs };
    const inputs = this.#inputs.value;
    if (inputs === null) return { ...base, value: null, atMs: null, error: this.#inputs.error };
    try {
      const v = this.#derive(inputs, nowMs);
      return { ...base, value: v.value, atMs: v.atMs, error: this.#inputs.error };
    } catch (e) {
      return { ...base, value: null, atMs: null, error: e instanceof Error ? e.message : String(e) };
    }
  }
}

/** Inputs read on a schedule: the last good ones are kept through failures. */
export class PolledInputs<I> {
  readonly #read: () => Promise<I>;
  readonly #same: (a: I, b: I) => boolean;
  value: I | null = null;
  error: string | null = null;

  constructor(read: () => Promise<I>, same: (a: I, b: I) => boolean) {
    this.#read = read;
    this.#same = same;
  }

  async refresh(): Promise<boolean> {
    try {
      const next = await this.#read();
      const changed = this.value === null || !this.#same(this.value, next) || this.error !== null;
      this.value = next;
      this.error = null;
      return changed;
    } catch (e) {
      const was = this.error;
      this.error = e instanceof Error ? e.message : String(e);
      return was !== this.error;
    }
  }
}
