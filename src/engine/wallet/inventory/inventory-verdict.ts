/**
 * What a decided inventory look leads to (see inventory-check.ts): the mismatch gauge per token, an alert for
 * each pair of a token that differs, the alerts of pairs that agree again resolved, and the operator's
 * re-basing of the totals on the on-chain balances.
 */
import { raiseAlert } from '../alerts.ts';
import type { WalletContext } from '../wallet-context.ts';
import type { Comparable, InventoryReport } from './tokens.ts';

const MISMATCH = 'inventory-mismatch';

function openMismatches(ctx: WalletContext) {
  return ctx.repos.alerts.open({ chain: ctx.chain, wallet: ctx.wallet, kind: MISMATCH });
}

/** Whether an inventory alert of the wallet is open. */
export function mismatchAlerted(ctx: WalletContext): boolean {
  return openMismatches(ctx).length > 0;
}

/** Each token's difference, on-chain minus derived, in the mismatch gauge. */
export function gaugeInventory(ctx: WalletContext, report: Comparable): void {
  for (const token of report.tokens)
    ctx.metrics.inventoryMismatch.set(
      { chain: ctx.chain, wallet: ctx.wallet, token: token.token },
      Number(token.difference),
    );
}

/** A decided look: every pair of a mismatched token is alerted, an alert of a pair that agrees again resolved. */
export function decideInventory(ctx: WalletContext, report: Comparable): InventoryReport {
  gaugeInventory(ctx, report);
  for (const token of report.mismatched) {
    for (const pairId of token.pairs) {
      raiseAlert(
        ctx,
        pairId,
        MISMATCH,
        `on-chain balance of ${token.token} differs from the inventory derived from fills by ${token.difference}`,
        {
          token: token.token,
          onChain: token.onChain,
          total: token.total,
          locked: token.locked,
          difference: token.difference,
          height: report.height,
        },
      );
    }
  }
  const bad = new Set(report.mismatched.flatMap((token) => token.pairs));
  for (const alert of openMismatches(ctx)) {
    if (alert.pairId !== null && !bad.has(alert.pairId)) {
      ctx.repos.alerts.resolve(
        alert.id,
        `a decided check at height ${report.height ?? '?'} found the on-chain balances equal to the derived inventory`,
      );
      ctx.logger.info(
        { alert: alert.id, pairId: alert.pairId, height: report.height?.toString() },
        'inventory mismatch explained',
      );
    }
  }
  return report;
}

/** Sets each differing token's total so that the derived free amount equals the on-chain balance; resolves the alerts. */
export function rebaseInventory(ctx: WalletContext, decided: Comparable, note: string): void {
  for (const token of decided.tokens) {
    if (token.difference === 0n) continue;
    const row = ctx.repos.inventory.get(ctx.chain, ctx.wallet, token.token);
    ctx.repos.inventory.setBaseline(ctx.chain, ctx.wallet, token.token, (row?.total ?? 0n) + token.difference);
    ctx.metrics.inventoryMismatch.set({ chain: ctx.chain, wallet: ctx.wallet, token: token.token }, 0);
    ctx.logger.warn(
      {
        token: token.token,
        onChain: token.onChain,
        locked: token.locked,
        difference: token.difference,
        note,
      },
      'inventory re-based on the on-chain balance by the operator',
    );
  }
  for (const alert of openMismatches(ctx)) {
    ctx.repos.alerts.resolve(alert.id, `operator re-based the inventory on the on-chain balances: ${note}`);
  }
}
