/**
 * What the board's two obligation columns ("spread against the maximum", "presence today against the
 * target") read. The board does not measure obligations itself: the obligation tracker answers for each pair,
 * and a pair without obligations (or a run without a tracker) shows '-' in both columns.
 */
import type { Decimal } from '../../core/decimal.ts';

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
  /** The maximum spread in force now (stressed-market multiplier applied), in `spreadUnit`. */
  readonly maxSpread: Decimal;
  /** `bps`: basis points of the mid; `quote`: an absolute amount of the quote token. */
  readonly spreadUnit: 'bps' | 'quote';
  /** Whether every obligation is met right now (null: not measured now: closed, halted, exceptional circumstances). */
  readonly compliant: boolean | null;
}

export interface ObligationsProvider {
  /** The pair's obligation figures at `nowMs`; null when the pair has no obligations. */
  status(pairId: string, nowMs: number): ObligationStatus | null;
}
