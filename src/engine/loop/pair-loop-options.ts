/** What a pair loop is built from (see pair-loop.ts). */
import type { ChainAdapter } from '../../chains/types.ts';
import type { Clock } from '../../core/clock.ts';
import type { Decimal } from '../../core/decimal.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { PairEvaluation } from '../evaluation/pair-evaluation.ts';
import type { PairFairValue } from '../fair-value/pair-fair-value.ts';
import type { RiskLimits } from '../risk/limits.ts';
import type { RiskMonitor } from '../risk/monitor.ts';
import type { Throttle } from '../risk/throttle.ts';
import type { PairRuntime } from '../wallet/pair-runtime.ts';
import type { WalletEngine } from '../wallet/wallet-engine.ts';
import type { LoopMetrics } from './loop-metrics.ts';
import type { BookSource, ObligationsHandle, StrategyHandle } from './loop-types.ts';
import type { RecordedAction } from './order-actions.ts';
import type { PnlTracker } from './pnl-tracker.ts';
import type { CalendarUse } from '../../core/calendar.ts';
import type { VenueStatus } from '../../market/status.ts';

export interface PairLoopOptions {
  readonly runtime: PairRuntime;
  readonly engine: WalletEngine;
  readonly adapter: ChainAdapter;
  readonly feed: BookSource;
  readonly status: VenueStatus;
  readonly risk: RiskMonitor;
  readonly pnl: PnlTracker;
  readonly strategy: () => StrategyHandle;
  readonly limits: () => RiskLimits;
  readonly calendar: CalendarUse;
  /** Share of the wallet's quote balance this pair may quote with. */
  readonly quoteShare: Decimal;
  /** Chain cost of refreshing a level (its bid and ask), quote units. */
  readonly refreshCost: Decimal;
  readonly marketMaker: boolean;
  /** Balances older than this are read again even without activity. */
  readonly balanceMaxAgeMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: LoopMetrics;
  /** The pair's market-making obligations: the terms the guard keeps now, and where its verdicts go. */
  readonly obligations?: ObligationsHandle;
  /** The pair's own fair value and its guards, when its strategy has a fairValue block. */
  readonly fairValue?: PairFairValue;
  /** The pair's markouts and PnL attribution, marked to the fair value (else the mid of others' book). */
  readonly evaluation?: PairEvaluation;
  /** Each order action decided, sent, included or refused (the recording). */
  readonly record?: (a: RecordedAction) => void;
  /** The placement throttles of the pair's wallet and of the pair. */
  readonly throttles?: readonly Throttle[];
  /** The loop's name (default the pair id): see `PairLoop.key`. */
  readonly key?: string;
}
