/** Everything the engine's parts share for one trading wallet on one chain. */
import type { ChainKind } from '../../core/pair.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Store } from '../../store/store.ts';
import type { EngineMetrics } from './metrics.ts';
import type { ClientOrderIds } from './orders/client-order-ids.ts';
import type { OrderWatch } from './order-watch.ts';
import type { PairRuntime } from './pair-runtime.ts';
import type { WalletSignals } from './signals.ts';
import type { Clock } from '../../core/clock.ts';

export interface WalletContext {
  readonly chain: ChainKind;
  readonly wallet: string;
  readonly marketMaker: boolean;
  readonly repos: WalletRepositories;
  readonly signals: WalletSignals;
  readonly pairs: Map<string, PairRuntime>;
  readonly ids: ClientOrderIds;
  readonly logger: Logger;
  readonly metrics: EngineMetrics;
  readonly watch: OrderWatch;
  readonly clock: Clock;
}

export function pairOf(ctx: WalletContext, pairId: string): PairRuntime {
  const p = ctx.pairs.get(pairId);
  if (p === undefined) throw new Error(`pair ${pairId} is not traded by wallet ${ctx.wallet}`);
  return p;
}

/** The repositories of the state file that a wallet's engine reads and writes, and a way to change several at once. */
export interface WalletRepositories extends Pick<
  Store,
  | 'orders'
  | 'transactions'
  | 'state'
  | 'events'
  | 'inventory'
  | 'alerts'
  | 'foreign'
  | 'pendingFills'
  | 'applications'
  | 'evaluation'
> {
  /** Runs `fn` as one change of the state file: all of it or nothing. */
  atomically<T>(fn: () => T): T;
  /** Commits the changes made so far now (a state file that groups its commits by turn). */
  durable(): void;
}

export function walletRepositories(store: Store): WalletRepositories {
  const { orders, transactions, state, events, inventory, alerts, foreign, pendingFills, applications, evaluation } =
    store;
  return {
    orders,
    transactions,
    state,
    events,
    inventory,
    alerts,
    foreign,
    pendingFills,
    applications,
    evaluation,
    atomically: (fn) => store.atomically(fn),
    durable: () => store.durable(),
  };
}
