/** The types a pair loop is built from and reports with (see pair-loop.ts). */
import type { StrategyConfig } from '../../core/config/strategy-config.ts';
import type { Decimal } from '../../core/decimal.ts';
import type { DesiredQuote, GuardOutcome, GuardTerms } from '../../strategy/types.ts';
import type { MarketBook } from '../../venue/market-data/book.ts';
import type { FairValueVerdict } from '../fair-value/guards.ts';

export interface BookSource {
  book(symbol: string): MarketBook | undefined;
}

export interface StrategyHandle {
  readonly name: string;
  readonly hash: string;
  readonly config: StrategyConfig;
}

export interface ObligationsHandle {
  terms(nowMs: number): GuardTerms | null;
  outcome(outcome: GuardOutcome, nowMs: number): void;
}

export interface LastRound {
  readonly atMs: number;
  readonly mode: string;
  readonly quotes: readonly DesiredQuote[];
  readonly reference: Decimal | null;
  /** The fair-value verdict of the round, when the pair has a fair value. */
  readonly fair: FairValueVerdict | null;
}
