/**
 * Withdrawing what one chain A transaction in one block changed (see provisional-outcomes.ts): its fills go
 * with their inventory change, its transitions are marked withdrawn and each order is derived again through
 * the transition table from those that still stand, its event keys are unmarked, the alerts it raised are
 * resolved, and parked maker fills it took part in are alerted.
 */
import { applyOrderEvent, newOrder, type OrderRecord } from '../../../core/order-state.ts';
import type { ChainApplication } from '../../../store/chain-applications.ts';
import type { FillRecord } from '../../../store/order-store.ts';
import { isPaused, raiseAlert } from '../alerts.ts';
import { pairOf, type WalletContext } from '../wallet-context.ts';
import type { OrderEvents } from './order-events.ts';

/** Alerts that one transaction raises on its own, and that go with it when it is withdrawn. */
const FROM_ONE_TRANSACTION: ReadonlySet<string> = new Set([
  'duplicate-placement',
  'order-resurrected',
  'terms-mismatch',
  'unexplained-fill',
  'unexplained-movement',
  'unexplained-cancel',
  'foreign-order',
]);

/** Withdraws every change derived from one transaction in one block (call inside a transaction). */
export function withdrawApplication(
  ctx: WalletContext,
  events: OrderEvents,
  application: ChainApplication,
  reason: string,
  resettle: Set<bigint>,
): void {
  const { txHash, blockHash } = application;
  for (const fill of ctx.repos.orders.fillsFrom(ctx.wallet, txHash, blockHash)) dropFill(ctx, fill);
  const orders = ctx.repos.orders.sourcedBy(ctx.wallet, txHash, blockHash);
  ctx.repos.orders.withdrawSource(ctx.wallet, txHash, blockHash);
  const why = { type: 'Withdrawn', txHash, blockHash, height: application.height, reason };
  for (const cid of orders) {
    rederive(ctx, events, cid, why);
    resettle.add(cid);
  }
  const keys = ctx.repos.events.unmarkFrom(ctx.chain, ctx.wallet, txHash, blockHash);
  for (const alert of ctx.repos.alerts.open({ chain: ctx.chain, wallet: ctx.wallet })) {
    if (!FROM_ONE_TRANSACTION.has(alert.kind) || (alert.details as { txHash?: unknown } | null)?.txHash !== txHash)
      continue;
    ctx.repos.alerts.resolve(
      alert.id,
      `raised from transaction ${txHash} in block ${blockHash}, which a reorganisation removed`,
    );
    if (alert.pairId !== null) isPaused(ctx, alert.pairId);
  }
  // Parked maker fills are decided by several transactions; one of their movements may now be gone.
  for (const parked of ctx.repos.pendingFills.open(ctx.chain, ctx.wallet)) {
    if (!parked.txHashes.includes(txHash)) continue;
    raiseAlert(
      ctx,
      parked.pairId,
      'reorganised-parked-fill',
      `parked maker fills of ${parked.pairId} include a movement of ${txHash}, whose block a reorganisation removed; check them against the chain`,
      { txHash, blockHash, parked: parked.id },
    );
  }
  ctx.repos.applications.remove(application);
  ctx.metrics.withdrawn.inc({ chain: ctx.chain, kind: application.kind });
  ctx.logger.warn(
    { txHash, block: blockHash, height: application.height.toString(), kind: application.kind, orders, keys, reason },
    'chain A transaction withdrawn: its block was reorganised away',
  );
}

/** Derives an order again, through the transition table, from the transitions that still stand. */
function rederive(ctx: WalletContext, events: OrderEvents, clientOrderId: bigint, why: unknown): void {
  const order = ctx.repos.orders.get(ctx.wallet, clientOrderId);
  if (order === undefined) return;
  let record: OrderRecord = newOrder(order);
  for (const transition of ctx.repos.orders.standing(ctx.wallet, clientOrderId)) {
    const applied = applyOrderEvent(record, transition.event);
    if (applied.ok) {
      record = applied.order;
      continue;
    }
    // It followed what was withdrawn and no longer applies (a cancel request of an order that is not placed).
    ctx.repos.orders.withdrawTransition(transition.id);
    if (transition.event.type === 'Filled') {
      const fill = ctx.repos.orders.fill(transition.event.fillId);
      if (fill !== undefined) dropFill(ctx, fill);
    }
    ctx.logger.warn(
      { clientOrderId, event: transition.event, reason: applied.reason },
      'a later transition no longer applies once the reorganised transaction is withdrawn; withdrawn too',
    );
  }
  ctx.repos.orders.rederive(ctx.wallet, clientOrderId, record, why);
  events.touched(clientOrderId);
}

function dropFill(ctx: WalletContext, fill: FillRecord): void {
  const binding = pairOf(ctx, fill.pairId).binding;
  ctx.repos.inventory.add(ctx.chain, ctx.wallet, binding.baseToken, -fill.baseDelta);
  ctx.repos.inventory.add(ctx.chain, ctx.wallet, binding.quoteToken, -fill.quoteDelta);
  ctx.repos.orders.deleteFill(fill.fillId);
}
