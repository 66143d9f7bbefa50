/**
 * The order manager of one wallet: `PlaceOrder`, `CancelOrder`, `ReplaceOrder` and `CancelAll`. Placements go
 * through one serialized queue and cancellations through another (p-queue, concurrency 1 each), so a cancel
 * never waits behind placements (a placement backing off on a congested chain, say); the adapters order what
 * reaches the chain, cancels first. Each command waits only until its transaction has left the process, and
 * outcomes settle concurrently, so several transactions are in flight at once. Placements not yet signed can
 * be withdrawn at once (kill switch, stale market data): they are refused with `E_ORDER_WITHDRAWN`.
 *
 * An order is in the store (with its decision for the audit trail) before anything is signed; the adapter
 * journals the signed transaction before broadcasting it. An outcome the chain has not decided stays
 * `unknown` and is settled by asking the chain again (`settle`), by the event follower or by reconciliation:
 * it is never guessed and never sent again as a new transaction.
 */
import PQueue from 'p-queue';
import type { ChainAdapter, Outcome } from '../../../chains/types.ts';
import { toRawOrder } from '../../../core/encoding/order-codec.ts';
import { DltError } from '../../../core/errors.ts';
import { approvalFor } from '../../../core/money.ts';
import { isCancellable } from '../../../core/order-state.ts';
import { DEFAULT_ORDER_OPTIONS } from '../../../core/order-terms.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import type { TxApplier } from '../tracking/tx-applier.ts';
import { pairOf, type WalletContext } from '../wallet-context.ts';
import { committedDraw } from './committed.ts';
import { OutcomeSettler } from './outcome-settler.ts';
import { cancelAll, type Canceller } from './cancel-all.ts';
import { placementRefusal, recordPlacement } from './placement-record.ts';
import type { CancelAllReport, CancelResult, PlaceOrder, Placed } from './order-commands.ts';

export type { CancelAllReport, CancelResult, PlaceOrder, Placed } from './order-commands.ts';

export class OrderManager {
  readonly #ctx: WalletContext;
  readonly #adapter: ChainAdapter;
  readonly #applier: TxApplier;
  readonly #placements = new PQueue({ concurrency: 1 });
  readonly #cancels = new PQueue({ concurrency: 1 });
  readonly #settler: OutcomeSettler;
  readonly #inFlight = new Set<Promise<unknown>>();
  /** Orders whose cancellation is queued or being sent: one cancellation per order at a time. */
  readonly #cancelling = new Set<bigint>();
  /** Per pair: aborted to withdraw the placements queued for it (and not signed yet). */
  readonly #withdraw = new Map<string, AbortController>();
  /** Why no placement is accepted any more (the kill switch, a shutdown); null while trading. */
  #halted: string | null = null;
  /** Set by reconciliation: no order is placed before the wallet's state is known. */
  ready = false;
  /** What cancel-all does through this manager. */
  readonly #canceller: Canceller = {
    cancel: (clientOrderId) => this.cancel(clientOrderId),
    cancelling: (clientOrderId) => this.#cancelling.has(clientOrderId),
    gone: (clientOrderId) => this.#applier.tentative.gone(clientOrderId),
  };

  constructor(ctx: WalletContext, adapter: ChainAdapter, applier: TxApplier, settler: OutcomeSettler) {
    this.#ctx = ctx;
    this.#adapter = adapter;
    this.#applier = applier;
    this.#settler = settler;
  }

  #count(command: string, result: string): void {
    this.#ctx.metrics.commands.inc({ chain: this.#ctx.chain, command, result });
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#inFlight.add(promise);
    void promise.finally(() => this.#inFlight.delete(promise)).catch(() => {});
    return promise;
  }

  /** `PlaceOrder`: resolves once the transaction has left the process. */
  place(cmd: PlaceOrder): Promise<Placed> {
    const refusal = placementRefusal(this.#ctx, cmd, this.#halted, this.ready);
    if (refusal !== null) {
      if (refusal.counted !== null) this.#count('place', refusal.counted);
      return Promise.reject(refusal.error);
    }
    const signal = this.#withdrawSignal(cmd.pairId);
    return this.#placements.add(() => this.#place(cmd, signal)) as Promise<Placed>;
  }

  #withdrawSignal(pairId: string): AbortSignal {
    let controller = this.#withdraw.get(pairId);
    if (controller === undefined) {
      controller = new AbortController();
      this.#withdraw.set(pairId, controller);
    }
    return controller.signal;
  }

  /**
   * Withdraws the placements of a pair (or of every pair) that are queued or not signed yet: they are refused
   * with `E_ORDER_WITHDRAWN`. Placements asked for afterwards go ahead as usual.
   */
  withdrawPlacements(reason: string, pairId?: string): void {
    const pairs = pairId === undefined ? [...this.#withdraw.keys()] : [pairId];
    for (const pair of pairs) {
      this.#withdraw
        .get(pair)
        ?.abort(new DltError('E_ORDER_WITHDRAWN', `placement withdrawn: ${reason}`, { details: { pairId: pair } }));
      this.#withdraw.delete(pair);
    }
  }

  /** No placement is accepted any more (kill switch, shutdown); queued ones are withdrawn. Cancels still go. */
  halt(reason: string): void {
    this.#halted ??= reason;
    this.withdrawPlacements(reason);
  }

  async #place(cmd: PlaceOrder, signal: AbortSignal): Promise<Placed> {
    const ctx = this.#ctx;
    if (signal.aborted) {
      this.#count('place', 'withdrawn');
      throw signal.reason;
    }
    const pair = pairOf(ctx, cmd.pairId);
    const scales = pair.binding.rules.scales;
    const options = cmd.options ?? DEFAULT_ORDER_OPTIONS;
    const terms = { ...options, side: cmd.side, quantity: cmd.quantity, price: cmd.price };
    const raw = toRawOrder(terms, scales);
    const approval = approvalFor(
      cmd.side,
      cmd.quantity,
      cmd.price,
      scales,
      pair.binding.rules.commissions,
      ctx.marketMaker,
    );
    // The id and the record are durable before anything is signed: a crash from here on leaves a trace.
    const order = recordPlacement(ctx, pair, cmd, raw, options);
    const cid = order.clientOrderId;
    const committed = pair.prefunded ? 0n : committedDraw(ctx, cmd.pairId, cmd.side, cid);
    let submission;
    try {
      submission = await this.#adapter.submit({
        kind: 'place',
        pair: pair.binding,
        clientOrderId: cid,
        terms,
        reporting: cmd.reporting ?? pair.reporting,
        approval,
        committed,
        signal,
      });
    } catch (err) {
      this.#count('place', 'error');
      return { clientOrderId: cid, txHash: null, settled: Promise.resolve(this.#settler.submitThrew(order, err)) };
    }
    if (submission.txHash !== null)
      this.#applier.events.apply(order, { type: 'SubmissionSent', txHash: submission.txHash });
    this.#applier.events.flush();
    this.#count('place', 'sent');
    const settled = this.#track(submission.outcome.then((outcome) => this.#settler.placement(cid, outcome)));
    return { clientOrderId: cid, txHash: submission.txHash, settled };
  }

  /** `CancelOrder`: allowed while paused or halted (it only reduces exposure); never queued behind placements. */
  cancel(clientOrderId: bigint): Promise<CancelResult> {
    if (this.#cancelling.has(clientOrderId)) {
      this.#count('cancel', 'refused');
      return Promise.reject(
        new DltError('E_ORDER_STATE', `order ${clientOrderId} is already being cancelled`, {
          details: { clientOrderId },
        }),
      );
    }
    this.#cancelling.add(clientOrderId);
    const job = this.#cancels.add(() => this.#cancel(clientOrderId)) as Promise<CancelResult>;
    void job.finally(() => this.#cancelling.delete(clientOrderId)).catch(() => {});
    return job;
  }

  async #cancel(cid: bigint): Promise<CancelResult> {
    const ctx = this.#ctx;
    const order = ctx.repos.orders.get(ctx.wallet, cid);
    if (order === undefined || !isCancellable(order.status) || order.orderId === null) {
      this.#count('cancel', 'refused');
      throw new DltError(
        'E_ORDER_STATE',
        `order ${cid} cannot be cancelled in status ${order?.status ?? 'unknown to the store'}`,
        { details: { clientOrderId: cid, status: order?.status } },
      );
    }
    if (this.#applier.tentative.gone(cid)) {
      // A block not final yet shows it filled or cancelled: its confirmation settles it (a reorganisation puts it back).
      this.#count('cancel', 'moot');
      throw new DltError('E_ORDER_STATE', `order ${cid} is off the book in a block not final yet`, {
        details: { clientOrderId: cid, status: order.status },
      });
    }
    const pair = pairOf(ctx, order.pairId);
    // The order may leave the book while its cancel waits for a source or a lane (a fill the follower
    // delivers meanwhile): the cancel is then withdrawn before it is simulated or signed.
    const moot = new AbortController();
    const off = ctx.watch.onChange(cid, () => {
      const now = this.#get(cid);
      if (!isCancellable(now.status))
        moot.abort(
          new DltError('E_ORDER_STATE', `order ${cid} left the book (${now.status}) before its cancel was signed`, {
            details: { clientOrderId: cid },
          }),
        );
    });
    let submission;
    try {
      submission = await this.#adapter.submit({
        kind: 'cancel',
        pair: pair.binding,
        side: order.side,
        orderId: order.orderId,
        signal: moot.signal,
      });
    } finally {
      off();
    }
    if (submission.txHash === null) {
      const outcome = await submission.outcome;
      this.#count('cancel', moot.signal.aborted ? 'moot' : 'refused');
      if (moot.signal.aborted) return { clientOrderId: cid, txHash: null, settled: Promise.resolve(this.#get(cid)) };
      const gone = outcome.kind === 'rejected' && outcome.error.code === 'E_VENUE_ORDER_NOT_FOUND';
      // Gone already is the venue's race, settled below; the adapter has said why any other refusal happened.
      if (!gone)
        ctx.logger.debug(
          {
            clientOrderId: cid,
            code: outcome.kind === 'rejected' ? outcome.error.code : outcome.kind,
            reason: outcome.kind === 'rejected' ? outcome.error.message : null,
          },
          'cancellation refused before signing',
        );
      // The simulation found the order gone: that decides a parked fill of it (filled in full).
      return {
        clientOrderId: cid,
        txHash: null,
        settled: Promise.resolve(this.#settler.refusedCancellation(cid, outcome)),
      };
    }
    this.#applier.events.apply(order, { type: 'CancelSent', txHash: submission.txHash });
    this.#applier.events.flush();
    this.#count('cancel', 'sent');
    const settled = this.#track(
      submission.outcome.then((outcome: Outcome) => this.#settler.cancellation(cid, outcome)),
    );
    return { clientOrderId: cid, txHash: submission.txHash, settled };
  }

  /**
   * `ReplaceOrder`: places the new order, and cancels the old one once the new one is on the book, so that the
   * side is not left empty while the new one is on its way. The old quote is stale either way: if the new
   * order cannot be placed (refused, rejected, withdrawn), the old one is cancelled all the same.
   */
  async replace(old: bigint, cmd: PlaceOrder): Promise<{ placed: Placed; cancelled: Promise<CancelResult | null> }> {
    let placed: Placed;
    try {
      placed = await this.place(cmd);
    } catch (err) {
      void this.#track(this.#cancelStale(old));
      throw err;
    }
    const cancelled = this.#track(placed.settled.then(() => this.#cancelStale(old)));
    return { placed, cancelled };
  }

  /** Cancels the order a replacement was for, if it still rests and no cancellation of it is under way. */
  async #cancelStale(old: bigint): Promise<CancelResult | null> {
    const current = this.#ctx.repos.orders.get(this.#ctx.wallet, old);
    if (current === undefined || !isCancellable(current.status) || this.#cancelling.has(old)) return null;
    return this.cancel(old).catch((err: unknown) => {
      this.#ctx.logger.debug({ err, clientOrderId: old }, 'cancelling a replaced quote: no longer applies');
      return null;
    });
  }

  /** `CancelAll`: cancels every live order of the wallet (optionally one pair) and waits for each to be final. */
  cancelAll(options: { pairId?: string; timeoutMs?: number } = {}): Promise<CancelAllReport> {
    return cancelAll(this.#ctx, this.#canceller, options);
  }

  #get(cid: bigint): StoredOrder {
    return this.#ctx.repos.orders.get(this.#ctx.wallet, cid) as StoredOrder;
  }

  /** Resolves when every queued command has been submitted (outcomes may still be pending). */
  async submitted(): Promise<void> {
    while (this.#placements.size + this.#placements.pending + this.#cancels.size + this.#cancels.pending > 0) {
      await Promise.all([this.#placements.onIdle(), this.#cancels.onIdle()]);
    }
  }

  /** Resolves when the queues are empty and every outcome handler has run. */
  async idle(): Promise<void> {
    await this.submitted();
    while (this.#inFlight.size > 0) {
      await Promise.allSettled([...this.#inFlight]);
      await this.submitted();
    }
  }
}
