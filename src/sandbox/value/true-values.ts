/**
 * The sandbox's hidden true value of every pair: the models of `fund-value.ts` and `bond-value.ts` stepped
 * every `sampleMs` of wall time, each sample kept for an hour (so that an experiment can mark a position to
 * the value of a past moment) and handed to the listeners (the price feeds). Funds publish their NAV on the
 * schedule of `nav-schedule.ts`: the true value at the publication instant, dated the sandbox date; a
 * publication is caught up whenever the value is sampled or the NAV is read, so a clock moved by hand
 * publishes at once. Before the first publication after the start, the NAV is the start value carried back
 * by the accrual to the publication before the start.
 */
import type { Decimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import type { NavPublication, NavSchedule } from './nav-schedule.ts';
import type { ValueModel } from './walk.ts';

export interface TrueValuePair {
  readonly id: string;
  readonly symbol: string;
  readonly model: ValueModel;
  /** The static reference price now: what the value reverts to and is banded around. */
  readonly anchor: () => Decimal;
}

export interface ValueSample {
  /** Wall time of the sample, unix ms. */
  readonly wallMs: number;
  /** Sandbox time of the sample, epoch ms. */
  readonly sandboxMs: number;
  readonly value: Decimal;
  /** Bonds: the yield in percent; null for a fund. */
  readonly yieldPercent: Decimal | null;
}

export interface PublishedValueNav extends NavPublication {
  readonly value: Decimal;
}

export interface TrueValuesOptions {
  readonly pairs: readonly TrueValuePair[];
  /** The sandbox clock, epoch ms. */
  readonly nowMs: () => number;
  readonly wallMs?: () => number;
  /** Wall milliseconds between samples once started. */
  readonly sampleMs: number;
  /** When funds publish their NAV. */
  readonly navSchedule: NavSchedule;
  /** Wall milliseconds of samples kept; default one hour. */
  readonly historyMs?: number;
}

export type SampleListener = (pairId: string, sample: ValueSample) => void;

interface Entry {
  readonly pair: TrueValuePair;
  history: ValueSample[];
  nav: PublishedValueNav | null;
}

export class TrueValues {
  readonly #options: TrueValuesOptions;
  readonly #wall: () => number;
  readonly #entries = new Map<string, Entry>();
  readonly #listeners: SampleListener[] = [];
  #lastWallMs: number;
  #timer: NodeJS.Timeout | null = null;

  constructor(options: TrueValuesOptions) {
    this.#options = options;
    this.#wall = options.wallMs ?? Date.now;
    this.#lastWallMs = this.#wall();
    const now = options.nowMs();
    for (const pair of options.pairs) {
      const first = options.navSchedule(now);
      const nav = pair.model.kind === 'fund' ? { ...first, value: pair.model.value(first.atMs) } : null;
      this.#entries.set(pair.id, { pair, history: [], nav });
    }
    this.sample();
  }

  /** The sandbox clock's reading. */
  nowMs(): number {
    return this.#options.nowMs();
  }

  get pairIds(): string[] {
    return [...this.#entries.keys()];
  }

  /** Every sample from now on (and the latest one of each pair at once). */
  listen(listener: SampleListener): void {
    this.#listeners.push(listener);
    for (const [id, e] of this.#entries) {
      const last = e.history.at(-1);
      if (last !== undefined) listener(id, last);
    }
  }

  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => this.sample(), this.#options.sampleMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Steps every value by the wall time since the last sample, records it, and publishes NAVs due. */
  sample(): void {
    const wallMs = this.#wall();
    const dt = Math.max(0, wallMs - this.#lastWallMs);
    this.#lastWallMs = wallMs;
    const sandboxMs = this.#options.nowMs();
    const keepFrom = wallMs - (this.#options.historyMs ?? 3_600_000);
    for (const [id, e] of this.#entries) {
      e.pair.model.step(dt, sandboxMs, e.pair.anchor());
      this.#catchUpNav(e, sandboxMs);
      const s: ValueSample = {
        wallMs,
        sandboxMs,
        value: e.pair.model.value(sandboxMs),
        yieldPercent: e.pair.model.yieldPercent(),
      };
      e.history.push(s);
      // Trimmed a minute at a time, not at every sample.
      if ((e.history[0]?.wallMs ?? wallMs) < keepFrom - 60_000)
        e.history = e.history.filter((h) => h.wallMs >= keepFrom);
      for (const l of this.#listeners) l(id, s);
    }
  }

  #entry(pairId: string): Entry {
    const e = this.#entries.get(pairId);
    if (e === undefined)
      throw new DltError('E_SANDBOX', `no true value for pair ${pairId}`, {
        details: { part: 'value', notFound: true },
      });
    return e;
  }

  #catchUpNav(e: Entry, sandboxMs: number): void {
    if (e.nav === null) return;
    const due = this.#options.navSchedule(sandboxMs);
    if (due.atMs > e.nav.atMs) e.nav = { ...due, value: e.pair.model.value(due.atMs) };
  }

  /** The true value now (sandbox clock), quote per base. */
  value(pairId: string): Decimal {
    return this.#entry(pairId).pair.model.value(this.#options.nowMs());
  }

  /** A bond's yield now, percent; null for a fund. */
  yieldPercent(pairId: string): Decimal | null {
    return this.#entry(pairId).pair.model.yieldPercent();
  }

  /** The last sample at or before `wallMs` (unix ms), if it is still kept. */
  at(pairId: string, wallMs: number): ValueSample | undefined {
    return this.#entry(pairId).history.findLast((s) => s.wallMs <= wallMs);
  }

  /** A fund's last published NAV; null for a bond. */
  nav(pairId: string): PublishedValueNav | null {
    const e = this.#entry(pairId);
    this.#catchUpNav(e, this.#options.nowMs());
    return e.nav;
  }

  /** Moves a pair's value by `bps` at once (news), and samples it. */
  shock(pairId: string, bps: number): void {
    this.#entry(pairId).pair.model.shock(bps, this.#options.nowMs());
    this.sample();
  }
}
