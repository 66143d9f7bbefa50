/** The crash test's read-only look into the bot's state file (which the bot process may still hold open). */
import { DatabaseSync } from 'node:sqlite';

export interface StoreOrderRow {
  readonly clientOrderId: bigint;
  readonly orderId: bigint | null;
  readonly status: string;
  readonly remaining: bigint;
  readonly rejectionCode: string | null;
}

export interface StoreView {
  readonly orders: StoreOrderRow[];
  readonly inventory: Map<string, bigint>;
  /** When each placement transaction of an order was journalled (epoch ms). */
  readonly placeTxs: Map<bigint, number[]>;
  readonly openAlerts: Array<{ kind: string; message: string }>;
}

export function readStore(path: string, wallet: string): StoreView {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const orders = db
      .prepare(
        'SELECT client_order_id, order_id, status, quantity, filled, rejection_code FROM orders WHERE wallet = ?',
      )
      .all(wallet)
      .map((r) => {
        const x = r as Record<string, string | null>;
        return {
          clientOrderId: BigInt(x.client_order_id as string),
          orderId: x.order_id === null || x.order_id === undefined ? null : BigInt(x.order_id),
          status: String(x.status),
          remaining: BigInt(x.quantity as string) - BigInt(x.filled as string),
          rejectionCode: x.rejection_code ?? null,
        };
      });
    const inventory = new Map(
      db
        .prepare('SELECT token, total FROM inventory WHERE wallet = ?')
        .all(wallet)
        .map((r) => [String((r as { token: string }).token), BigInt((r as { total: string }).total)] as const),
    );
    const placeTxs = new Map<bigint, number[]>();
    for (const r of db
      .prepare("SELECT client_order_id, created_ms FROM transactions WHERE wallet = ? AND kind = 'place'")
      .all(wallet)) {
      const x = r as { client_order_id: string; created_ms: number };
      const id = BigInt(x.client_order_id);
      placeTxs.set(id, [...(placeTxs.get(id) ?? []), Number(x.created_ms)]);
    }
    const openAlerts = db
      .prepare('SELECT kind, message FROM alerts WHERE wallet = ? AND resolved_ms IS NULL')
      .all(wallet)
      .map((r) => ({
        kind: String((r as { kind: string }).kind),
        message: String((r as { message: string }).message),
      }));
    return { orders, inventory, placeTxs, openAlerts };
  } finally {
    db.close();
  }
}
