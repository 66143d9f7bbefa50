/** The bot's durable state: one SQLite file (WAL) holding orders, fills, transactions, cursors and approvals. */
import { AlertStore } from './alert-store.ts';
import { openDatabase, type Db } from './database.ts';
import { EventLog } from './event-log.ts';
import { ForeignOrders } from './foreign-orders.ts';
import { InventoryStore } from './inventory-store.ts';
import { OrderStore } from './order-store.ts';
import { PendingFills } from './pending-fills.ts';
import { StateStore } from './state-store.ts';
import { TxJournal } from './tx-journal.ts';

export interface Store {
  readonly db: Db;
  readonly orders: OrderStore;
  readonly transactions: TxJournal;
  readonly state: StateStore;
  readonly events: EventLog;
  readonly inventory: InventoryStore;
  readonly alerts: AlertStore;
  readonly foreign: ForeignOrders;
  readonly pendingFills: PendingFills;
  close(): void;
}

export function openStore(path: string, now: () => number = Date.now): Store {
  const db = openDatabase(path);
  return {
    db,
    orders: new OrderStore(db, now),
    transactions: new TxJournal(db, now),
    state: new StateStore(db, now),
    events: new EventLog(db, now),
    inventory: new InventoryStore(db, now),
    alerts: new AlertStore(db, now),
    foreign: new ForeignOrders(db, now),
    pendingFills: new PendingFills(db, now),
    close: () => db.close(),
  };
}
