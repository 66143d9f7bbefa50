/**
 * Commits grouped by turn of the event loop: what a turn changes commits together when it ends, each change
 * still all-or-nothing; what must be known before it leaves the process commits at once; a group that cannot
 * commit is rolled back and reported. A second connection to the same file sees only what is committed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import {
  commitNow,
  groupCommits,
  onRollback,
  openDatabase,
  transaction,
  type Db,
} from '../../../src/store/database.ts';

const dirs: string[] = [];
const open: DatabaseSync[] = [];
afterEach(() => {
  for (const db of open.splice(0)) if (db.isOpen) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const turnEnds = () => new Promise<void>((resolve) => setImmediate(resolve));

function grouped(): { db: Db; other: DatabaseSync; errors: unknown[]; rows: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'dltmm-group-'));
  dirs.push(dir);
  const db = openDatabase(join(dir, 'state.sqlite'));
  db.exec(
    'CREATE TABLE t (v TEXT PRIMARY KEY); CREATE TABLE parent (id INTEGER PRIMARY KEY); ' +
      'CREATE TABLE child (p INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)',
  );
  const errors: unknown[] = [];
  groupCommits(db, (e) => errors.push(e));
  const other = new DatabaseSync(join(dir, 'state.sqlite'), { readOnly: true });
  open.push(db, other);
  const rows = () =>
    other
      .prepare('SELECT v FROM t ORDER BY v')
      .all()
      .map((r) => String(r.v));
  return { db, other, errors, rows };
}

const insert = (db: Db, v: string) => db.prepare('INSERT INTO t (v) VALUES (?)').run(v);

describe('commits grouped by turn', () => {
  it("commits a turn's changes and single writes together when the turn ends, a failed change left out", async () => {
    const { db, rows } = grouped();
    transaction(db, () => insert(db, 'a'));
    insert(db, 'b');
    expect(() =>
      transaction(db, () => {
        insert(db, 'c');
        throw new Error('this change fails');
      }),
    ).toThrow(/fails/);
    transaction(db, () => insert(db, 'd'));
    expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()?.n).toBe(3); // the connection reads its own changes
    expect(rows()).toEqual([]);
    await turnEnds();
    expect(rows()).toEqual(['a', 'b', 'd']);
  });

  it('commits at once on demand (a signed transaction before it leaves), never in the middle of a change', () => {
    const { db, rows } = grouped();
    insert(db, 'a');
    commitNow(db);
    expect(rows()).toEqual(['a']);
    expect(() => transaction(db, () => commitNow(db))).toThrow(/inside a change/);
  });

  it('rolls a group back whole when it cannot commit, runs the rollback listeners and reports it', async () => {
    const { db, errors, rows } = grouped();
    let rolledBack = 0;
    onRollback(db, () => (rolledBack += 1));
    insert(db, 'a');
    db.prepare('INSERT INTO child (p) VALUES (?)').run(42); // no such parent: COMMIT fails
    await turnEnds();
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/FOREIGN KEY/i);
    expect(rolledBack).toBe(1);
    expect(rows()).toEqual([]);
    insert(db, 'b'); // the next turn groups afresh
    await turnEnds();
    expect(rows()).toEqual(['b']);
  });

  it('leaves a connection that does not group its commits committing each change', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dltmm-group-'));
    dirs.push(dir);
    const db = openDatabase(join(dir, 'state.sqlite'));
    db.exec('CREATE TABLE t (v TEXT PRIMARY KEY)');
    const other = new DatabaseSync(join(dir, 'state.sqlite'), { readOnly: true });
    open.push(db, other);
    transaction(db, () => insert(db, 'a'));
    insert(db, 'b');
    expect(other.prepare('SELECT COUNT(*) AS n FROM t').get()?.n).toBe(2);
  });
});
