/**
 * One pair's fair value while the bot runs: its sources read on their schedules, the guards evaluated at each
 * recomputation, and the pair's loop told whenever the answer may have changed: a source read a new value or
 * failed, or a value is about to pass its maximum age (a timer at that moment, so a guard acts on time, not
 * at the next tick; the verdict is worked out then too, so that it is said on time while a round is busy).
 */
import type { Clock, Timer } from '../../core/clock.ts';
import type { FairValueConfig } from '../../core/config/fair-value-config.ts';
import type { Decimal } from '../../core/decimal.ts';
import type { FairValueSample } from '../../store/fair-value-store.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import { deriveFairValueGauges } from './metrics.ts';
import { FairValueGuards, type FairValueVerdict } from './guards.ts';
import type { FairValueSource } from './sources.ts';
import type { SourceReading } from '../../core/fair-value/combine.ts';

export interface PairFairValueOptions {
  readonly pairId: string;
  readonly config: FairValueConfig;
  readonly sources: readonly FairValueSource[];
  readonly clock: Clock;
  readonly logger: Logger;
  /** The trading-day report's samples: the last verdict written every `everyMs`. */
  readonly samples?: { readonly everyMs: number; write(sample: FairValueSample): void };
  /** Every new reading of a source, when it is read (the recording). */
  readonly onReading?: (reading: SourceReading, nowMs: number) => void;
}

export class PairFairValue {
  readonly pairId: string;
  readonly config: FairValueConfig;
  readonly sources: readonly FairValueSource[];
  readonly #options: PairFairValueOptions;
  readonly #guards: FairValueGuards;
  readonly #timers: Timer[] = [];
  readonly #expiry = new Map<FairValueSource, Timer>();
  #last: FairValueVerdict | null = null;
  #jumpEnd: Timer | null = null;
  #listeners: Array<() => void> = [];
  #stopped = false;

  constructor(options: PairFairValueOptions) {
    this.#options = options;
    this.pairId = options.pairId;
    this.config = options.config;
    this.sources = options.sources;
    this.#guards = new FairValueGuards(options.config, options.logger);
  }

  /** `fn` runs whenever the answer may have changed (the pair's loop recomputes). */
  onChange(fn: () => void): void {
    this.#listeners.push(fn);
  }

  #changed(): void {
    if (this.#stopped) return;
    for (const fn of this.#listeners) fn();
  }

  /** Reads every source once (all at once), then keeps reading each on its schedule. */
  async start(): Promise<void> {
    await Promise.all(this.sources.map((s) => this.#refresh(s)));
    for (const s of this.sources)
      this.#timers.push(this.#options.clock.setRepeating(() => void this.#refresh(s), s.pollMs));
    const samples = this.#options.samples;
    if (samples !== undefined && samples.everyMs > 0)
      this.#timers.push(this.#options.clock.setRepeating(() => this.#sample(samples.write), samples.everyMs));
  }

  /** Reads every source now, besides their schedules (a replay hands over each recorded reading when it was read). */
  async readNow(): Promise<void> {
    await Promise.all(this.sources.map((s) => this.#refresh(s)));
  }

  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers.splice(0)) t.cancel();
    for (const t of this.#expiry.values()) t.cancel();
    this.#jumpEnd?.cancel();
    this.#expiry.clear();
  }

  async #refresh(s: FairValueSource): Promise<void> {
    const changed = await s.refresh();
    if (this.#stopped) return;
    this.#scheduleExpiry(s);
    if (!changed) return;
    const now = this.#options.clock.now();
    this.#options.onReading?.(s.reading(now), now);
    this.#changed();
  }

  /** A timer for the moment the source's value passes its maximum age. */
  #scheduleExpiry(s: FairValueSource): void {
    this.#expiry.get(s)?.cancel();
    const now = this.#options.clock.now();
    const r = s.reading(now);
    if (r.atMs === null) return;
    const due = r.atMs + r.maxAgeMs + 1 - now;
    if (due <= 0) return;
    this.#expiry.set(
      s,
      this.#options.clock.setTimer(() => {
        this.#expiry.delete(s);
        // Said and shown at that moment (the log, /fair-value, the board), with the last mid of others, even
        // while the pair's loop is still sending a round; the loop's next round evaluates again with its own.
        if (this.#last !== null) this.evaluate(this.#options.clock.now(), this.#last.othersMid);
        this.#changed();
      }, due),
    );
  }

  #sample(write: (sample: FairValueSample) => void): void {
    const v = this.#last;
    if (v === null) return;
    write({
      pairId: this.pairId,
      atMs: this.#options.clock.now(),
      fair: v.value?.toFixed() ?? null,
      source: v.source,
      othersMid: v.othersMid?.toFixed() ?? null,
      action: v.action,
      guards: [...v.guards.keys()],
    });
  }

  /** The fair value and the guards' verdict now, against the mid of others' book. */
  evaluate(nowMs: number, othersMid: Decimal | null): FairValueVerdict {
    const verdict = this.#guards.evaluate(
      nowMs,
      this.sources.map((s) => s.reading(nowMs)),
      othersMid,
    );
    // The pair recomputes when a jump's cool-down ends, so quoting resumes on time.
    if (verdict.jumpUntilMs !== null && verdict.jumpUntilMs !== this.#last?.jumpUntilMs) {
      this.#jumpEnd?.cancel();
      this.#jumpEnd = this.#options.clock.setTimer(() => this.#changed(), verdict.jumpUntilMs - nowMs);
    }
    this.#last = verdict;
    return verdict;
  }

  /** The last verdict (the board, the metrics); null before the first recomputation. */
  get last(): FairValueVerdict | null {
    return this.#last;
  }
}

/**
 * Starts the fair values of the pairs that have one: each tells its pair's loop (`trigger`) when its answer may
 * have changed, and its series go on /metrics. Resolves when every source has been read once.
 */
export async function startFairValues(
  pairs: ReadonlyArray<{ readonly fairValue?: PairFairValue | undefined }>,
  metrics: Metrics,
  trigger: (pairId: string) => void,
): Promise<void> {
  // One fair value per pair, however many of our wallets quote it.
  const fairValues = [...new Set(pairs.flatMap((p) => (p.fairValue === undefined ? [] : [p.fairValue])))];
  for (const fv of fairValues) fv.onChange(() => trigger(fv.pairId));
  deriveFairValueGauges(metrics, () => fairValues);
  await Promise.all(fairValues.map((fv) => fv.start()));
}
