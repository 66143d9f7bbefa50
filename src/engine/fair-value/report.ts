/**
 * A fair-value verdict as people and programs read it: every source's value, age and usability, the combined
 * value and its source, the guards in force and the action. The bot serves it at `GET /fair-value` on its
 * telemetry port (loopback callers only), and `dlt-mm fair-value` prints it.
 */
import type { ControlAnswer, ControlRequest } from '../obligations/control.ts';
import type { FairValueVerdict } from './guards.ts';
import type { PairFairValue } from './pair-fair-value.ts';

export interface FairValueReport {
  readonly pair: string;
  readonly atMs: number;
  readonly fair: string | null;
  readonly source: string | null;
  readonly action: string;
  readonly widen: number;
  readonly othersMid: string | null;
  readonly deviationBps: string | null;
  readonly dispersionBps: string | null;
  readonly guards: Readonly<Record<string, string>>;
  readonly sources: ReadonlyArray<{
    readonly kind: string;
    readonly origin: string;
    readonly value: string | null;
    readonly ageMs: number | null;
    readonly usable: boolean;
    readonly reason: string | null;
  }>;
}

export function reportOf(pair: string, v: FairValueVerdict, origins: ReadonlyMap<string, string>): FairValueReport {
  return {
    pair,
    atMs: v.atMs,
    fair: v.value?.toFixed() ?? null,
    source: v.source,
    action: v.action,
    widen: v.widen,
    othersMid: v.othersMid?.toFixed() ?? null,
    deviationBps: v.deviationBps?.toFixed(2) ?? null,
    dispersionBps: v.combined.dispersionBps?.toFixed(2) ?? null,
    guards: Object.fromEntries(v.guards),
    sources: v.combined.sources.map((s) => ({
      kind: s.kind,
      origin: origins.get(s.kind) ?? '',
      value: s.value?.toFixed() ?? null,
      ageMs: s.ageMs,
      usable: s.usable,
      reason: s.reason,
    })),
  };
}

/** The report of a running pair's last verdict; null before its first recomputation. */
export function lastReport(fv: PairFairValue): FairValueReport | null {
  return fv.last === null ? null : reportOf(fv.pairId, fv.last, new Map(fv.sources.map((s) => [s.kind, s.origin])));
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** `GET /fair-value`: every pair's last verdict, for `dlt-mm fair-value` while the bot runs. */
export function fairValueRoutes(pairs: () => Iterable<PairFairValue>): (req: ControlRequest) => ControlAnswer | null {
  return (req) => {
    if (req.path !== '/fair-value') return null;
    if (!LOOPBACK.has(req.remoteAddress ?? ''))
      return { status: 403, body: { error: 'the fair-value endpoint answers loopback callers only' } };
    if (req.method !== 'GET') return { status: 405, body: { error: 'GET only' } };
    return { status: 200, body: { pairs: [...pairs()].flatMap((p) => lastReport(p) ?? []) } };
  };
}
