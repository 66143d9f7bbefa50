/**
 * The order manager of one wallet: `PlaceOrder`, `CancelOrder`, `ReplaceOrder` and `CancelAll`. Placements go
 * through one queue (as many at once as the adapter takes: one on chain A, whose nonces follow the order
 * given; one per source account on chain B) and cancellations through another (one at a time), so a cancel
 * never waits behind placements (a placement backing off on a congested chain, say); the adapters order what
 * reaches the chain, cancels first. A placement is handed over (`handOver`): recorded as intended and queued
 * at once, sent when its turn comes; outcomes settle concurrently, so several transactions are in flight at
 * once. Placements not yet signed can be withdrawn at once (kill switch, stale market data, a newer decision
 * of their pair): they are refused with `E_ORDER_WITHDRAWN`, those still queued here at the moment of the
 * withdrawal, so that no later read of the store counts them.
 *
 * An order is in the store (with its decision for the audit trail) before anything is signed; the adapter
 * journals the signed transaction before broadcasting it. An outcome the chain has not decided stays
 * `unknown` and is settled by asking the chain again (`settle`), by the event follower or by reconciliation:
 * it is never guessed and never sent again as a new transaction.
 */
import PQueue from 'p-queue';
import type { ChainAdapter } from '../../../chains/types.ts';
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
import { sendCancel } from './cancel-order.ts';
import { superseded, Withdrawals } from './withdrawals.ts';
import { placementRefusal, recordPlacement } from './placement-record.ts';
import type { CancelAllReport, CancelResult, HandedOver, PlaceOrder, Placed } from './order-commands.ts';

export type { CancelAllReport, CancelResult, HandedOver, PlaceOrder, Placed } from './order-commands.ts';

export class OrderManager {
  readonly #ctx: WalletContext;
  readonly #adapter: ChainAdapter;
  readonly #applier: TxApplier;
  readonly #placements: PQueue;
  readonly #cancels = new PQueue({ concurrency: 1 });
  readonly #settler: OutcomeSettler;
  readonly #inFlight = new Set<Promise<unknown>>();
  /** Orders whose cancellation is queued or being sent: one cancellation per order at a time. */
  readonly #cancelling = new Set<bigint>();
  readonly withdrawals = new Withdrawals();
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
    this.#placements = new PQueue({ concurrency: Math.max(1, adapter.placementLanes ?? 1) });
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
    try {
      return this.handOver(cmd).sent;
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }

  /**
   * A placement handed over: refused at once (thrown), or recorded as intended, before anything is signed, and
   * queued; `sent` resolves once its transaction has left the process (rejects when it is withdrawn first).
   */
  handOver(cmd: PlaceOrder): HandedOver & { readonly signal: AbortSignal } {
    const ctx = this.#ctx;
    const refusal = placementRefusal(ctx, cmd, this.#halted, this.ready);
    if (refusal !== null) {
      if (refusal.counted !== null) this.#count('place', refusal.counted);
      throw refusal.error;
    }
    const pair = pairOf(ctx, cmd.pairId);
    const options = cmd.options ?? DEFAULT_ORDER_OPTIONS;
    const raw = toRawOrder(
      { ...options, side: cmd.side, quantity: cmd.quantity, price: cmd.price },
      pair.binding.rules.scales,
    );
    // The id and the record are durable before anything is signed: a crash from here on leaves a trace.
    const order = recordPlacement(ctx, pair, cmd, raw, options);
    const cid = order.clientOrderId;
    const signal = this.withdrawals.signal(cmd.pairId, cid);
    let started = false;
    // Withdrawn while still queued here: refused in the store at once, never handed to the adapter. Withdrawn
    // in the adapter: it may be past signing, so it stays as it is until the adapter answers (`withdrawn`).
    const onWithdraw = () => {
      if (started) return this.withdrawals.inAdapter(cid);
      this.#count('place', 'withdrawn');
      this.#settler.withdrawn(order, signal.reason);
    };
    signal.addEventListener('abort', onWithdraw, { once: true });
    const sent = this.#placements.add(() => {
      started = true;
      return this.#place(cmd, order, signal);
    }) as Promise<Placed>;
    void sent
      .then((placed) => placed.settled)
      .catch(() => undefined)
      .finally(() => {
        signal.removeEventListener('abort', onWithdraw);
        this.withdrawals.settled(cmd.pairId, cid);
      });
    return { clientOrderId: cid, sent, signal };
  }

  /**
   * Withdraws the placements of a pair (or of every pair) that are queued or not signed yet: they are refused
   * with `E_ORDER_WITHDRAWN`. Placements asked for afterwards go ahead as usual.
   */
  withdrawPlacements(reason: string, pairId?: string): void {
    this.withdrawals.withdraw(reason, pairId);
  }

  /** A newer decision of the pair supersedes its placements not signed yet, but for those it `keep`s: withdrawn. */
  supersede(pairId: string, keep: ReadonlySet<bigint> = new Set()): void {
    this.withdrawals.supersede(pairId, keep);
  }

  /** No placement is accepted any more (kill switch, shutdown); queued ones are withdrawn. Cancels still go. */
  halt(reason: string): void {
    this.#halted ??= reason;
    this.withdrawPlacements(reason);
  }

  async #place(cmd: PlaceOrder, order: StoredOrder, signal: AbortSignal): Promise<Placed> {
    const ctx = this.#ctx;
    // Refused in the store when it was withdrawn.
    if (signal.aborted) throw signal.reason;
    const pair = pairOf(ctx, cmd.pairId);
    const scales = pair.binding.rules.scales;
    const options = cmd.options ?? DEFAULT_ORDER_OPTIONS;
    const terms = { ...options, side: cmd.side, quantity: cmd.quantity, price: cmd.price };
    const approval = approvalFor(
      cmd.side,
      cmd.quantity,
      cmd.price,
      scales,
      pair.binding.rules.commissions,
      ctx.marketMaker,
    );
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

  #cancel(cid: bigint): Promise<CancelResult> {
    return sendCancel(
      {
        ctx: this.#ctx,
        adapter: this.#adapter,
        applier: this.#applier,
        settler: this.#settler,
        count: (result) => this.#count('cancel', result),
        track: (p) => this.#track(p),
      },
      cid,
    );
  }

  /**
   * `ReplaceOrder`: places the new order, and cancels the old one once the new one is on the book, so that the
   * side is not left empty while the new one is on its way. The old quote is stale either way: if the new
   * order cannot be placed (refused, rejected, withdrawn), the old one is cancelled all the same, unless a newer
   * decision of its pair withdrew it (`supersede`): that decision saw the old order and says what becomes of it.
   */
  async replace(old: bigint, cmd: PlaceOrder): Promise<{ placed: Placed; cancelled: Promise<CancelResult | null> }> {
    const handed = this.handOverReplace(old, cmd);
    return { placed: await handed.sent, cancelled: handed.cancelled };
  }

  /** `ReplaceOrder` handed over (see `handOver`): `cancelled` follows the old order's cancellation. */
  handOverReplace(old: bigint, cmd: PlaceOrder): HandedOver & { cancelled: Promise<CancelResult | null> } {
    let handed;
    try {
      handed = this.handOver(cmd);
    } catch (err) {
      void this.#track(this.#cancelStale(old));
      throw err;
    }
    const { signal } = handed;
    const cancelled = this.#track(
      handed.sent.then(
        (placed) =>
          placed.settled.then((o) => (superseded(signal) && o.status === 'rejected' ? null : this.#cancelStale(old))),
        () => (superseded(signal) ? null : this.#cancelStale(old)),
      ),
    );
    return { clientOrderId: handed.clientOrderId, sent: handed.sent, cancelled };
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
