/**
 * Building one wallet's engine: each part gets what it calls directly, in an order in which that exists; what
 * a part asks of one built after it goes through the wallet's signals, which the engine subscribes to. Tests
 * of one part inside a whole engine take the parts from `assembleWallet`; everything else uses
 * `createWalletEngine` and the engine's face.
 */
import type { ChainAdapter, PairBinding } from '../../chains/types.ts';
import type { Clock } from '../../core/clock.ts';
import type { Store } from '../../store/store.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import { InventoryChecker, type InventoryOptions } from './inventory/inventory-check.ts';
import { engineMetrics } from './metrics.ts';
import { observeAdapter } from './observed-adapter.ts';
import { OrderWatch } from './order-watch.ts';
import { ClientOrderIds } from './orders/client-order-ids.ts';
import { OrderManager } from './orders/order-manager.ts';
import { OutcomeSettler } from './orders/outcome-settler.ts';
import { pairRuntime, type PairRuntime } from './pair-runtime.ts';
import { Reconciler, type VenueOrders } from './recovery/reconciler.ts';
import { walletSignals } from './signals.ts';
import { EventTracker } from './tracking/event-tracker.ts';
import { TxApplier } from './tracking/tx-applier.ts';
import { pairOf, walletRepositories, type WalletContext } from './wallet-context.ts';
import { WalletEngine } from './wallet-engine.ts';
import type { ReportingData } from '../../core/encoding/reporting.ts';

export interface WalletEngineOptions {
  readonly adapter: ChainAdapter;
  readonly pairs: readonly PairBinding[];
  readonly store: Store;
  readonly marketMaker: boolean;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly clock: Clock;
  /** High byte of our cross identifiers; default 0xD1. */
  readonly crossIdTag?: number;
  readonly rest?: VenueOrders;
  readonly venueLagMs?: number;
  readonly catchUpTimeoutMs?: number;
  readonly settleDelaysMs?: readonly number[];
  readonly inventory?: InventoryOptions;
  /** Back-off of a reconciliation that failed or left the wallet not ready: first pause, doubling up to the longest. */
  readonly reconcileRetry?: { readonly firstMs?: number; readonly maxMs?: number };
  /** Each pair's reporting values (owner and decision identifiers), carried by every placement; default zero. */
  readonly reporting?: ReadonlyMap<string, ReportingData>;
}

/** The parts of one wallet's engine, each built with what it calls directly. */
export interface WalletParts {
  readonly ctx: WalletContext;
  readonly adapter: ChainAdapter;
  readonly applier: TxApplier;
  readonly tracker: EventTracker;
  readonly settler: OutcomeSettler;
  readonly manager: OrderManager;
  readonly inventory: InventoryChecker;
  readonly reconciler: Reconciler;
}

/** Reads each pair's on-chain configuration (funding mode, commissions) and builds the parts and the engine. */
export async function assembleWallet(
  options: WalletEngineOptions,
): Promise<{ readonly engine: WalletEngine; readonly parts: WalletParts }> {
  const states = await Promise.all(options.pairs.map((b) => options.adapter.readPairState(b)));
  const pairs = new Map<string, PairRuntime>(
    options.pairs.map((b, i) => [
      b.pairId,
      pairRuntime(b, states[i] as Awaited<(typeof states)[number]>, options.reporting?.get(b.pairId)),
    ]),
  );
  const signals = walletSignals();
  const adapter = observeAdapter(options.adapter, signals);
  const ctx: WalletContext = {
    chain: adapter.chain,
    wallet: adapter.wallet,
    marketMaker: options.marketMaker,
    repos: walletRepositories(options.store),
    signals,
    pairs,
    ids: new ClientOrderIds(options.store.state, adapter.wallet, options.crossIdTag),
    logger: options.logger.child({ component: 'orders', chain: adapter.chain, wallet: adapter.wallet }),
    metrics: engineMetrics(options.metrics),
    watch: new OrderWatch(options.clock.sleep),
    clock: options.clock,
  };
  const applier = new TxApplier(ctx, (txHash, pairId) => adapter.settle(txHash, pairOf(ctx, pairId).binding));
  const tracker = new EventTracker(ctx, adapter, applier);
  const settler = new OutcomeSettler(ctx, adapter, applier, options.settleDelaysMs);
  const manager = new OrderManager(ctx, adapter, applier, settler);
  const inventory = new InventoryChecker(ctx, adapter, options.inventory, tracker, () => applier.parked.parkedQuote());
  const reconciler = new Reconciler(
    ctx,
    { adapter, applier, settler, tracker, inventory, manager },
    {
      ...(options.rest === undefined ? {} : { rest: options.rest }),
      ...(options.venueLagMs === undefined ? {} : { venueLagMs: options.venueLagMs }),
      ...(options.catchUpTimeoutMs === undefined ? {} : { catchUpTimeoutMs: options.catchUpTimeoutMs }),
    },
  );
  const parts: WalletParts = { ctx, adapter, applier, tracker, settler, manager, inventory, reconciler };
  return { engine: new WalletEngine(parts, options), parts };
}

/** Reads each pair's on-chain configuration (funding mode, commissions) and builds the engine. */
export async function createWalletEngine(options: WalletEngineOptions): Promise<WalletEngine> {
  return (await assembleWallet(options)).engine;
}
