/** The types a pair loop is built from and reports with (see pair-loop.ts). */
import type { StrategyConfig } from '../../core/config/strategy-config.ts';
import type { Decimal } from '../../core/decimal.ts';
import type { DesiredQuote, GuardOutcome, GuardTerms } from '../../strategy/types.ts';
import type { MarketBook } from '../../venue/market-data/book.ts';
import type { FeedMarket } from '../../market/feed.ts';
import type { StaleEvent } from '../../venue/market-data/ws-client.ts';
import type { FairValueVerdict } from '../fair-value/guards.ts';
import type { ObligationTracker } from '../obligations/tracker.ts';
import type { TradingState } from '../risk/monitor.ts';

export interface BookSource {
  book(symbol: string): MarketBook | undefined;
}

/** The market data the bot reads: the venue's feed (WebSocket with REST fallback), or a backtest's replayed books. */
export interface BotFeed extends BookSource {
  on(event: 'book', listener: (book: MarketBook) => void): unknown;
  on(event: 'stale', listener: (event: StaleEvent) => void): unknown;
  on(event: 'fresh', listener: (symbol: string) => void): unknown;
  add(market: FeedMarket): void;
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

/** The guard's side of a pair's obligations, as the tracker keeps them. */
export function obligationsHandle(tracker: ObligationTracker, id: string): ObligationsHandle {
  return { terms: (nowMs) => tracker.guardTerms(id, nowMs), outcome: (r, nowMs) => tracker.guardOutcome(id, r, nowMs) };
}

export interface LastRound {
  readonly atMs: number;
  readonly mode: string;
  readonly quotes: readonly DesiredQuote[];
  readonly reference: Decimal | null;
  /** The fair-value verdict of the round, when the pair has a fair value. */
  readonly fair: FairValueVerdict | null;
}

/** The round of a loop that does not quote now (paused, stopped, killed): no quotes, and why. */
export function inactiveRound(state: TradingState, atMs: number, fair: FairValueVerdict | null): LastRound {
  const mode = state.mode === 'paused' ? `paused (${state.reasons.join(', ')})` : state.mode;
  return { atMs, mode, quotes: [], reference: null, fair };
}
