/**
 * Reconciliation's comparison with the venue: the wallet's open-order list against the store. Our orders are
 * found by their order id; others are unrecognised (and remembered as foreign). An order the venue lists with
 * another remaining quantity, or one the store holds resting that the venue no longer lists, is a discrepancy
 * the chain decides (`#repair`); the venue's list of ended orders adds its word where the chain cannot.
 */
import type { ChainAdapter } from '../../../chains/types.ts';
import { isCancellable, remainingOf } from '../../../core/order-state.ts';
import { quantityFromRaw } from '../../../core/units.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import { isClosedStatus, type VenueOrder } from '../../../venue/payload/orders.ts';
import { raiseAlert } from '../alerts.ts';
import type { OrderManager } from '../orders/order-manager.ts';
import type { EventTracker } from '../tracking/event-tracker.ts';
import type { TxApplier } from '../tracking/tx-applier.ts';
import type { WalletContext } from '../wallet-context.ts';
import { readVenueOrder, type VenueOrderView } from './venue-order-view.ts';
import { VenueOrderHistory, type ReadOrderHistory } from './venue-history.ts';

export interface VenueOrders {
  /** `GET /wallets/{address}/orders`. */
  walletOrders(address: string): Promise<VenueOrder[]>;
  /** The same with `only_open=false` for one pair: its filled, cancelled and rejected orders too. */
  walletOrderHistory?: ReadOrderHistory;
}

export interface VenueCompareOptions {
  readonly rest?: VenueOrders;
  /** How long the venue's order lists may lag the chain; default 3000 ms. */
  readonly venueLagMs?: number;
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
   * good and its fill or cancellation events settle it), `venue-ended` (the chain did not say, and the venue
   * lists the order filled, cancelled or rejected: the same), `venue-behind` (the chain says it rests: the
   * venue's list is behind), `checking` (it rests; once the events up to the chain's answer are applied, a
   * remaining quantity that still differs is settled by cancelling the order, whose cancellation returns
   * exactly what is left), `unanswered` (the chain did not say; the next reconciliation asks again).
   */
  readonly repair: 'not-on-book' | 'venue-ended' | 'venue-behind' | 'checking' | 'unanswered';
}

export class VenueComparison {
  readonly #ctx: WalletContext;
  readonly #adapter: ChainAdapter;
  readonly #applier: TxApplier;
  readonly #tracker: EventTracker;
  readonly #manager: OrderManager;
  readonly #options: VenueCompareOptions;

  constructor(
    ctx: WalletContext,
    parts: { adapter: ChainAdapter; applier: TxApplier; tracker: EventTracker; manager: OrderManager },
    options: VenueCompareOptions,
  ) {
    this.#ctx = ctx;
    this.#adapter = parts.adapter;
    this.#applier = parts.applier;
    this.#tracker = parts.tracker;
    this.#manager = parts.manager;
    this.#options = options;
  }

  /** Compares the store with the venue's open-order list and repairs what the chain says differs. */
  async compare(): Promise<{ unrecognised: VenueOrderView[]; discrepancies: Discrepancy[] }> {
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
    const history = new VenueOrderHistory(ctx, rest.walletOrderHistory?.bind(rest));
    for (const { listed, ...d } of found) discrepancies.push({ ...d, repair: await this.#repair(d, listed, history) });
    return { unrecognised, discrepancies };
  }

  /**
   * Asks the chain about an order the venue's list disagrees with (a cancellation simulated, never sent) and
   * repairs the store from its answer: gone from the book, the order leaves for good and its events settle it;
   * on the book, a missing listing is the venue's lag, and a remaining quantity is checked again once the
   * events up to the chain's answer are applied (in the background: it may take the confirmation depth).
   * An order missing from the open list is also looked up in the venue's list of ended orders: its status and
   * reason are logged with the chain's answer, and when the chain cannot answer, an order the venue lists as
   * filled, cancelled or rejected is no longer treated as possibly live (it leaves the book for good and its
   * events settle it, as when the chain says it is gone). The chain's answer, when there is one, prevails.
   */
  async #repair(
    d: Omit<Discrepancy, 'repair'>,
    listed: VenueOrderView | null,
    history: VenueOrderHistory,
  ): Promise<Discrepancy['repair']> {
    const ctx = this.#ctx;
    const order = ctx.repos.orders.get(ctx.wallet, d.clientOrderId);
    const binding = order === undefined ? undefined : ctx.pairs.get(order.pairId)?.binding;
    if (order === undefined || binding === undefined || order.orderId === null) return 'unanswered';
    const probe = await this.#adapter
      .probeOrder(binding, order.side, order.orderId)
      .catch((e: unknown) => ({ onBook: null, height: 0n, reason: e instanceof Error ? e.message : String(e) }));
    const record = d.kind === 'not-listed' ? await history.recordOf(order) : null;
    const venue =
      record === null ? {} : { venueStatus: record.status ?? null, venueReason: record.statusReason ?? null };
    const ended = record !== null && isClosedStatus(record.status);
    const fields = { ...d, pairId: order.pairId, height: probe.height.toString(), ...venue };
    if (probe.onBook === false || (probe.onBook === null && ended)) {
      const says =
        probe.onBook === false
          ? 'the chain says it is no longer on the book'
          : `the chain did not say whether it rests, and the venue lists it ${record?.status} (${record?.statusReason ?? 'no reason'})`;
      const now = ctx.repos.orders.get(ctx.wallet, d.clientOrderId);
      if (now !== undefined && isCancellable(now.status)) {
        this.#applier.events.apply(now, {
          type: 'NotOnBook',
          code: 'E_VENUE_ORDER_NOT_FOUND',
          reason: `reconciliation: ${d.detail}, and ${says}`,
        });
        this.#applier.events.flush();
      }
      ctx.logger.warn(
        { ...fields, ...(probe.onBook === null ? { chainReason: probe.reason } : {}) },
        `store and venue disagreed: ${says}; it leaves for good and its events settle it`,
      );
      return probe.onBook === false ? 'not-on-book' : 'venue-ended';
    }
    if (probe.onBook === null) {
      ctx.logger.warn(
        { ...fields, reason: probe.reason },
        'store and venue disagree and the chain did not say whether the order rests; the next reconciliation asks again',
      );
      return 'unanswered';
    }
    if (d.kind === 'not-listed') {
      if (ended)
        ctx.logger.warn(fields, 'the venue lists the order ended, but the chain says it rests: the chain prevails');
      else ctx.logger.info(fields, "the venue's list is behind the chain: the order rests on the book");
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
