/**
 * `CancelAll` (see order-manager.ts): every live order of the wallet (optionally of one pair) is cancelled and
 * followed until it is final or the deadline passes.
 */
import { isCancellable, isTerminal } from '../../../core/order-state.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import { failureFields } from '../../../telemetry/incidents.ts';
import type { WalletContext } from '../wallet-context.ts';
import type { CancelAllReport, CancelResult } from './order-commands.ts';

/** What cancel-all does through the order manager. */
export interface Canceller {
  cancel(clientOrderId: bigint): Promise<CancelResult>;
  /** A cancellation of the order is queued or being sent. */
  cancelling(clientOrderId: bigint): boolean;
  /** A block not final yet shows the order filled or cancelled. */
  gone(clientOrderId: bigint): boolean;
}

function stored(ctx: WalletContext, clientOrderId: bigint): StoredOrder {
  return ctx.repos.orders.get(ctx.wallet, clientOrderId) as StoredOrder;
}

/**
 * One order until it is final or the deadline passes. An order whose placement is still in flight is
 * cancelled once it rests; one whose cancel failed (never applied) is cancelled again, up to three times.
 */
async function cancelUntilFinal(
  ctx: WalletContext,
  canceller: Canceller,
  cid: bigint,
  deadline: number,
): Promise<void> {
  const final = () => isTerminal(stored(ctx, cid).status);
  // Cancellable now: resting, no cancel of it under way, and no block not final yet showing it gone.
  const due = () => isCancellable(stored(ctx, cid).status) && !canceller.cancelling(cid) && !canceller.gone(cid);
  for (let attempts = 0; !final() && ctx.clock.now() < deadline;) {
    if (!(await ctx.watch.until(cid, () => final() || (due() && attempts < 3), deadline - ctx.clock.now()))) return;
    if (final()) return;
    attempts += 1;
    await canceller
      .cancel(cid)
      .catch((err: unknown) =>
        ctx.logger.warn({ ...failureFields(err), clientOrderId: cid }, 'cancel-all: not cancelled'),
      );
    await ctx.watch.until(cid, () => final() || isCancellable(stored(ctx, cid).status), deadline - ctx.clock.now());
  }
}

/** Cancels every live order of the wallet (optionally one pair) and waits for each to be final. */
export async function cancelAll(
  ctx: WalletContext,
  canceller: Canceller,
  options: { pairId?: string; timeoutMs?: number },
): Promise<CancelAllReport> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const targets = ctx.repos.orders.live({
    wallet: ctx.wallet,
    ...(options.pairId === undefined ? {} : { pairId: options.pairId }),
  });
  const deadline = ctx.clock.now() + timeoutMs;
  await Promise.all(targets.map((target) => cancelUntilFinal(ctx, canceller, target.clientOrderId, deadline)));
  const now = targets.map((target) => stored(ctx, target.clientOrderId));
  return {
    final: now.filter((order) => isTerminal(order.status)),
    open: now.filter((order) => !isTerminal(order.status)),
  };
}
