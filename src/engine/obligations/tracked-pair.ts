/** What the obligation tracker keeps of each pair while it runs (see tracker.ts). */
import type { PairBinding } from '../../chains/types.ts';
import { obligationTerms, type ObligationsConfig } from '../../core/config/obligations-config.ts';
import { ObligationRules, type MarketState } from '../../core/obligations.ts';
import type { ReportPair } from '../../store/obligation-store.ts';
import type { CalendarUse } from '../../core/calendar.ts';
import type { ObligationSnapshot, PresenceAlert } from './obligation-view.ts';
import type { SettledDay } from './settled-day.ts';

export interface ObligationPair {
  readonly binding: PairBinding;
  /** The wallet that trades the pair (chain address), whose events the quote tap reads. */
  readonly wallet: string;
  readonly obligations: ObligationsConfig | null;
}

export interface Tracked {
  readonly pair: ObligationPair;
  readonly rules: ObligationRules | null;
  /** The last market state recorded in this run. */
  market: { state: MarketState; automaticHalt: boolean } | null;
  /** Measured and kept: the day up to a point (see settled-day.ts). */
  settled: SettledDay | null;
  snapshot: ObligationSnapshot | null;
  alert: PresenceAlert;
  breach: { id: number; limit: string; detail: string; sinceMs: number } | null;
  lastSampleMs: number;
  evaluatedMs: number;
}

/** A pair as the tracker starts it: its rules when it has obligations, nothing observed or measured yet. */
export function trackedPair(pair: ObligationPair): Tracked {
  const rules =
    pair.obligations === null
      ? null
      : new ObligationRules(obligationTerms(pair.obligations), pair.binding.rules.scales);
  return {
    pair,
    rules,
    market: null,
    settled: null,
    snapshot: null,
    alert: 'ok',
    breach: null,
    lastSampleMs: Number.NEGATIVE_INFINITY,
    evaluatedMs: Number.NEGATIVE_INFINITY,
  };
}

/** Something at `atMs` changed: a kept stretch reaching past it is measured again. */
export function reopen(tracked: Tracked, atMs: number): void {
  tracked.settled?.reopen(atMs);
}

/** The pair's terms and scales as the report keeps them. */
export function reportPairOf(tracked: Tracked, calendar: CalendarUse): Omit<ReportPair, 'updatedMs'> {
  const binding = tracked.pair.binding;
  const scales = binding.rules.scales;
  return {
    pairId: binding.pairId,
    symbol: binding.symbol,
    chain: binding.chain,
    wallet: tracked.pair.wallet,
    scales: {
      baseInternal: scales.baseInternal.toString(),
      quoteInternal: scales.quoteInternal.toString(),
      baseNative: scales.baseNative.toString(),
      quoteNative: scales.quoteNative.toString(),
    },
    obligations: tracked.pair.obligations,
    calendar: { enabled: calendar.enabled, ...calendar.config },
  };
}
