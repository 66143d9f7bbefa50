/**
 * What the board's two obligation columns ("spread against the maximum", "presence today against the
 * target") read. The board does not measure obligations itself: the obligation tracker answers for each pair,
 * and a pair without obligations (or a run without a tracker) shows '-' in both columns.
 */
import { Decimal } from '../../core/decimal.ts';
import type { ObligationSnapshot } from '../../engine/obligations/tracker.ts';

export interface ObligationStatus {
  /**
   * Share of today's continuous trading time so far during which the pair met its quoting obligations,
   * 0 to 1 (null: no continuous trading time yet today).
   */
  readonly presence: number | null;
  /** The day's presence target, 0 to 1 (0.8 for 80%). */
  readonly presenceTarget: number;
  /** Our best quoted spread now, in `spreadUnit` (null: not quoting both sides). */
  readonly spread: Decimal | null;
  /** The maximum spread in force now (stressed-market multiplier applied), in `spreadUnit` (null: not known now). */
  readonly maxSpread: Decimal | null;
  /** `bps`: basis points of the mid; `quote`: an absolute amount of the quote token. */
  readonly spreadUnit: 'bps' | 'quote';
  /** Whether every obligation is met right now (null: not measured now: closed, halted, exceptional circumstances). */
  readonly compliant: boolean | null;
}

export interface ObligationsProvider {
  /** The pair's obligation figures at `nowMs`; null when the pair has no obligations. */
  status(pairId: string, nowMs: number): ObligationStatus | null;
}

const bps = (v: number | null): Decimal | null => (v === null ? null : new Decimal(v.toFixed(2)));

/** The obligation tracker's last round, as the board's columns read it. */
export function trackerObligations(tracker: {
  snapshot(pairId: string): ObligationSnapshot | null;
}): ObligationsProvider {
  return {
    status(pairId) {
      const s = tracker.snapshot(pairId);
      if (s === null) return null;
      return {
        presence: s.presence,
        presenceTarget: s.target,
        spread: bps(s.spreadBps),
        maxSpread: bps(s.maxSpreadBps),
        spreadUnit: 'bps',
        // Measured only while the book trades continuously outside a declared exceptional window.
        compliant: s.market === 'continuous' ? s.compliantNow : null,
      };
    },
  };
}
