/** The bot's durable state: one SQLite file (WAL) holding orders, fills, transactions, cursors and approvals. */
import { AlertStore } from './alert-store.ts';
import { ChainApplications } from './chain-applications.ts';
import { DatabaseSync } from 'node:sqlite';
import { commitNow, openDatabase, schemaVersion, transaction, type Db } from './database.ts';
import { MIGRATIONS } from './migrations.ts';
import { ObligationStore } from './obligation-store.ts';
import { EvaluationStore } from './evaluation-store.ts';
import { EventLog } from './event-log.ts';
import { FairValueStore } from './fair-value-store.ts';
import { ForeignOrders } from './foreign-orders.ts';
import { InventoryStore } from './inventory-store.ts';
import { OrderStore } from './order-store.ts';
import { ParameterChanges } from './parameter-changes.ts';
import { PendingFills } from './pending-fills.ts';
import { StateStore } from './state-store.ts';
import { TxJournal } from './tx-journal.ts';
import type { Clock } from '../core/clock.ts';
import { systemClock, wallMicros } from '../core/system-clock.ts';
import { claimWriter, type ClaimOptions } from './writer-claim.ts';

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
  readonly applications: ChainApplications;
  readonly obligations: ObligationStore;
  /** Each pair's fair value sampled for the report. */
  readonly fairValues: FairValueStore;
  /** Fills in record order, chain fees, and each fill's value afterwards (markouts, PnL attribution). */
  readonly evaluation: EvaluationStore;
  /** Strategy files accepted at start and on reload, chained by hash. */
  readonly parameterChanges: ParameterChanges;
  /** Runs `fn` as one change of the state file: all of it or nothing (nested calls are savepoints). */
  atomically<T>(fn: () => T): T;
  /**
   * Commits what this turn has changed so far, at once: for what must be on file before anything else happens
   * (an order's record before it is signed). A no-op unless the file groups its commits (`groupCommits`).
   */
  durable(): void;
  close(): void;
}

/**
 * The state file for trading: claimed for this process first (one writing process per file, see
 * writer-claim.ts; an in-memory store claims nothing), then migrated. Closing the store gives the claim up. The
 * claim keeps its time on `claim.clock` (the system clock unless given).
 */
export function openStore(
  path: string,
  now: () => number = Date.now,
  claim: ClaimOptions & { readonly clock?: Clock } = {},
): Store {
  const claimed = path === ':memory:' ? null : claimWriter(path, claim.clock ?? systemClock, claim);
  let db: DatabaseSync;
  try {
    db = openDatabase(path);
  } catch (e) {
    claimed?.release();
    throw e;
  }
  const store = storeOn(db, now, true);
  return {
    ...store,
    close: () => {
      try {
        store.close();
      } finally {
        claimed?.release();
      }
    },
  };
}

/**
 * The same state file for reading only (while the bot may be running): nothing is migrated or written. A
 * file of another schema version is refused, since its columns may differ from what this program reads.
 */
export function openStoreReadOnly(path: string, now: () => number = Date.now): Store {
  const db = new DatabaseSync(path, { readOnly: true });
  const version = schemaVersion(db);
  if (version !== MIGRATIONS.length) {
    db.close();
    throw new Error(
      `state file ${path} has schema version ${version}, this program reads ${MIGRATIONS.length}; start the bot once to migrate it`,
    );
  }
  return storeOn(db, now, false);
}

/** `writer`: this process alone writes the file, so what it read stays true until it writes (see OrderStore). */
function storeOn(db: DatabaseSync, now: () => number, writer: boolean): Store {
  // The wall clock has microseconds; an injected clock (a test's, a replay's) has its milliseconds.
  const orders = new OrderStore(db, now, writer, now === Date.now ? wallMicros : undefined);
  return {
    db,
    orders,
    transactions: new TxJournal(db, now),
    state: new StateStore(db, now),
    events: new EventLog(db, now),
    inventory: new InventoryStore(db, now),
    alerts: new AlertStore(db, now),
    foreign: new ForeignOrders(db, now),
    pendingFills: new PendingFills(db, now),
    applications: new ChainApplications(db, now),
    obligations: new ObligationStore(db, now),
    fairValues: new FairValueStore(db),
    evaluation: new EvaluationStore(
      db,
      writer ? { of: (pairId) => orders.fillWritesOf(pairId), any: () => orders.fillWrites } : null,
    ),
    parameterChanges: new ParameterChanges(db),
    atomically: (fn) => transaction(db, fn),
    durable: () => commitNow(db),
    close: () => {
      try {
        commitNow(db);
      } finally {
        db.close();
      }
    },
  };
}
