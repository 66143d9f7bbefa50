/** One SQLite file in WAL mode, migrated on open. Every multi-row change runs in one transaction. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
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
      cache.set(sql, statement);
    }
    return statement;
  };
  return db;
}

export function openDatabase(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = cachingStatements(new DatabaseSync(path));
  db.exec(
    'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;',
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
  const name = `sp${level}`;
  db.exec(level === 0 ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${name}`);
  depth.set(db, level + 1);
  try {
    const result = fn();
    depth.set(db, level);
    db.exec(level === 0 ? 'COMMIT' : `RELEASE ${name}`);
    return result;
  } catch (e) {
    depth.set(db, level);
    db.exec(level === 0 ? 'ROLLBACK' : `ROLLBACK TO ${name}; RELEASE ${name}`);
    for (const fn of rollbackListeners.get(db) ?? []) fn();
    throw e;
  }
}
