/** Raising an alert: stored (it pauses the pair when it says so), counted, logged, and the pause gauge set. */
import type { WalletContext } from '../wallet-context.ts';

export function raiseAlert(ctx: WalletContext, pairId: string | null, kind: string, message: string, details: unknown, pauses = true): number {
  const { id, created } = ctx.store.alerts.raise({ chain: ctx.chain, wallet: ctx.wallet, pairId, kind, message, details, pauses });
  if (created) ctx.metrics.alerts.inc({ chain: ctx.chain, kind });
  if (pauses) for (const p of pairId === null ? [...ctx.pairs.keys()] : [pairId]) ctx.metrics.paused.set({ chain: ctx.chain, pair: p }, 1);
  ctx.logger.error({ alert: id, pairId, kind, details }, `${message}${pauses ? '; trading on the pair pauses until it is explained' : ''}`);
  return id;
}

/** Whether an open alert keeps the pair from trading (and the gauge in step). */
export function isPaused(ctx: WalletContext, pairId: string): boolean {
  const paused = ctx.store.alerts.pausing(ctx.chain, ctx.wallet, pairId).length > 0;
  ctx.metrics.paused.set({ chain: ctx.chain, pair: pairId }, paused ? 1 : 0);
  return paused;
}
