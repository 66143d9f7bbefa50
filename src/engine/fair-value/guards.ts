/**
 * The fair-value guards of one pair, evaluated at every recomputation: no usable source (`unavailable`: the
 * strategy falls back to its next reference source), sources that disagree (`dispersion`: no quotes), fair
 * value far from the book of others (`deviation`: the configured action), and a sudden move (`jump`: no
 * quotes for a cool-down). Each guard is logged once when it starts (with its numbers and action) and once
 * when it ends; so is a source that becomes unusable and usable again.
 */
import type { FairValueConfig } from '../../core/config/fair-value-config.ts';
import { Decimal } from '../../core/decimal.ts';
import { combine, type Combined, type SourceReading } from '../../core/fair-value/combine.ts';
import { JumpDetector } from '../../core/fair-value/jump.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { NOT_APPLICABLE } from './instrument-sources.ts';

export const GUARDS = ['unavailable', 'dispersion', 'deviation', 'jump'] as const;
export type GuardName = (typeof GUARDS)[number];
export type GuardAction = 'quote' | 'pull' | 'widen';

export interface FairValueVerdict {
  readonly atMs: number;
  /** The fair value the strategy may use (`fair`); null when there is none or the sources disagree. */
  readonly value: Decimal | null;
  readonly source: Combined['source'];
  readonly combined: Combined;
  /** Fair value against the mid of others' book, bp of the mid; null without both. */
  readonly deviationBps: Decimal | null;
  readonly othersMid: Decimal | null;
  /** Guards in force, with why. */
  readonly guards: ReadonlyMap<GuardName, string>;
  /** What the guards want: quote as usual, pull every quote of the pair, or widen them. */
  readonly action: GuardAction;
  /** The widen action's factor (1 otherwise). */
  readonly widen: number;
  /** While the jump guard holds: when it ends. */
  readonly jumpUntilMs: number | null;
}

const BPS = new Decimal(10_000);
const NOT_READ = 'not read yet';

export class FairValueGuards {
  readonly #config: FairValueConfig;
  readonly #logger: Logger;
  readonly #jump: JumpDetector | null;
  #active = new Map<GuardName, string>();
  #unusable = new Map<string, string>();

  constructor(config: FairValueConfig, logger: Logger) {
    this.#config = config;
    this.#logger = logger;
    const j = config.guards.jump;
    this.#jump = j === undefined ? null : new JumpDetector(j);
  }

  evaluate(nowMs: number, readings: readonly SourceReading[], othersMid: Decimal | null): FairValueVerdict {
    const c = this.#config;
    const combined = combine(readings, c.combine, c.maxDispersionBps, nowMs);
    this.#logSources(combined);
    const guards = new Map<GuardName, string>();
    if (combined.problem !== null) guards.set(combined.problem.guard, combined.problem.detail);
    const jump = this.#jump?.observe(nowMs, combined.value) ?? null;
    if (jump?.pausedUntilMs != null) {
      const move =
        jump.move === null
          ? ''
          : `${jump.move.fromValue.toFixed()} -> ${jump.move.toValue.toFixed()} (${jump.move.bps.toFixed(1)} bp); `;
      guards.set('jump', `${move}paused until ${new Date(jump.pausedUntilMs).toISOString()}`);
    }
    const deviationBps =
      combined.value === null || othersMid === null || othersMid.lte(0)
        ? null
        : combined.value.sub(othersMid).abs().mul(BPS).div(othersMid);
    const max = c.guards.maxDeviationBps;
    if (deviationBps !== null && max !== undefined && deviationBps.gt(max))
      guards.set(
        'deviation',
        `fair ${(combined.value as Decimal).toFixed()} against the others' mid ${(othersMid as Decimal).toFixed()}: ${deviationBps.toFixed(1)} bp, at most ${max} (action ${c.guards.onDeviation})`,
      );
    const pull =
      guards.has('dispersion') || guards.has('jump') || (guards.has('deviation') && c.guards.onDeviation === 'pull');
    const widen = !pull && guards.has('deviation') && c.guards.onDeviation === 'widen';
    const action: GuardAction = pull ? 'pull' : widen ? 'widen' : 'quote';
    this.#logGuards(guards, action);
    return {
      atMs: nowMs,
      value: combined.value,
      source: combined.source,
      combined,
      deviationBps,
      othersMid,
      guards,
      action,
      widen: widen ? c.guards.widenFactor : 1,
      jumpUntilMs: jump?.pausedUntilMs ?? null,
    };
  }

  #logGuards(now: Map<GuardName, string>, action: GuardAction): void {
    for (const [g, detail] of now)
      if (!this.#active.has(g))
        this.#logger.warn({ guard: g, detail, action }, `fair-value guard ${g} started: ${detail}`);
    for (const [g] of this.#active) if (!now.has(g)) this.#logger.info({ guard: g }, `fair-value guard ${g} ended`);
    this.#active = now;
  }

  #logSources(c: Combined): void {
    const now = new Map(c.sources.filter((s) => !s.usable).map((s) => [s.kind as string, s.reason ?? 'unusable']));
    // A source not read yet (its first read at start is on its way) is not a problem worth a line; a source
    // that stays unusable keeps the reason it was logged with.
    const next = new Map<string, string>();
    for (const [kind, reason] of now) {
      const was = this.#unusable.get(kind);
      if ((was === undefined || was === NOT_READ) && reason !== NOT_READ) {
        // A source of another kind of instrument (a NAV for a bond) is expected to be unusable: said, not warned.
        this.#logger[reason.includes(NOT_APPLICABLE) ? 'info' : 'warn'](
          { source: kind, reason },
          `fair-value source ${kind} unusable: ${reason}`,
        );
        next.set(kind, reason);
      } else next.set(kind, was ?? reason);
    }
    for (const [kind, was] of this.#unusable)
      if (!now.has(kind) && was !== NOT_READ)
        this.#logger.info({ source: kind }, `fair-value source ${kind} usable again`);
    this.#unusable = next;
  }
}
