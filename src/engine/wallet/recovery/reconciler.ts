/**
 * Start-up and crash recovery are one path, run before trading and after any gap in the events: load the
 * store; decide every order whose placement or cancellation may be in flight (the journal says whether a
 * transaction was ever signed, the chain says what became of it); catch the events up from the stored cursor
 * (which also adopts orders of ours the store does not know, by their cross identifier); compare with the
 * venue's open-order list; reconcile inventory with the on-chain balances. Only then is the wallet ready.
 * Running it twice changes nothing the second time: every event applied is recorded, every settled order
 * has left the states that ask the chain again.
 */
import type { ChainAdapter } from '../../../chains/types.ts';
import { isCancellable } from '../../../core/order-state.ts';
import type { ForeignOrderRecord } from '../../../store/foreign-orders.ts';
import type { InventoryChecker, InventoryReport } from '../inventory/inventory-check.ts';
import type { OrderManager } from '../orders/order-manager.ts';
import type { OutcomeSettler } from '../orders/outcome-settler.ts';
import type { EventTracker } from '../tracking/event-tracker.ts';
import type { TxApplier } from '../tracking/tx-applier.ts';
import type { WalletContext } from '../wallet-context.ts';
import { startAboveHistory } from './fresh-identifiers.ts';
import { VenueComparison, type Discrepancy, type VenueCompareOptions } from './venue-compare.ts';
import type { VenueOrderView } from './venue-order-view.ts';

export type { Discrepancy, VenueOrders } from './venue-compare.ts';

export interface ReconcileOptions extends VenueCompareOptions {
  /** How long to wait for the follower to reach the head; default 30 s. */
  readonly catchUpTimeoutMs?: number;
}

export interface ReconcileReport {
  readonly settled: number;
  /** Orders whose transaction the chain has still not decided. */
  readonly unknown: bigint[];
  readonly adopted: bigint[];
  readonly foreign: ForeignOrderRecord[];
  /** Open orders the venue lists that the store does not know and that are not known foreign orders. */
  readonly unrecognised: VenueOrderView[];
  readonly discrepancies: Discrepancy[];
  readonly inventory: InventoryReport;
  readonly pausedPairs: string[];
  readonly ready: boolean;
}

export class Reconciler {
  readonly #ctx: WalletContext;
  readonly #adapter: ChainAdapter;
  readonly #applier: TxApplier;
  readonly #settler: OutcomeSettler;
  readonly #tracker: EventTracker;
  readonly #inventory: InventoryChecker;
  readonly #manager: OrderManager;
  readonly #options: ReconcileOptions;
  readonly #venue: VenueComparison;

  constructor(
    ctx: WalletContext,
    parts: {
      adapter: ChainAdapter;
      applier: TxApplier;
      settler: OutcomeSettler;
      tracker: EventTracker;
      inventory: InventoryChecker;
      manager: OrderManager;
    },
    options: ReconcileOptions,
  ) {
    this.#ctx = ctx;
    this.#adapter = parts.adapter;
    this.#applier = parts.applier;
    this.#settler = parts.settler;
    this.#tracker = parts.tracker;
    this.#inventory = parts.inventory;
    this.#manager = parts.manager;
    this.#options = options;
    this.#venue = new VenueComparison(ctx, parts, options);
  }

  async run(): Promise<ReconcileReport> {
    const ctx = this.#ctx;
    const started = this.#ctx.clock.now();
    this.#manager.ready = false;
    const adoptedBefore = new Set(this.#adoptedIds());
    try {
      await startAboveHistory(ctx, this.#adapter);
      let settled = this.#unsent();
      settled += await this.#settleAll();
      await this.#settleJournal();
      this.#tracker.start();
      const caught = await this.#tracker.caughtUp(this.#options.catchUpTimeoutMs ?? 30_000);
      if (!caught)
        ctx.logger.warn('event follower did not report reaching the head in time; reconciling with what it delivered');
      settled += await this.#settleAll();
      const { unrecognised, discrepancies } = await this.#venue.compare();
      const inventory = await this.#inventory.verify();
      if (inventory.comparable && inventory.mismatched.length === 0 && inventory.inconclusive !== true) {
        for (const a of ctx.repos.alerts.open({ chain: ctx.chain, wallet: ctx.wallet, kind: 'event-gap' })) {
          ctx.repos.alerts.resolve(a.id, 'reconciled after the gap: open orders and inventory agree with the chain');
        }
      }
      // Parked maker fills wait for their candidates' cancellations: ask again for any a crash interrupted.
      const undecided = new Set(this.#applier.parked.undecided());
      const toCancel = ctx.repos.orders
        .live({ wallet: ctx.wallet })
        .filter((o) => undecided.has(o.clientOrderId) && isCancellable(o.status));
      if (toCancel.length > 0) this.#applier.parked.requestCancel(toCancel.map((o) => o.clientOrderId));
      const live = ctx.repos.orders.live({ wallet: ctx.wallet });
      const unknown = live
        .filter((o) => this.#settler.pendingTx(o) !== null && o.status !== 'cancelRequested')
        .map((o) => o.clientOrderId);
      const foreign = ctx.repos.foreign.open(ctx.chain, ctx.wallet);
      const pausedPairs = [...ctx.pairs.keys()].filter(
        (p) => ctx.repos.alerts.pausing(ctx.chain, ctx.wallet, p).length > 0,
      );
      const ready = inventory.comparable;
      this.#manager.ready = ready;
      ctx.metrics.reconciliations.inc({ chain: ctx.chain, result: ready ? 'ready' : 'not-ready' });
      const report: ReconcileReport = {
        settled,
        unknown,
        adopted: this.#adoptedIds().filter((id) => !adoptedBefore.has(id)),
        foreign,
        unrecognised,
        discrepancies,
        inventory,
        pausedPairs,
        ready,
      };
      ctx.logger.info(
        {
          settled,
          unknown: unknown.length,
          adopted: report.adopted.length,
          foreign: foreign.length,
          unrecognised: unrecognised.length,
          discrepancies: discrepancies.length,
          pausedPairs,
          ready,
        },
        'reconciliation finished',
      );
      return report;
    } catch (e) {
      ctx.metrics.reconciliations.inc({ chain: ctx.chain, result: 'error' });
      throw e;
    } finally {
      ctx.metrics.reconcileSeconds.observe({ chain: ctx.chain }, (this.#ctx.clock.now() - started) / 1000);
    }
  }

  #adoptedIds(): bigint[] {
    return this.#ctx.repos.orders.adoptedIds(this.#ctx.wallet, this.#ctx.chain);
  }

  /** Orders recorded but not sent when the process stopped: the journal tells whether a transaction was signed. */
  #unsent(): number {
    const ctx = this.#ctx;
    let n = 0;
    for (const o of ctx.repos.orders.live({ wallet: ctx.wallet }).filter((x) => x.status === 'intended')) {
      const tx = ctx.repos.transactions.forOrder(ctx.wallet, o.clientOrderId).at(-1);
      if (tx === undefined)
        this.#applier.events.apply(o, {
          type: 'Refused',
          code: 'E_ORDER_NOT_SENT',
          reason: 'recorded, but the process stopped before a transaction was signed',
        });
      else this.#applier.events.apply(o, { type: 'SubmissionSent', txHash: tx.txHash });
      n++;
    }
    this.#applier.events.flush();
    return n;
  }

  async #settleAll(): Promise<number> {
    const ctx = this.#ctx;
    let n = 0;
    for (const o of ctx.repos.orders.live({ wallet: ctx.wallet })) {
      if (this.#settler.pendingTx(o) === null) continue;
      try {
        const kind = await this.#settler.settleOnce(o.clientOrderId);
        if (kind !== null && kind !== 'unknown') n++;
        // Still undecided: keep asking in the background rather than waiting for the next reconciliation.
        if (kind === 'unknown') void this.#settler.later(o.clientOrderId);
      } catch (e) {
        ctx.logger.warn(
          { err: e, clientOrderId: o.clientOrderId },
          'could not settle an open transaction; the follower or the next reconciliation will',
        );
      }
    }
    return n;
  }

  /** Journalled transactions of the wallet no order points at (approvals): asking settles them in the journal. */
  async #settleJournal(): Promise<void> {
    const ctx = this.#ctx;
    const binding = [...ctx.pairs.values()][0]?.binding;
    if (binding === undefined) return;
    for (const tx of ctx.repos.transactions
      .open(ctx.chain)
      .filter((t) => t.wallet === ctx.wallet && (t.kind === 'approve' || t.kind === 'trust'))) {
      await this.#adapter
        .settle(tx.txHash, binding)
        .catch((e: unknown) =>
          ctx.logger.warn({ err: e, txHash: tx.txHash }, 'could not settle a journalled transaction'),
        );
    }
  }
}
