/**
 * What the store keeps so that a reorganisation can be undone: the chain transaction and block of every
 * change derived from one, transitions that can be withdrawn and replayed, event keys by block, and the list
 * of chain A applications waiting for confirmation; plus the upgrade of a file from the previous schema.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyOrderEvent, newOrder, type OrderEvent, type OrderRecord } from '../../../src/core/order-state.ts';
import { migrate, schemaVersion } from '../../../src/store/database.ts';
import { MIGRATIONS } from '../../../src/store/migrations.ts';
import { decodeOrderEvent } from '../../../src/store/order-store.ts';
import { toJson } from '../../../src/store/json.ts';
import { openStore, type Store } from '../../../src/store/store.ts';

let dir: string;
let store: Store;
let clock = 1_000;

beforeEach(() => {
  clock = 1_000;
  dir = mkdtempSync(join(tmpdir(), 'dltmm-store3-'));
  store = openStore(join(dir, 'state.sqlite'), () => clock);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const terms = { clientOrderId: 1n, pairId: 'p', side: 'sell', quantity: 10n, price: 7n } as const;
const fill = (fillId: string, quantity: bigint) =>
  ({
    fillId,
    wallet: 'w',
    clientOrderId: 1n,
    pairId: 'p',
    side: 'sell',
    role: 'maker',
    quantity,
    price: 7n,
    baseDelta: -quantity,
    quoteDelta: quantity * 7n,
    fee: 0n,
    txHash: fillId.split(':')[0] as string,
    height: 5n,
    atMs: 0,
  }) as const;

describe('order events read back from their records', () => {
  it('decode to the events that were applied, bigints included', () => {
    const events: OrderEvent[] = [
      { type: 'SubmissionSent', txHash: '0xa' },
      { type: 'Accepted', orderId: 2n ** 64n - 1n },
      { type: 'Rested', quantity: 10n },
      { type: 'Filled', fillId: '0xb:1', quantity: 3n, price: 7n, role: 'maker' },
      { type: 'RemainderRejected', reason: 4, quantity: 7n },
      { type: 'Cancelled', by: 'ByAdmin', quantity: 7n },
      { type: 'CancelFailed', code: 'E_VENUE_ORDER_NOT_FOUND', reason: 'gone' },
    ];
    expect(events.map((e) => decodeOrderEvent(toJson(e)))).toEqual(events);
  });
});

describe('changes derived from a chain transaction', () => {
  it('are recorded with it, withdrawn by it, and the order derived again from what stands matches a replay through the table', () => {
    const a = { txHash: '0xa', blockHash: '0xba', height: 4n };
    const b = { txHash: '0xb', blockHash: '0xbb', height: 5n };
    store.orders.create(newOrder(terms), { wallet: 'w', chain: 'evm' });
    store.orders.apply('w', 1n, { type: 'SubmissionSent', txHash: '0xa' });
    store.orders.apply('w', 1n, { type: 'Accepted', orderId: 9n }, undefined, a);
    store.orders.apply('w', 1n, { type: 'Rested', quantity: 10n }, undefined, a);
    store.orders.apply(
      'w',
      1n,
      { type: 'Filled', fillId: '0xb:1', quantity: 3n, price: 7n, role: 'maker' },
      fill('0xb:1', 3n),
      b,
    );
    expect(store.orders.sourcedBy('w', '0xb', '0xbb')).toEqual([1n]);
    expect(store.orders.sourcedBy('w', '0xb', '0xother')).toEqual([]);
    expect(store.orders.fillsFrom('w', '0xb', '0xbb').map((f) => f.fillId)).toEqual(['0xb:1']);

    store.orders.withdrawSource('w', '0xb', '0xbb');
    const standing = store.orders.standing('w', 1n);
    expect(standing.map((t) => t.event.type)).toEqual(['SubmissionSent', 'Accepted', 'Rested']);
    let record: OrderRecord = newOrder(terms);
    for (const t of standing) {
      const r = applyOrderEvent(record, t.event);
      if (!r.ok) throw new Error(r.reason);
      record = r.order;
    }
    clock = 2_000;
    store.orders.rederive('w', 1n, record, { type: 'Withdrawn', txHash: '0xb' });
    expect(store.orders.get('w', 1n)).toMatchObject({
      status: 'resting',
      orderId: 9n,
      filled: 0n,
      fillIds: [],
      updatedMs: 2_000,
    });
    const history = store.orders.transitions('w', 1n);
    expect(history.map((t) => [t.kind, t.from, t.to, t.withdrawnMs])).toEqual([
      ['event', 'intended', 'submitting', null],
      ['event', 'submitting', 'received', null],
      ['event', 'received', 'resting', null],
      ['event', 'resting', 'partiallyFilled', 1_000],
      ['rollback', 'partiallyFilled', 'resting', null],
    ]);
    // The rollback entry itself is never replayed.
    expect(store.orders.standing('w', 1n).map((t) => t.event.type)).toEqual(['SubmissionSent', 'Accepted', 'Rested']);
    store.orders.deleteFill('0xb:1');
    expect(store.orders.fill('0xb:1')).toBeUndefined();
  });
});

describe('event keys by block', () => {
  it('tell which transaction and block they came from, and are forgotten for one block only', () => {
    store.events.mark('evm', 'w', { key: '0xa:0', txHash: '0xa', height: 4n, blockHash: '0xb1' });
    store.events.mark('evm', 'w', { key: '0xa:1', txHash: '0xa', height: 4n, blockHash: '0xb1' });
    store.events.mark('evm', 'w', { key: '0xc:0', txHash: '0xc', height: 5n, blockHash: '0xb2' });
    store.events.mark('wasm', 'w', { key: 'ledger-1', txHash: 'd', height: 5n });
    expect(store.events.countFrom('evm', 'w', '0xa', '0xb1')).toBe(2);
    expect(store.events.sourcesOf('evm', 'w', ['0xa:0', '0xa:1', '0xc:0', 'unknown'])).toEqual([
      { txHash: '0xa', blockHash: '0xb1' },
      { txHash: '0xc', blockHash: '0xb2' },
    ]);
    expect(store.events.sourcesOf('wasm', 'w', ['ledger-1'])).toEqual([]);
    expect(store.events.unmarkFrom('evm', 'w', '0xa', '0xother')).toBe(0);
    expect(store.events.unmarkFrom('evm', 'w', '0xa', '0xb1')).toBe(2);
    expect(store.events.has('evm', 'w', '0xa:0')).toBe(false);
    expect(store.events.has('evm', 'w', '0xc:0')).toBe(true);
  });
});

const at = (txHash: string, blockHash: string, height: bigint) =>
  ({ chain: 'evm', wallet: 'w', txHash, blockHash, height }) as const;

describe('chain A applications', () => {
  it('are never downgraded from confirmed, keep the order they are for, and are pruned far below the cursor', () => {
    store.applications.record({ ...at('0xa', '0xb1', 4n), clientOrderId: null, kind: 'events', confirmed: true });
    store.applications.record({ ...at('0xa', '0xb1', 4n), clientOrderId: 1n, kind: 'place', confirmed: false });
    expect(store.applications.get(at('0xa', '0xb1', 4n))).toMatchObject({
      clientOrderId: 1n,
      kind: 'place',
      confirmed: true,
    });
    store.applications.record({ ...at('0xc', '0xb2', 5n), clientOrderId: 2n, kind: 'cancel', confirmed: false });
    store.applications.record({ ...at('0xc', '0xb3', 6n), clientOrderId: null, kind: 'events', confirmed: true });
    expect(store.applications.unconfirmed('evm', 'w').map((a) => a.txHash)).toEqual(['0xc']);
    expect(store.applications.ofTx('evm', 'w', '0xc').map((a) => a.blockHash)).toEqual(['0xb2', '0xb3']);
    expect(store.applications.unconfirmFrom('evm', 'w', 5n)).toBe(1);
    expect(store.applications.unconfirmed('evm', 'w').map((a) => `${a.txHash}@${a.blockHash}`)).toEqual([
      '0xc@0xb2',
      '0xc@0xb3',
    ]);
    store.applications.confirm(at('0xc', '0xb2', 5n));
    store.applications.remove(at('0xc', '0xb3', 6n));
    store.applications.prune('evm', 'w', 5n);
    expect(store.db.prepare('SELECT tx_hash, block_hash, confirmed FROM chain_applications').all()).toEqual([
      { tx_hash: '0xc', block_hash: '0xb2', confirmed: 1 },
    ]);
  });
});

describe('upgrading a state file of the previous schema', () => {
  it('keeps its orders, transitions and event keys, with no source and no block', () => {
    const path = join(dir, 'old.sqlite');
    const db = new DatabaseSync(path);
    migrate(db, MIGRATIONS.slice(0, 2));
    db.prepare(
      `INSERT INTO orders (wallet, client_order_id, chain, pair_id, side, quantity, price, status, filled, fill_ids_json, unexplained, created_ms, updated_ms)
       VALUES ('w', '1', 'evm', 'p', 'sell', '10', '7', 'submitting', '0', '[]', '0', 0, 0)`,
    ).run();
    db.prepare(
      "INSERT INTO order_transitions (wallet, client_order_id, at_ms, from_status, to_status, event_json) VALUES ('w', '1', 0, 'intended', 'submitting', ?)",
    ).run(toJson({ type: 'SubmissionSent', txHash: '0xa' }));
    db.prepare(
      "INSERT INTO processed_events (chain, wallet, event_key, tx_hash, height, at_ms) VALUES ('evm', 'w', '0xa:0', '0xa', '4', 0)",
    ).run();
    db.close();
    const upgraded = openStore(path, () => clock);
    try {
      expect(schemaVersion(upgraded.db)).toBe(MIGRATIONS.length);
      expect(upgraded.orders.standing('w', 1n).map((t) => t.event)).toEqual([
        { type: 'SubmissionSent', txHash: '0xa' },
      ]);
      expect(upgraded.orders.transitions('w', 1n)).toMatchObject([{ kind: 'event', withdrawnMs: null }]);
      expect(upgraded.events.has('evm', 'w', '0xa:0')).toBe(true);
      expect(upgraded.events.sourcesOf('evm', 'w', ['0xa:0'])).toEqual([]);
      expect(upgraded.applications.unconfirmed('evm', 'w')).toEqual([]);
    } finally {
      upgraded.close();
    }
  });
});
