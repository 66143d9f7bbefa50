/** The bot's durable state: one SQLite file (WAL) holding orders, fills, transactions, cursors and approvals. */
import { openDatabase, type Db } from './database.ts';
import { OrderStore } from './order-store.ts';
import { StateStore } from './state-store.ts';
import { TxJournal } from './tx-journal.ts';

export interface Store {
  readonly db: Db;
  readonly orders: OrderStore;
  readonly transactions: TxJournal;
  readonly state: StateStore;
  close(): void;
}

export function openStore(path: string, now: () => number = Date.now): Store {
  const db = openDatabase(path);
  return {
    db,
    orders: new OrderStore(db, now),
    transactions: new TxJournal(db, now),
    state: new StateStore(db, now),
    close: () => db.close(),
  };
}
