/**
 * One cancellation on its way (see order-manager.ts): refused at once unless the order rests, withdrawn unsigned
 * when the order leaves the book while it waits for a source or a lane, else sent and followed to its outcome.
 */
import type { ChainAdapter, Outcome } from '../../../chains/types.ts';
import { DltError } from '../../../core/errors.ts';
import { isCancellable } from '../../../core/order-state.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import type { TxApplier } from '../tracking/tx-applier.ts';
import { pairOf, type WalletContext } from '../wallet-context.ts';
import type { CancelResult } from './order-commands.ts';
import type { OutcomeSettler } from './outcome-settler.ts';

export interface CancelDeps {
  readonly ctx: WalletContext;
  readonly adapter: ChainAdapter;
  readonly applier: TxApplier;
  readonly settler: OutcomeSettler;
  /** Counts the command's result. */
  readonly count: (result: string) => void;
  /** Follows a promise until it settles (the manager's `idle`). */
  readonly track: <T>(p: Promise<T>) => Promise<T>;
}

export async function sendCancel(deps: CancelDeps, cid: bigint): Promise<CancelResult> {
  const { ctx, adapter, applier, settler } = deps;
  const get = (): StoredOrder => ctx.repos.orders.get(ctx.wallet, cid) as StoredOrder;
  const order = ctx.repos.orders.get(ctx.wallet, cid);
  if (order === undefined || !isCancellable(order.status) || order.orderId === null) {
    deps.count('refused');
    throw new DltError(
      'E_ORDER_STATE',
      `order ${cid} cannot be cancelled in status ${order?.status ?? 'unknown to the store'}`,
      { details: { clientOrderId: cid, status: order?.status } },
    );
  }
  if (applier.tentative.gone(cid)) {
    // A block not final yet shows it filled or cancelled: its confirmation settles it (a reorganisation puts it back).
    deps.count('moot');
    throw new DltError('E_ORDER_STATE', `order ${cid} is off the book in a block not final yet`, {
      details: { clientOrderId: cid, status: order.status },
    });
  }
  const pair = pairOf(ctx, order.pairId);
  // The order may leave the book while its cancel waits for a source or a lane (a fill the follower
  // delivers meanwhile): the cancel is then withdrawn before it is simulated or signed.
  const moot = new AbortController();
  const off = ctx.watch.onChange(cid, () => {
    const now = get();
    if (!isCancellable(now.status))
      moot.abort(
        new DltError('E_ORDER_STATE', `order ${cid} left the book (${now.status}) before its cancel was signed`, {
          details: { clientOrderId: cid },
        }),
      );
  });
  let submission;
  try {
    submission = await adapter.submit({
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
    deps.count(moot.signal.aborted ? 'moot' : 'refused');
    if (moot.signal.aborted) return { clientOrderId: cid, txHash: null, settled: Promise.resolve(get()) };
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
      settled: Promise.resolve(settler.refusedCancellation(cid, outcome)),
    };
  }
  applier.events.apply(order, { type: 'CancelSent', txHash: submission.txHash });
  applier.events.flush();
  deps.count('sent');
  const settled = deps.track(submission.outcome.then((outcome: Outcome) => settler.cancellation(cid, outcome)));
  return { clientOrderId: cid, txHash: submission.txHash, settled };
}
