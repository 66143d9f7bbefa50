/**
 * The reads a running bot makes at every round, order, transaction and chain batch find their rows through an
 * index: none scans a table that grows all day (orders, fills, transactions, chain applications, events,
 * quote spans), so their cost does not depend on how long the bot has run. Each read is made once through the
 * store with its SQL and arguments caught, then planned by SQLite with those same arguments.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newOrder } from '../../../src/core/order-state.ts';
import { openStore, type Store } from '../../../src/store/store.ts';

const GROWING = [
  'orders',
  'fills',
  'transactions',
  'chain_applications',
  'processed_events',
  'quote_spans',
  'order_transitions',
  'decisions',
];

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Every statement the store runs inside `fn`, with its arguments. */
function caught(store: Store, fn: () => void): Array<{ sql: string; args: unknown[] }> {
  const seen: Array<{ sql: string; args: unknown[] }> = [];
  const db = store.db;
  const prepare = db.prepare;
  db.prepare = (sql: string) => {
    const statement = prepare.call(db, sql);
    const watch =
      (run: (...a: never[]) => unknown) =>
      (...args: never[]) => {
        seen.push({ sql, args });
        return run.apply(statement, args);
      };
    return Object.assign(Object.create(statement) as typeof statement, {
      all: watch(statement.all),
      get: watch(statement.get),
      run: watch(statement.run),
    });
  };
  try {
    fn();
  } finally {
    db.prepare = prepare;
  }
  return seen;
}

describe('reads of a running bot', () => {
  it('find their rows through an index, never by scanning a table that grows all day', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dltmm-reads-'));
    dirs.push(dir);
    const store = openStore(join(dir, 'state.sqlite'), () => 1_000);
    const reads = caught(store, () => {
      store.orders.live({ wallet: 'w', pairId: 'p' });
      store.orders.get('w', 1n);
      store.orders.byVenueId('evm', 'p', 7n);
      store.orders.byTxHash('0xabc');
      store.orders.fillsOf('w', 1n);
      store.orders.sourcedBy('w', '0xabc', '0xblock');
      store.orders.standing('w', 1n);
      store.transactions.forOrder('w', 1n);
      store.transactions.atSequence('wasm', 'G', 3n);
      store.transactions.get('0xabc');
      store.transactions.open('evm', '0xsource');
      store.applications.ofTx('evm', 'w', '0xabc');
      store.applications.unconfirmed('evm', 'w');
      store.events.has('evm', 'w', 'k');
      store.events.highestSince('evm', 'w', 10);
      store.obligations.open('p');
      store.obligations.spans('p', 0, 1_000);
      store.evaluation.fillsAfter('p', 'w', 10);
      store.pendingFills.open('evm', 'w', 'p', 'buy');
    });
    expect(reads.length).toBeGreaterThanOrEqual(19);
    const scans = reads.flatMap(({ sql, args }) =>
      (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(args as never[])) as Array<{ detail: string }>)
        .map((r) => r.detail)
        .filter((d) => GROWING.some((t) => d === `SCAN ${t}` || d.startsWith(`SCAN ${t} `)))
        .filter((d) => !d.includes('orders_live'))
        .map((d) => `${d}: ${sql.replace(/\s+/g, ' ')}`),
    );
    expect(scans).toEqual([]);
    store.close();
  });
});

/** A new order of `wallet` on `pair`, recorded as intended. */
function place(store: Store, wallet: string, pair: string, cid: bigint): void {
  store.orders.create(newOrder({ clientOrderId: cid, pairId: pair, side: 'buy', quantity: 5n, price: 100n }), {
    wallet,
    chain: 'evm',
  });
}

const ids = (store: Store, filter: { wallet?: string; pairId?: string }) =>
  store.orders.live(filter).map((o) => o.clientOrderId);

describe('the live orders a running bot reads every round', () => {
  it('are read from the table once, then kept in memory through every change, and every list stays right', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dltmm-reads-'));
    dirs.push(dir);
    const store = openStore(join(dir, 'state.sqlite'), () => 1_000);
    place(store, 'w', 'a', 1n);
    place(store, 'w', 'b', 2n);
    place(store, 'v', 'a', 3n);
    const lists = () => ({
      wa: ids(store, { wallet: 'w', pairId: 'a' }),
      wb: ids(store, { wallet: 'w', pairId: 'b' }),
      w: ids(store, { wallet: 'w' }),
      va: ids(store, { wallet: 'v', pairId: 'a' }),
      all: ids(store, {}),
    });
    const first = caught(store, () => {
      expect(lists()).toEqual({ wa: [1n], wb: [2n], w: [1n, 2n], va: [3n], all: [1n, 2n, 3n] });
    });
    expect(first.filter((r) => r.sql.includes('status NOT IN')).length).toBe(1);
    // An order of w on b leaves the book, another arrives: nothing is read back, every list follows.
    const reads = caught(store, () => {
      expect(store.orders.apply('w', 2n, { type: 'Refused', code: 'E_CHAIN_TX_REFUSED', reason: 'test' }).ok).toBe(
        true,
      );
      place(store, 'v', 'b', 4n);
      expect(store.orders.apply('v', 4n, { type: 'SubmissionSent', txHash: '0x4' }).ok).toBe(true);
      expect(lists()).toEqual({ wa: [1n], wb: [], w: [1n], va: [3n], all: [1n, 3n, 4n] });
      expect(store.orders.get('v', 4n)?.txHash).toBe('0x4');
    });
    expect(reads.filter((r) => r.sql.startsWith('SELECT')).map((r) => r.sql.replace(/\s+/g, ' '))).toEqual([
      'SELECT * FROM orders WHERE wallet = ? AND client_order_id = ?',
    ]);
    store.close();
  });
});

describe('reads of what is new or still open', () => {
  it('go by position or by the open rows, never through all a wallet applied that day', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dltmm-reads-'));
    dirs.push(dir);
    const store = openStore(join(dir, 'state.sqlite'), () => 1_000);
    const reads = caught(store, () => {
      store.events.highestSince('evm', 'w', 10);
      store.applications.unconfirmed('evm', 'w');
      store.events.lastPosition('evm', 'w');
    });
    const plans = reads.map(({ sql, args }) =>
      (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(args as never[])) as Array<{ detail: string }>)
        .map((r) => r.detail)
        .join('; '),
    );
    expect(plans).toEqual([
      'SEARCH processed_events USING INTEGER PRIMARY KEY (rowid>?)',
      'SEARCH chain_applications USING INDEX chain_applications_open (chain=? AND wallet=?); USE TEMP B-TREE FOR ORDER BY',
      'SEARCH processed_events USING COVERING INDEX processed_events_position (chain=? AND wallet=?)',
    ]);
    store.close();
  });
});
