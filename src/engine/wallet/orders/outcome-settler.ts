/**
 * Applies the outcome of a placement or a cancellation, and settles the ones the chain has not decided:
 * `unknown` is asked again (`adapter.settle`) a few times with growing pauses, then left to the event follower
 * and to reconciliation. Nothing here ever sends a transaction.
 */
import type { ChainAdapter, Outcome } from '../../../chains/types.ts';
import { isDltError, type ErrorCode } from '../../../core/errors.ts';
import { isAwaitingPlacement, isOnBook } from '../../../core/order-state.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import { sourceOfOutcome } from '../tracking/sources.ts';
import type { TxApplier } from '../tracking/tx-applier.ts';
import { pairOf, type WalletContext } from '../wallet-context.ts';

export const DEFAULT_SETTLE_DELAYS_MS: readonly number[] = [1_000, 2_000, 5_000, 10_000, 30_000];

export class OutcomeSettler {
  readonly #ctx: WalletContext;
  readonly #adapter: ChainAdapter;
  readonly #applier: TxApplier;
  readonly #delays: readonly number[];
  readonly #running = new Map<bigint, Promise<StoredOrder>>();
  #stopped = false;

  constructor(
    ctx: WalletContext,
    adapter: ChainAdapter,
    applier: TxApplier,
    delaysMs: readonly number[] = DEFAULT_SETTLE_DELAYS_MS,
  ) {
    this.#ctx = ctx;
    this.#adapter = adapter;
    this.#applier = applier;
    this.#delays = delaysMs;
  }

  #get(cid: bigint): StoredOrder {
    return this.#ctx.repos.orders.get(this.#ctx.wallet, cid) as StoredOrder;
  }

  /**
   * Applies in one transaction. An outcome read from a chain A receipt is applied as derived from the
   * receipt's block and listed as provisional (see provisional-outcomes.ts); one read from a block the
   * follower has already seen replaced is not applied at all.
   */
  #run(fn: () => void, from?: { readonly kind: 'place' | 'cancel'; readonly cid: bigint; readonly o: Outcome }): void {
    const provisional = this.#applier.provisional;
    try {
      this.#ctx.repos.atomically(() => {
        if (from === undefined) return fn();
        if (provisional.stale(from.o)) {
          this.#ctx.logger.info(
            { clientOrderId: from.cid, txHash: from.o.txHash },
            'outcome from a block the chain has since replaced; not applied',
          );
          return;
        }
        this.#applier.events.within(sourceOfOutcome(from.o), fn);
        provisional.outcomeApplied(from.cid, from.kind, from.o);
      });
    } catch (e) {
      this.#applier.events.discard();
      throw e;
    }
    this.#applier.events.flush();
  }

  placement(cid: bigint, o: Outcome): StoredOrder {
    this.#run(
      () => {
        const order = this.#get(cid);
        if (o.kind === 'accepted') {
          this.#applier.applyOutcome(o.events);
          const now = this.#get(cid);
          // An outcome without the OrderReceived event still carries the order id.
          if (o.orderId !== null && now.orderId === null && isAwaitingPlacement(now.status)) {
            this.#applier.events.apply(now, { type: 'Accepted', orderId: o.orderId });
          }
        } else if (o.kind === 'rejected') {
          const event = { code: o.error.code, reason: o.error.message };
          if (order.status === 'intended') this.#applier.events.apply(order, { type: 'Refused', ...event });
          else if (isAwaitingPlacement(order.status))
            this.#applier.events.apply(order, { type: 'SubmissionFailed', ...event });
        } else if (order.status === 'submitting') {
          this.#applier.events.apply(order, { type: 'OutcomeUnknown', reason: o.reason });
        }
      },
      { kind: 'place', cid, o },
    );
    if (o.kind === 'unknown') this.later(cid);
    return this.#get(cid);
  }

  cancellation(cid: bigint, o: Outcome): StoredOrder {
    this.#run(
      () => {
        if (o.kind === 'accepted') this.#applier.applyOutcome(o.events);
        else if (o.kind === 'rejected') {
          if (o.error.code === 'E_VENUE_ORDER_NOT_FOUND') {
            this.#notOnBook(cid, o.error.code, o.error.message);
            return;
          }
          const order = this.#get(cid);
          if (order.status === 'cancelRequested')
            this.#applier.events.apply(order, { type: 'CancelFailed', code: o.error.code, reason: o.error.message });
          // A parked candidate is still on the book and must be cancelled again to decide the parked fills.
          if (this.#applier.parked.isCandidate(this.#get(cid)))
            queueMicrotask(() => this.#applier.parked.requestCancel([cid]));
        }
      },
      { kind: 'cancel', cid, o },
    );
    if (o.kind === 'unknown') this.later(cid);
    return this.#get(cid);
  }

  /** A cancellation refused before signing: nothing changes, unless it says the order is gone. */
  refusedCancellation(cid: bigint, o: Outcome): StoredOrder {
    if (o.kind === 'rejected' && o.error.code === 'E_VENUE_ORDER_NOT_FOUND') {
      const error = o.error;
      this.#run(() => this.#notOnBook(cid, error.code, error.message));
    }
    return this.#get(cid);
  }

  /**
   * The chain says the order is no longer on the book: a fill or a cancellation got there first, in a block
   * or ledger whose events have not been applied yet. The order leaves for good (it is never cancelled
   * again) and those events settle it; a parked fill of it was a fill in full.
   */
  #notOnBook(cid: bigint, code: ErrorCode, reason: string): void {
    const order = this.#get(cid);
    if (isOnBook(order.status)) {
      this.#applier.events.apply(order, { type: 'NotOnBook', code, reason });
    }
    this.#ctx.logger.info(
      { clientOrderId: cid, orderId: order.orderId, pairId: order.pairId },
      'order no longer on the book when cancelled (a fill or cancellation got there first); its events settle it',
    );
    this.#applier.parked.onGone(this.#get(cid));
  }

  /** The transaction whose fate decides the order's next step, if any is open. */
  pendingTx(order: StoredOrder): { txHash: string; kind: 'place' | 'cancel' } | null {
    if (isAwaitingPlacement(order.status) && order.txHash !== null) return { txHash: order.txHash, kind: 'place' };
    if (order.status === 'cancelRequested' && order.cancelTxHash !== null)
      return { txHash: order.cancelTxHash, kind: 'cancel' };
    return null;
  }

  /** Asks the chain once; returns the outcome's kind, or null when nothing was open. */
  async settleOnce(cid: bigint): Promise<Outcome['kind'] | null> {
    const order = this.#get(cid);
    const open = this.pendingTx(order);
    if (open === null) return null;
    const o = await this.#adapter.settle(open.txHash, pairOf(this.#ctx, order.pairId).binding);
    if (o.kind === 'unknown') return 'unknown';
    if (open.kind === 'place') this.placement(cid, o);
    else this.cancellation(cid, o);
    return o.kind;
  }

  /** Stops the background settling: loops end at their next wake-up without touching the store again. */
  stop(): void {
    this.#stopped = true;
  }

  /** Settles in the background with growing pauses; one loop per order. */
  later(cid: bigint): Promise<StoredOrder> {
    const running = this.#running.get(cid);
    if (running !== undefined) return running;
    const loop = (async () => {
      let last = this.#get(cid);
      for (const ms of this.#delays) {
        await this.#ctx.clock.sleep(ms);
        if (this.#stopped) return last;
        try {
          const kind = await this.settleOnce(cid);
          if (this.#stopped) return last;
          last = this.#get(cid);
          if (kind !== 'unknown') break;
        } catch (e) {
          if (this.#stopped) return last;
          this.#ctx.logger.warn(
            { err: e, clientOrderId: cid },
            'settling an unknown outcome failed; trying again later',
          );
        }
      }
      return this.#stopped ? last : this.#get(cid);
    })();
    this.#running.set(cid, loop);
    void loop.finally(() => this.#running.delete(cid));
    return loop;
  }

  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running.values()]);
  }

  /** Withdrawn before it was handed to the adapter (nothing signed): refused, so that it never shows as live. */
  withdrawn(order: StoredOrder, reason: unknown): void {
    const message = reason instanceof Error ? reason.message : 'placement withdrawn';
    this.#applier.events.apply(order, { type: 'Refused', code: 'E_ORDER_WITHDRAWN', reason: message });
    this.#applier.events.flush();
  }

  /** The adapter threw: if it journalled a transaction for the order, its fate is unknown; otherwise it never left. */
  submitThrew(order: StoredOrder, e: unknown): StoredOrder {
    const ctx = this.#ctx;
    const journalled = ctx.repos.transactions.forOrder(ctx.wallet, order.clientOrderId).at(-1);
    ctx.logger.error(
      { err: e, clientOrderId: order.clientOrderId, journalled: journalled?.txHash },
      'submission failed',
    );
    if (journalled !== undefined) {
      const sent = this.#applier.events.apply(order, { type: 'SubmissionSent', txHash: journalled.txHash }) ?? order;
      this.#applier.events.apply(sent, { type: 'OutcomeUnknown', reason: e instanceof Error ? e.message : String(e) });
      this.later(order.clientOrderId);
    } else {
      const code = isDltError(e) ? e.code : 'E_ORDER_NOT_SENT';
      this.#applier.events.apply(order, { type: 'Refused', code, reason: e instanceof Error ? e.message : String(e) });
    }
    this.#applier.events.flush();
    return ctx.repos.orders.get(ctx.wallet, order.clientOrderId) as StoredOrder;
  }
}
