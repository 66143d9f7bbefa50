/**
 * The order engine of one trading wallet on one chain, wired together: the transaction applier, the event
 * tracker, the order manager with its outcome settler, the inventory checker and the reconciler. `start()`
 * reconciles (which starts the event follower) and only then lets the manager place orders.
 */
import type { ChainAdapter, PairBinding } from '../chains/types.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { Metrics } from '../telemetry/metrics.ts';
import type { Store } from '../store/store.ts';
import { InventoryChecker, type InventoryOptions } from './inventory/inventory-check.ts';
import { deriveStateGauges, engineMetrics } from './metrics.ts';
import { OrderWatch, type Sleep } from './order-watch.ts';
import { ClientOrderIds } from './orders/client-order-ids.ts';
import { OrderManager } from './orders/order-manager.ts';
import { OutcomeSettler } from './orders/outcome-settler.ts';
import { pairRuntime, type PairRuntime } from './pair-runtime.ts';
import { Reconciler, type ReconcileReport, type VenueOrders } from './recovery/reconciler.ts';
import { EventTracker } from './tracking/event-tracker.ts';
import { TxApplier } from './tracking/tx-applier.ts';
import { pairOf, type WalletContext } from './wallet-context.ts';

export interface WalletEngineOptions {
  readonly adapter: ChainAdapter;
  readonly pairs: readonly PairBinding[];
  readonly store: Store;
  readonly marketMaker: boolean;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly sleep: Sleep;
  readonly now: () => number;
  /** High byte of our cross identifiers; default 0xD1. */
  readonly crossIdTag?: number;
  readonly rest?: VenueOrders;
  readonly venueLagMs?: number;
  readonly catchUpTimeoutMs?: number;
  readonly settleDelaysMs?: readonly number[];
  readonly inventory?: InventoryOptions;
}

export class WalletEngine {
  readonly ctx: WalletContext;
  readonly applier: TxApplier;
  readonly tracker: EventTracker;
  readonly settler: OutcomeSettler;
  readonly manager: OrderManager;
  readonly inventory: InventoryChecker;
  readonly reconciler: Reconciler;
  #reconciling: Promise<ReconcileReport> | null = null;
  readonly #settlingAgain = new Set<Promise<void>>();
  #stopped = false;

  private constructor(options: WalletEngineOptions, pairs: Map<string, PairRuntime>) {
    const { adapter } = options;
    this.ctx = {
      chain: adapter.chain,
      wallet: adapter.wallet,
      marketMaker: options.marketMaker,
      store: options.store,
      pairs,
      ids: new ClientOrderIds(options.store.state, adapter.wallet, options.crossIdTag),
      logger: options.logger.child({ component: 'orders', chain: adapter.chain, wallet: adapter.wallet }),
      metrics: engineMetrics(options.metrics),
      watch: new OrderWatch(options.sleep),
      sleep: options.sleep,
      now: options.now,
    };
    deriveStateGauges(options.metrics, this.ctx);
    this.applier = new TxApplier(this.ctx);
    this.tracker = new EventTracker(this.ctx, adapter, this.applier, () => void this.reconcile().catch((e: unknown) => this.ctx.logger.error({ err: e }, 'reconciliation after a gap failed')));
    this.settler = new OutcomeSettler(this.ctx, adapter, this.applier, options.settleDelaysMs);
    this.manager = new OrderManager(this.ctx, adapter, this.applier, this.settler);
    this.inventory = new InventoryChecker(this.ctx, adapter, options.inventory);
    this.inventory.parkedQuote = () => this.applier.parked.parkedQuote();
    this.applier.provisional.resettle = {
      settle: (txHash, pairId) => adapter.settle(txHash, pairOf(this.ctx, pairId).binding),
      placement: (cid, o) => void this.settler.placement(cid, o),
      cancellation: (cid, o) => void this.settler.cancellation(cid, o),
      again: (cid) => this.#settleAgain(cid),
    };
    this.applier.parked.requestCancel = (ids) => {
      for (const id of ids) void this.manager.cancel(id).catch((e: unknown) => this.ctx.logger.warn({ err: e, clientOrderId: id }, 'cancelling a candidate of parked fills failed'));
    };
    this.reconciler = new Reconciler(
      this.ctx,
      { adapter, applier: this.applier, settler: this.settler, tracker: this.tracker, inventory: this.inventory, manager: this.manager },
      {
        now: options.now,
        ...(options.rest === undefined ? {} : { rest: options.rest }),
        ...(options.venueLagMs === undefined ? {} : { venueLagMs: options.venueLagMs }),
        ...(options.catchUpTimeoutMs === undefined ? {} : { catchUpTimeoutMs: options.catchUpTimeoutMs }),
      },
    );
  }

  /** An order whose outcome a reorganisation withdrew: its open transaction is asked about now, then in the background. */
  #settleAgain(cid: bigint): void {
    if (this.#stopped) return;
    const order = this.ctx.store.orders.get(this.ctx.wallet, cid);
    if (order === undefined || this.settler.pendingTx(order) === null) return;
    const run = this.settler
      .settleOnce(cid)
      .then((kind) => {
        if (kind === 'unknown' && !this.#stopped) void this.settler.later(cid);
      })
      .catch((e: unknown) => {
        if (this.#stopped) return;
        this.ctx.logger.warn({ err: e, clientOrderId: cid }, 'settling a withdrawn outcome failed; trying again later');
        void this.settler.later(cid);
      })
      .finally(() => this.#settlingAgain.delete(run));
    this.#settlingAgain.add(run);
  }

  /** Reads each pair's on-chain configuration (funding mode, commissions) and builds the engine. */
  static async create(options: WalletEngineOptions): Promise<WalletEngine> {
    const pairs = new Map<string, PairRuntime>();
    for (const b of options.pairs) pairs.set(b.pairId, pairRuntime(b, await options.adapter.readPairState(b)));
    return new WalletEngine(options, pairs);
  }

  /** Reconciles; one run at a time (a second caller shares the running one). */
  reconcile(): Promise<ReconcileReport> {
    if (this.#reconciling !== null) return this.#reconciling;
    const run = this.reconciler.run().finally(() => {
      this.#reconciling = null;
    });
    this.#reconciling = run;
    return run;
  }

  start(): Promise<ReconcileReport> {
    return this.reconcile();
  }

  /** Waits for queued commands and their outcomes. */
  async idle(): Promise<void> {
    await this.manager.idle();
    await this.applier.provisional.idle();
    while (this.#settlingAgain.size > 0) await Promise.allSettled([...this.#settlingAgain]);
    await this.settler.idle();
  }

  async stop(): Promise<void> {
    this.manager.ready = false;
    this.#stopped = true;
    this.applier.provisional.stop();
    this.settler.stop();
    await this.tracker.stop();
  }
}
