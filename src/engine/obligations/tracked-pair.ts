/** What the obligation tracker keeps of each pair while it runs (see tracker.ts). */
import type { PairBinding } from '../../chains/types.ts';
import { obligationTerms, type ObligationsConfig } from '../../core/config/obligations-config.ts';
import { ObligationRules, type MarketState, type ObligationTerms } from '../../core/obligations.ts';
import type { GuardTerms } from '../../strategy/types.ts';
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

/**
 * The terms the guard holds quotes to, plain or stressed: one object for each, while the pair's terms stay (they
 * are immutable), so that every round hands the strategy the same terms and what it compiles from them is found
 * by identity.
 */
const guardTermsOf = new WeakMap<ObligationTerms, { plain?: GuardTerms; stressed?: GuardTerms }>();

export function guardTerms(terms: ObligationTerms, stressed: boolean): GuardTerms {
  let known = guardTermsOf.get(terms);
  if (known === undefined) {
    known = {};
    guardTermsOf.set(terms, known);
  }
  if (stressed) {
    known.stressed ??= {
      maxSpread: { ...terms.maxSpread, value: terms.maxSpread.value.mul(terms.stressedSpreadMultiplier) },
      minSize: terms.minSize,
      maxSizeRatio: terms.maxSizeRatio,
    };
    return known.stressed;
  }
  known.plain ??= { maxSpread: terms.maxSpread, minSize: terms.minSize, maxSizeRatio: terms.maxSizeRatio };
  return known.plain;
}
