/** What the bot is built from: its wallets, its pairs, the feed, the clocks and the sinks (see bot.ts). */
import type { ChainAdapter, PairBinding } from '../../chains/types.ts';
import type { CalendarConfig } from '../../core/calendar.ts';
import type { Clock } from '../../core/clock.ts';
import type { Decimal } from '../../core/decimal.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import type { PairEvaluation } from '../evaluation/pair-evaluation.ts';
import type { PairFairValue } from '../fair-value/pair-fair-value.ts';
import type { ObligationTracker } from '../obligations/tracker.ts';
import type { RiskLimits } from '../risk/limits.ts';
import type { WalletEngine } from '../wallet/wallet-engine.ts';
import type { PollTimings, WalletTradeCheck } from './bot-routines.ts';
import type { BotFeed } from './loop-types.ts';
import type { PairLoopOptions, StrategyHandle } from './pair-loop.ts';
import type { TradeInfoSource } from '../../market/status.ts';

export interface BotWallet {
  readonly id: string;
  readonly engine: WalletEngine;
  /** The wallet's chain adapter: the venue status reads each book's phase through it. */
  readonly adapter: ChainAdapter;
  readonly marketMaker: boolean;
}

export interface BotPair {
  readonly binding: PairBinding;
  readonly walletId: string;
  readonly strategy: () => StrategyHandle;
  readonly limits: () => RiskLimits;
  readonly refreshCost: Decimal;
  /** The pair's own fair value (its strategy's fairValue block), read from start to shutdown. */
  readonly fairValue?: PairFairValue;
  readonly record?: PairLoopOptions['record'];
  /** The pair's markouts and PnL attribution. */
  readonly evaluation?: PairEvaluation;
  /** The placement throttles of its wallet and of the pair (risk/throttle.ts). */
  readonly throttles?: PairLoopOptions['throttles'];
}

export interface BotTimings extends PollTimings {
  readonly balanceMaxAgeMs: number;
}

export interface BotOptions {
  readonly wallets: readonly BotWallet[];
  readonly pairs: readonly BotPair[];
  /** The market data: the venue's feed, or a backtest's replayed books. */
  readonly feed: BotFeed;
  readonly rest: TradeInfoSource;
  readonly calendar: { readonly enabled: boolean; readonly config: CalendarConfig };
  readonly timings: BotTimings;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Called for every pair loop's reload of its inputs; returns the problems of strategies kept unchanged. */
  readonly reloadStrategies: () => string[];
  /** Market-making obligations and the day report's samples: measured from start to shutdown. */
  readonly obligations?: ObligationTracker;
  /** Each wallet's venue trade list against its fills, every `timings.tradeCheckMs`. */
  readonly tradeChecks?: readonly WalletTradeCheck[];
}

export type BotPhase = 'starting' | 'trading' | 'killed' | 'stopping' | 'stopped';
