/** One SQLite file in WAL mode, migrated on open. Every multi-row change runs in one transaction. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementResultingChanges } from 'node:sqlite';
import { MIGRATIONS } from './migrations.ts';

export type Db = DatabaseSync;

/**
 * Each SQL text is compiled once per connection: `prepare` answers the statement compiled before (compiling
 * costs more than running most of these queries). Safe because every use runs a statement to completion
 * synchronously (`get`, `all`, `run`; nothing iterates one lazily) and none changes a statement's settings.
 */
function cachingStatements(db: DatabaseSync): DatabaseSync {
  const compile = db.prepare.bind(db);
  const cache = new Map<string, ReturnType<DatabaseSync['prepare']>>();
  db.prepare = (sql: string) => {
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = compile(sql);
      if (WRITES.test(sql)) groupingWrites(db, statement);
      cache.set(sql, statement);
    }
    return statement;
  };
  return db;
}

const WRITES = /^\s*(?:INSERT|UPDATE|DELETE|REPLACE)\b/i;

/** A writing statement run on its own joins the turn's group, when the connection groups its commits. */
function groupingWrites(db: DatabaseSync, statement: ReturnType<DatabaseSync['prepare']>): void {
  const run = statement.run.bind(statement) as (...args: SQLInputValue[]) => StatementResultingChanges;
  statement.run = ((...args: SQLInputValue[]) => {
    const group = groups.get(db);
    if (group !== undefined && (depth.get(db) ?? 0) === 0) joinGroup(db, group);
    return run(...args);
  }) as typeof statement.run;
}

export function openDatabase(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = cachingStatements(new DatabaseSync(path));
  db.exec(
    // temp_store: a savepoint's journal (every change of a grouped turn is one, see groupCommits) in memory,
    // not written to a temporary file.
    'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA temp_store = MEMORY;',
  );
  migrate(db);
  return db;
}

export function schemaVersion(db: Db): number {
  const exists = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (exists === undefined) return 0;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
  return row === undefined ? 0 : Number(row.value);
}

export function migrate(db: Db, migrations: readonly string[] = MIGRATIONS): void {
  const current = schemaVersion(db);
  if (current > migrations.length) {
    throw new Error(
      `state file has schema version ${current}, newer than this program (${migrations.length}); refusing to open it`,
    );
  }
  for (let v = current; v < migrations.length; v++) {
    transaction(db, () => {
      db.exec(migrations[v] as string);
      db.prepare(
        "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ).run(String(v + 1));
    });
  }
}

const depth = new WeakMap<Db, number>();
const rollbackListeners = new WeakMap<Db, Array<() => void>>();

interface Group {
  open: boolean;
  readonly onError: (e: unknown) => void;
}
const groups = new WeakMap<Db, Group>();

/**
 * Commits grouped by turn of the event loop (the running bot's state file): the changes one turn makes (a block's
 * outcomes and events, each a change of its own, all-or-nothing as a savepoint) commit together when the turn
 * ends, instead of one commit each (some 40 us of CPU and a write of every page it touched). What a crash loses
 * is at most the turn it struck, as if it had struck a moment earlier: nothing had left the process on it, since
 * whatever must be known before it leaves (a signed transaction, see `commitNow`) commits at once. A group that
 * cannot commit is rolled back (the rollback listeners run) and handed to `onError`: the process cannot go on.
 */
export function groupCommits(db: Db, onError: (e: unknown) => void): void {
  groups.set(db, { open: false, onError });
}

function joinGroup(db: Db, group: Group): void {
  if (group.open) return;
  db.exec('BEGIN IMMEDIATE');
  group.open = true;
  setImmediate(() => {
    const error = commitGroup(db, group);
    if (error !== null) group.onError(error);
  });
}

function commitGroup(db: Db, group: Group): unknown {
  if (!group.open || !db.isOpen) return null;
  group.open = false;
  try {
    db.exec('COMMIT');
    return null;
  } catch (e) {
    if (db.isTransaction) db.exec('ROLLBACK');
    for (const fn of rollbackListeners.get(db) ?? []) fn();
    return e;
  }
}

/**
 * Commits what this turn has changed so far, before something leaves the process that the state file must know
 * of first (a signed transaction, journalled before it is sent). Outside any change; throws when it fails.
 */
export function commitNow(db: Db): void {
  const group = groups.get(db);
  if (group === undefined || !group.open) return;
  if ((depth.get(db) ?? 0) > 0) throw new Error('commitNow inside a change: it would commit half of it');
  const error = commitGroup(db, group);
  if (error === null) return;
  group.onError(error);
  throw error;
}

/** `fn` runs whenever a change of `db` is rolled back (a cache of what was read inside it forgets it). */
export function onRollback(db: Db, fn: () => void): void {
  rollbackListeners.set(db, [...(rollbackListeners.get(db) ?? []), fn]);
}

/**
 * Runs `fn` inside BEGIN IMMEDIATE / COMMIT, rolling back on any throw. A call inside another becomes a
 * savepoint of the outer transaction, so that a batch (events, their state changes and the cursor) commits as
 * one while each part keeps its own all-or-nothing rule.
 */
export function transaction<T>(db: Db, fn: () => T): T {
  const level = depth.get(db) ?? 0;
  const group = level === 0 ? groups.get(db) : undefined;
  if (group !== undefined) joinGroup(db, group);
  // The outermost change of a connection that does not group its commits is a transaction; any other a savepoint.
  const alone = level === 0 && group === undefined;
  const name = `sp${level}`;
  db.exec(alone ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${name}`);
  depth.set(db, level + 1);
  try {
    const result = fn();
    depth.set(db, level);
    db.exec(alone ? 'COMMIT' : `RELEASE ${name}`);
    return result;
  } catch (e) {
    depth.set(db, level);
    db.exec(alone ? 'ROLLBACK' : `ROLLBACK TO ${name}; RELEASE ${name}`);
    for (const fn of rollbackListeners.get(db) ?? []) fn();
    throw e;
  }
}
