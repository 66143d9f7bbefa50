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
import { isCancellable, remainingOf } from '../../../core/order-state.ts';
import { quantityFromRaw } from '../../../core/units.ts';
import type { ForeignOrderRecord } from '../../../store/foreign-orders.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import type { VenueOrder } from '../../../venue/payload/orders.ts';
import type { InventoryChecker, InventoryReport } from '../inventory/inventory-check.ts';
import type { OrderManager } from '../orders/order-manager.ts';
import type { OutcomeSettler } from '../orders/outcome-settler.ts';
import { raiseAlert } from '../alerts.ts';
import type { EventTracker } from '../tracking/event-tracker.ts';
import type { TxApplier } from '../tracking/tx-applier.ts';
import type { WalletContext } from '../wallet-context.ts';
import { startAboveHistory } from './fresh-identifiers.ts';
import { readVenueOrder, type VenueOrderView } from './venue-order-view.ts';

export interface VenueOrders {
  /** `GET /wallets/{address}/orders`. */
  walletOrders(address: string): Promise<VenueOrder[]>;
}

export interface ReconcileOptions {
  readonly rest?: VenueOrders;
  /** How long the venue's order lists may lag the chain; default 3000 ms. */
  readonly venueLagMs?: number;
  /** How long to wait for the follower to reach the head; default 30 s. */
  readonly catchUpTimeoutMs?: number;
  /** How long a remaining-quantity check waits for the events up to the chain's answer; default 120 s. */
  readonly coverageTimeoutMs?: number;
}

export interface Discrepancy {
  readonly kind: 'not-listed' | 'remaining-differs';
  readonly clientOrderId: bigint;
  readonly orderId: bigint | null;
  readonly detail: string;
  /**
   * What reconciliation did about it: `not-on-book` (the chain says the order is gone: it leaves the book for
   * good and its fill or cancellation events settle it), `venue-behind` (the chain says it rests: the venue's
   * list is behind), `checking` (it rests; once the events up to the chain's answer are applied, a remaining
   * quantity that still differs is settled by cancelling the order, whose cancellation returns exactly what
   * is left), `unanswered` (the chain did not say; the next reconciliation asks again).
   */
  readonly repair: 'not-on-book' | 'venue-behind' | 'checking' | 'unanswered';
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
      const { unrecognised, discrepancies } = await this.#compareVenue();
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

  async #compareVenue(): Promise<{ unrecognised: VenueOrderView[]; discrepancies: Discrepancy[] }> {
    const ctx = this.#ctx;
    const rest = this.#options.rest;
    if (rest === undefined) return { unrecognised: [], discrepancies: [] };
    const listed = (await rest.walletOrders(ctx.wallet))
      .map(readVenueOrder)
      .filter((v) => v.pairId === null || ctx.pairs.has(v.pairId));
    const lagMs = this.#options.venueLagMs ?? 3_000;
    const settledBefore = this.#ctx.clock.now() - lagMs;
    const unrecognised: VenueOrderView[] = [];
    const found: Array<Omit<Discrepancy, 'repair'> & { listed: VenueOrderView | null }> = [];
    const seen = new Set<bigint>();
    for (const v of listed) {
      const order = this.#find(v);
      if (order !== undefined) {
        seen.add(order.clientOrderId);
        const scales = ctx.pairs.get(order.pairId)?.binding.rules.scales;
        const remaining = scales === undefined ? null : quantityFromRaw(remainingOf(order), scales);
        const differs = v.remaining !== null && remaining !== null && !v.remaining.eq(remaining);
        if (differs && order.updatedMs < settledBefore) {
          found.push({
            kind: 'remaining-differs',
            clientOrderId: order.clientOrderId,
            orderId: order.orderId,
            detail: `venue lists ${v.remaining.toString()} open, the store ${remaining.toString()}`,
            listed: v,
          });
        }
        continue;
      }
      const known =
        v.pairId !== null && ctx.repos.foreign.get(ctx.chain, ctx.wallet, v.pairId, v.orderId) !== undefined;
      if (known) continue;
      if (v.pairId !== null) {
        ctx.repos.foreign.seen({
          chain: ctx.chain,
          wallet: ctx.wallet,
          pairId: v.pairId,
          orderId: v.orderId,
          crossId: v.crossId,
          side: v.side,
          quantity: null,
          price: null,
          source: 'rest',
        });
      }
      unrecognised.push(v);
    }
    if (unrecognised.length > 0) {
      raiseAlert(
        ctx,
        null,
        'unrecognised-orders',
        `${unrecognised.length} open order(s) of the wallet are not known to the bot`,
        { orderIds: unrecognised.map((v) => v.orderId) },
        false,
      );
    }
    for (const o of ctx.repos.orders.live({ wallet: ctx.wallet })) {
      if (
        (o.status !== 'resting' && o.status !== 'partiallyFilled') ||
        seen.has(o.clientOrderId) ||
        o.updatedMs >= settledBefore
      )
        continue;
      found.push({
        kind: 'not-listed',
        clientOrderId: o.clientOrderId,
        orderId: o.orderId,
        detail: `resting since ${new Date(o.updatedMs).toISOString()} but not in the venue's open orders`,
        listed: null,
      });
    }
    const discrepancies: Discrepancy[] = [];
    for (const { listed, ...d } of found) discrepancies.push({ ...d, repair: await this.#repair(d, listed) });
    return { unrecognised, discrepancies };
  }

  /**
   * Asks the chain about an order the venue's list disagrees with (a cancellation simulated, never sent) and
   * repairs the store from its answer: gone from the book, the order leaves for good and its events settle it;
   * on the book, a missing listing is the venue's lag, and a remaining quantity is checked again once the
   * events up to the chain's answer are applied (in the background: it may take the confirmation depth).
   */
  async #repair(d: Omit<Discrepancy, 'repair'>, listed: VenueOrderView | null): Promise<Discrepancy['repair']> {
    const ctx = this.#ctx;
    const order = ctx.repos.orders.get(ctx.wallet, d.clientOrderId);
    const binding = order === undefined ? undefined : ctx.pairs.get(order.pairId)?.binding;
    if (order === undefined || binding === undefined || order.orderId === null) return 'unanswered';
    const probe = await this.#adapter
      .probeOrder(binding, order.side, order.orderId)
      .catch((e: unknown) => ({ onBook: null, height: 0n, reason: e instanceof Error ? e.message : String(e) }));
    const fields = { ...d, pairId: order.pairId, height: probe.height.toString() };
    if (probe.onBook === false) {
      const now = ctx.repos.orders.get(ctx.wallet, d.clientOrderId);
      if (now !== undefined && isCancellable(now.status)) {
        this.#applier.events.apply(now, {
          type: 'NotOnBook',
          code: 'E_VENUE_ORDER_NOT_FOUND',
          reason: `reconciliation: ${d.detail}, and the chain says it is no longer on the book`,
        });
        this.#applier.events.flush();
      }
      ctx.logger.warn(
        fields,
        'store and venue disagreed: the chain says the order is no longer on the book; it leaves for good and its events settle it',
      );
      return 'not-on-book';
    }
    if (probe.onBook === null) {
      ctx.logger.warn(
        { ...fields, reason: probe.reason },
        'store and venue disagree and the chain did not say whether the order rests; the next reconciliation asks again',
      );
      return 'unanswered';
    }
    if (d.kind === 'not-listed') {
      ctx.logger.info(fields, "the venue's list is behind the chain: the order rests on the book");
      return 'venue-behind';
    }
    ctx.logger.info(
      fields,
      'the venue lists another remaining quantity; checking it again once the events up to the chain are applied',
    );
    void this.#checkRemaining(d.clientOrderId, listed, probe.height).catch((e: unknown) =>
      ctx.logger.warn({ err: e, clientOrderId: d.clientOrderId }, 'checking a remaining quantity failed'),
    );
    return 'checking';
  }

  /**
   * Once every event up to `height` is applied, compares the order's remaining quantity with the venue's list
   * again; if they still differ, the store missed what the chain did to the order, and cancelling it settles it
   * with the chain's truth: the cancellation returns exactly what is left (a shortfall is raised as fills we
   * have not seen), and the strategy places a fresh order.
   */
  async #checkRemaining(clientOrderId: bigint, listed: VenueOrderView | null, height: bigint): Promise<void> {
    const ctx = this.#ctx;
    const rest = this.#options.rest;
    if (rest === undefined || listed === null) return;
    if (!(await this.#tracker.reached(height, this.#options.coverageTimeoutMs ?? 120_000))) return;
    const order = ctx.repos.orders.get(ctx.wallet, clientOrderId);
    const scales = order === undefined ? undefined : ctx.pairs.get(order.pairId)?.binding.rules.scales;
    if (
      order === undefined ||
      scales === undefined ||
      (order.status !== 'resting' && order.status !== 'partiallyFilled')
    )
      return;
    const now = (await rest.walletOrders(ctx.wallet))
      .map(readVenueOrder)
      .find((v) => v.orderId === listed.orderId && (v.pairId === null || v.pairId === order.pairId));
    const remaining = quantityFromRaw(remainingOf(order), scales);
    if (now === undefined || now.remaining === null || now.remaining.eq(remaining)) {
      ctx.logger.info(
        { clientOrderId, orderId: order.orderId, remaining: remaining.toString() },
        'remaining quantity agrees with the venue once the events were applied',
      );
      return;
    }
    ctx.logger.warn(
      {
        clientOrderId,
        orderId: order.orderId,
        store: remaining.toString(),
        venue: now.remaining.toString(),
        height: height.toString(),
      },
      'remaining quantity still differs from the venue with every event applied: cancelling the order, whose cancellation returns what is left on the chain',
    );
    await this.#manager
      .cancel(clientOrderId)
      .catch((e: unknown) =>
        ctx.logger.warn({ err: e, clientOrderId }, 'cancelling an order whose remaining quantity differs failed'),
      );
  }

  #find(v: VenueOrderView): StoredOrder | undefined {
    const ctx = this.#ctx;
    const pairs = v.pairId === null ? [...ctx.pairs.keys()] : [v.pairId];
    for (const p of pairs) {
      const o = ctx.repos.orders.byVenueId(ctx.chain, p, v.orderId);
      if (o !== undefined && o.wallet === ctx.wallet) return o;
    }
    return undefined;
  }
}
