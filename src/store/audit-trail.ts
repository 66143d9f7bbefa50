/**
 * The audit trail of one order: the decision that made it (market snapshot, strategy parameters and config
 * hash, risk checks passed), every transition with the event that caused it, every transaction signed for
 * it (its placement and its cancellation), and its fills.
 */
import type { Decision } from './state-store.ts';
import type { Store } from './store.ts';
import type { FillRecord, StoredOrder } from './order-store.ts';
import type { TxRecord } from './tx-journal.ts';

export interface AuditTrail {
  readonly order: StoredOrder;
  readonly decision: (Decision & { createdMs: number }) | null;
  readonly transitions: ReturnType<Store['orders']['transitions']>;
  readonly transactions: TxRecord[];
  readonly fills: FillRecord[];
}

export function auditTrail(store: Store, wallet: string, clientOrderId: bigint): AuditTrail | undefined {
  const order = store.orders.get(wallet, clientOrderId);
  if (order === undefined) return undefined;
  const hashes = [
    ...new Set([
      order.txHash,
      order.cancelTxHash,
      ...store.transactions.forOrder(wallet, clientOrderId).map((t) => t.txHash),
    ]),
  ].filter((h): h is string => h !== null);
  return {
    order,
    decision: order.decisionId === null ? null : (store.state.decision(order.decisionId) ?? null),
    transitions: store.orders.transitions(wallet, clientOrderId),
    transactions: hashes.map((h) => store.transactions.get(h)).filter((t): t is TxRecord => t !== undefined),
    fills: store.orders.fills({ wallet }).filter((f) => f.clientOrderId === clientOrderId),
  };
}
