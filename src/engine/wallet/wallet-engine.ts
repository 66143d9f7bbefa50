/**
 * The order engine of one trading wallet on one chain, and its narrow face: place, replace and cancel
 * orders, read the wallet's orders and fills, hear of activity, readiness and reconciliation, compare the
 * inventory, drain and stop. Its parts (the transaction applier, the event tracker, the order manager with
 * its outcome settler, the inventory checker and the reconciler) are built by `createWalletEngine` (assemble.ts),
 * each with what it calls directly; what a part asks of one built after it goes through the wallet's signals. `start()`
 * reconciles (which starts the event follower) and only then lets the manager place orders. A trading bot
 * uses `reconcileUntilReady()`: a reconciliation that fails (the venue refuses the credentials, a node is
 * down) or leaves the wallet not ready (an outcome the chain has not decided) is tried again with back-off,
 * and `readiness` says why the wallet is not ready meanwhile (also as `dltmm_wallet_ready`). `drain()` waits
 * for every outcome the wallet sent to settle, so that a shutdown closes the adapter only after that.
 */
import type { SequencedFill } from '../../store/evaluation-store.ts';
import type { ChainEvent, InFlightTx } from '../../chains/types.ts';
import type { StoredOrder } from '../../store/order-store.ts';
import type { WalletEngineOptions, WalletParts } from './assemble.ts';
import type { Comparable, InventoryReport } from './inventory/inventory-check.ts';
import { deriveStateGauges, deriveWalletGauges } from './metrics.ts';
import type { CancelAllReport, CancelResult, HandedOver, PlaceOrder, Placed } from './orders/order-manager.ts';
import type { PairRuntime } from './pair-runtime.ts';
import { Readiness, type WalletReadiness } from './readiness.ts';
import type { ReconcileReport } from './recovery/reconciler.ts';
import type { WalletActivity } from './signals.ts';
import type { WalletContext } from './wallet-context.ts';

export type { WalletReadiness } from './readiness.ts';
export type { WalletEngineOptions, WalletParts } from './assemble.ts';

export class WalletEngine {
  readonly chain: WalletContext['chain'];
  readonly wallet: string;
  readonly #ctx: WalletContext;
  readonly #p: WalletParts;
  #reconciling: Promise<ReconcileReport> | null = null;
  readonly #readiness: Readiness;
  readonly #settlingAgain = new Set<Promise<void>>();
  #stopped = false;

  /** Use `createWalletEngine` (assemble.ts), which builds the parts first. */
  constructor(parts: WalletParts, options: Pick<WalletEngineOptions, 'metrics' | 'clock' | 'reconcileRetry'>) {
    const { ctx } = parts;
    this.#ctx = ctx;
    this.#p = parts;
    this.chain = ctx.chain;
    this.wallet = ctx.wallet;
    deriveStateGauges(options.metrics, ctx);
    this.#readiness = new Readiness({
      reconcile: () => this.reconcile(),
      clock: options.clock,
      logger: ctx.logger,
      labels: { chain: ctx.chain, wallet: ctx.wallet },
      ...(options.reconcileRetry === undefined ? {} : { retry: options.reconcileRetry }),
    });
    deriveWalletGauges(options.metrics, ctx, this.#readiness, parts.tracker);
    // A gap in the events is a reconciliation like the first, retried the same way until it succeeds.
    ctx.signals.gap.on(
      () =>
        void this.#readiness
          .attempt('after a gap in the events')
          .then((r) => (r?.ready === true ? undefined : this.#readiness.keepTrying())),
    );
    ctx.signals.outcomeAnswered.on(
      ({ clientOrderId, kind, outcome }) =>
        void (kind === 'cancel'
          ? parts.settler.cancellation(clientOrderId, outcome)
          : parts.settler.placement(clientOrderId, outcome)),
    );
    ctx.signals.settleAgain.on((cid) => this.#settleAgain(cid));
    ctx.signals.cancelRequested.on((ids) => {
      for (const id of ids)
        void parts.manager
          .cancel(id)
          .catch((e: unknown) =>
            ctx.logger.warn({ err: e, clientOrderId: id }, 'cancelling a candidate of parked fills failed'),
          );
    });
  }

  /** The traded pair, or undefined when this wallet does not trade it. */
  pair(pairId: string): PairRuntime | undefined {
    return this.#ctx.pairs.get(pairId);
  }

  get pairIds(): readonly string[] {
    return [...this.#ctx.pairs.keys()];
  }

  /** `PlaceOrder`: resolves once the transaction has left the process. */
  place(cmd: PlaceOrder): Promise<Placed> {
    return this.#p.manager.place(cmd);
  }

  /** Places the new order, then cancels the old one, so that the side is never left empty. */
  replace(old: bigint, cmd: PlaceOrder): Promise<{ placed: Placed; cancelled: Promise<CancelResult | null> }> {
    return this.#p.manager.replace(old, cmd);
  }

  /** A placement recorded as intended and queued at once (see `OrderManager.handOver`); throws when refused. */
  handOver(cmd: PlaceOrder): HandedOver {
    return this.#p.manager.handOver(cmd);
  }

  /** A replacement handed over: the old order is cancelled once the new one rests (see `replace`). */
  handOverReplace(old: bigint, cmd: PlaceOrder): HandedOver & { cancelled: Promise<CancelResult | null> } {
    return this.#p.manager.handOverReplace(old, cmd);
  }

  /** A newer decision of the pair: its placements not signed yet are withdrawn, but for those it keeps. */
  supersede(pairId: string, keep?: ReadonlySet<bigint>): void {
    this.#p.manager.supersede(pairId, keep);
  }

  cancel(clientOrderId: bigint): Promise<CancelResult> {
    return this.#p.manager.cancel(clientOrderId);
  }

  /** Cancels every live order (of one pair) and waits until the cancellations are final or the deadline passes. */
  cancelAll(options: { pairId?: string; timeoutMs?: number } = {}): Promise<CancelAllReport> {
    return this.#p.manager.cancelAll(options);
  }

  /** Placements not yet signed are withdrawn (of one pair, or all). */
  withdrawPlacements(reason: string, pairId?: string): void {
    this.#p.manager.withdrawPlacements(reason, pairId);
  }

  /** No new placement from now on; those waiting are withdrawn. */
  halt(reason: string): void {
    this.#p.manager.halt(reason);
  }

  /** Resolves once every queued command has left the process. */
  submitted(): Promise<void> {
    return this.#p.manager.submitted();
  }

  /** The wallet's orders that may be on the book (of one pair). */
  liveOrders(pairId?: string): StoredOrder[] {
    return this.#ctx.repos.orders.live(
      pairId === undefined ? { wallet: this.wallet } : { wallet: this.wallet, pairId },
    );
  }

  /**
   * The live orders of one pair less those a block not final yet already shows off the book (filled in full or
   * cancelled): what quoting works from, so that a filled quote is replaced in the next block instead of once
   * its fill is final. The store, the inventory and the accounting keep to confirmed events; a rollback of the
   * tentative events puts such an order back (the next round then sees one quote too many and cancels it).
   * `live`: the pair's live orders when the caller has just read them (one read a round instead of two). A
   * placement withdrawn while the adapter had it is left out as well (see withdrawals.ts).
   */
  quotableOrders(pairId: string, live: readonly StoredOrder[] = this.liveOrders(pairId)): StoredOrder[] {
    const gone = this.#p.applier.tentative.goneOrders();
    return live.filter((o) => !gone.has(o.clientOrderId) && !this.#p.manager.withdrawals.pending(o));
  }

  order(clientOrderId: bigint): StoredOrder | undefined {
    return this.#ctx.repos.orders.get(this.wallet, clientOrderId);
  }

  /** The pair's fills: `after(seq)` those recorded after a sequence number (0: all), in record order; `dropped()`
   * how many fills reorganisations withdrew so far (a reader starts over when it changes). */
  fills(pairId: string): { after(seq: number): SequencedFill[]; dropped(): number } {
    const e = this.#ctx.repos.evaluation;
    return { after: (seq) => e.fillsAfter(pairId, this.wallet, seq), dropped: () => e.droppedFills() };
  }

  /** Transactions of the wallet sent and not yet decided by the chain. */
  transactionsInFlight(): number {
    return this.#ctx.repos.transactions.open(this.chain).filter((t) => t.wallet === this.wallet).length;
  }

  /** Calls `listener` whenever something may have changed for some pairs (a follower batch applied, an outcome settled). */
  onActivity(listener: (activity: WalletActivity) => void): () => void {
    return this.#ctx.signals.activity.on(listener);
  }

  /** Calls `listener` with every batch of confirmed events, after the engine applied it. */
  onConfirmedEvents(listener: (events: readonly ChainEvent[]) => void): () => void {
    return this.#ctx.signals.confirmedEvents.on(listener);
  }

  /** Calls `listener` whenever the wallet becomes ready or stops being ready. */
  onReadiness(listener: (r: WalletReadiness) => void): () => void {
    return this.#readiness.changed.on(listener);
  }

  /** One comparison of the inventory with the chain, decided or not. */
  compareInventory(): Promise<InventoryReport> {
    return this.#p.inventory.compare();
  }

  /** Compares, and raises an alert on a decided difference. */
  verifyInventory(): Promise<InventoryReport> {
    return this.#p.inventory.verify();
  }

  /** Accepts the on-chain balances: the derived totals are reset and the inventory alerts resolved with the note. */
  rebaselineInventory(note: string): Promise<Comparable> {
    return this.#p.inventory.rebaseline(note);
  }

  /** An order whose outcome a reorganisation withdrew: its open transaction is asked about now, then in the background. */
  #settleAgain(cid: bigint): void {
    if (this.#stopped) return;
    const order = this.#ctx.repos.orders.get(this.#ctx.wallet, cid);
    if (order === undefined || this.#p.settler.pendingTx(order) === null) return;
    const run = this.#p.settler
      .settleOnce(cid)
      .then((kind) => {
        if (kind === 'unknown' && !this.#stopped) void this.#p.settler.later(cid);
      })
      .catch((e: unknown) => {
        if (this.#stopped) return;
        this.#ctx.logger.warn(
          { err: e, clientOrderId: cid },
          'settling a withdrawn outcome failed; trying again later',
        );
        void this.#p.settler.later(cid);
      })
      .finally(() => this.#settlingAgain.delete(run));
    this.#settlingAgain.add(run);
  }

  get readiness(): WalletReadiness {
    return this.#readiness.current;
  }

  /** Reconciles; one run at a time (a second caller shares the running one). What it found is on file when it ends. */
  reconcile(): Promise<ReconcileReport> {
    if (this.#reconciling !== null) return this.#reconciling;
    const run = this.#p.reconciler.run().finally(() => {
      this.#reconciling = null;
      this.#ctx.repos.durable();
    });
    this.#reconciling = run;
    return run;
  }

  /** One reconciliation (commands that act once: a failure is theirs to report). */
  start(): Promise<ReconcileReport> {
    return this.reconcile();
  }

  /**
   * The first reconciliation, then, until the wallet is ready, more of them in the background with back-off
   * (`reconcileRetry`, 1 s doubling to 60 s by default). Resolves with the first run's report, or null when it
   * failed; `readiness` and `onReadiness` tell how it goes on. Stops with `stop()`.
   */
  reconcileUntilReady(): Promise<ReconcileReport | null> {
    return this.#readiness.untilReady();
  }

  /** Waits for queued commands and their outcomes. */
  async idle(): Promise<void> {
    await this.#p.manager.idle();
    await this.#p.applier.provisional.idle();
    while (this.#settlingAgain.size > 0) await Promise.allSettled([...this.#settlingAgain]);
    await this.#p.settler.idle();
  }

  /**
   * Waits until every outcome the wallet sent is settled: the manager's queue and outcome handlers, the
   * background settling of unknown outcomes, and every transaction the adapter still follows. At the deadline,
   * returns the transactions still open (the next start settles them from the journal); empty when all settled.
   */
  async drain(timeoutMs: number, pollMs = 100): Promise<readonly InFlightTx[]> {
    const deadline = this.#ctx.clock.now() + timeoutMs;
    const abort = new AbortController();
    const timeout = this.#ctx.clock.sleep(Math.max(0, timeoutMs), abort.signal).then(
      () => 'timeout' as const,
      () => 'timeout' as const,
    );
    const settled = (async () => {
      await this.idle();
      while (this.#p.adapter.unsettled().length > 0 && !abort.signal.aborted && this.#ctx.clock.now() < deadline)
        await this.#ctx.clock.sleep(pollMs, abort.signal).catch(() => undefined);
      return 'settled' as const;
    })();
    await Promise.race([settled, timeout]);
    abort.abort();
    return this.#p.adapter.unsettled();
  }

  async stop(): Promise<void> {
    this.#readiness.stop();
    this.#p.manager.ready = false;
    this.#stopped = true;
    this.#p.applier.provisional.stop();
    this.#p.settler.stop();
    await this.#p.tracker.stop();
  }
}
