/** Raising an alert: stored (it pauses the pair when it says so), counted and logged. */
import type { WalletContext } from './wallet-context.ts';

export function raiseAlert(
  ctx: WalletContext,
  pairId: string | null,
  kind: string,
  message: string,
  details: unknown,
  pauses = true,
): number {
  const { id, created } = ctx.repos.alerts.raise({
    chain: ctx.chain,
    wallet: ctx.wallet,
    pairId,
    kind,
    message,
    details,
    pauses,
  });
  if (created) ctx.metrics.alerts.inc({ chain: ctx.chain, kind });
  ctx.logger.error(
    { alert: id, pairId, kind, details },
    `${message}${pauses ? '; trading on the pair pauses until it is explained' : ''}`,
  );
  return id;
}

/** Whether an open alert keeps the pair from trading. */
export function isPaused(ctx: WalletContext, pairId: string): boolean {
  return ctx.repos.alerts.pausing(ctx.chain, ctx.wallet, pairId).length > 0;
}
