import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newOrder } from '../../../src/core/order-state.ts';
import { openDatabase, schemaVersion } from '../../../src/store/database.ts';
import { MIGRATIONS } from '../../../src/store/migrations.ts';
import { openStore, type Store } from '../../../src/store/store.ts';

let dir: string;
let store: Store;
let clock = 1_000;
const now = () => clock;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dltmm-store-'));
  store = openStore(join(dir, 'state.sqlite'), now);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const order = (cid: bigint) =>
  newOrder({ clientOrderId: cid, pairId: 'pair-1', side: 'buy', quantity: 100n, price: 5000n });

describe('schema', () => {
  it('migrates a new file to the latest version once, and refuses a file from a newer program', () => {
    expect(schemaVersion(store.db)).toBe(MIGRATIONS.length);
    store.close();
    store = openStore(join(dir, 'state.sqlite'), now);
    expect(schemaVersion(store.db)).toBe(MIGRATIONS.length);
    store.db.prepare("UPDATE meta SET value = '999' WHERE key = 'schema_version'").run();
    store.close();
    expect(() => openDatabase(join(dir, 'state.sqlite'))).toThrow(/newer than this program/);
    store = openStore(join(dir, 'other.sqlite'), now);
  });
  it('uses WAL journaling', () => {
    expect(store.db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
  });
});

describe('orders', () => {
  it('persists every accepted transition with its event, and nothing for a refused one', () => {
    store.orders.create(order(1n), { wallet: 'w', chain: 'evm' });
    clock = 2_000;
    expect(store.orders.apply('w', 1n, { type: 'SubmissionSent', txHash: '0xaa' }).ok).toBe(true);
    expect(store.orders.apply('w', 1n, { type: 'Accepted', orderId: 2n ** 64n - 1n }).ok).toBe(true);
    const refused = store.orders.apply('w', 1n, { type: 'CancelSent', txHash: '0xbb' });
    expect(refused).toEqual({ ok: false, reason: 'CancelSent is impossible in status received' });
    const stored = store.orders.get('w', 1n);
    expect(stored).toMatchObject({ status: 'received', orderId: 2n ** 64n - 1n, txHash: '0xaa', updatedMs: 2_000 });
    expect(store.orders.transitions('w', 1n).map((t) => `${t.from}->${t.to}`)).toEqual([
      'intended->submitting',
      'submitting->received',
    ]);
    expect(store.orders.byVenueId('evm', 'pair-1', 2n ** 64n - 1n)?.clientOrderId).toBe(1n);
    expect(store.orders.byTxHash('0xaa')?.clientOrderId).toBe(1n);
  });

  it('records a fill with its order update atomically and refuses it twice', () => {
    store.orders.create(order(5n), { wallet: 'w', chain: 'wasm' });
    for (const e of [
      { type: 'SubmissionSent', txHash: 't' },
      { type: 'Accepted', orderId: 9n },
      { type: 'Rested', quantity: 100n },
    ] as const)
      store.orders.apply('w', 5n, e);
    const fill = {
      fillId: 'tx9:4',
      wallet: 'w',
      clientOrderId: 5n,
      pairId: 'pair-1',
      side: 'buy' as const,
      role: 'maker' as const,
      quantity: 30n,
      price: 5000n,
      baseDelta: 30n,
      quoteDelta: -150n,
      fee: 1n,
      txHash: 'tx9',
      height: 12n,
      atMs: 3_000,
    };
    const event = { type: 'Filled', fillId: 'tx9:4', quantity: 30n, price: 5000n, role: 'maker' } as const;
    expect(store.orders.apply('w', 5n, event, fill).ok).toBe(true);
    expect(store.orders.apply('w', 5n, event, fill)).toEqual({ ok: false, reason: 'duplicate fill tx9:4' });
    expect(store.orders.fills({ pairId: 'pair-1' })).toEqual([fill]);
    expect(store.orders.get('w', 5n)).toMatchObject({ status: 'partiallyFilled', filled: 30n });
    // A fill refused by the transition table leaves no fill row behind.
    const tooBig = { ...fill, fillId: 'tx10:1', quantity: 71n };
    expect(store.orders.apply('w', 5n, { ...event, fillId: 'tx10:1', quantity: 71n }, tooBig).ok).toBe(false);
    expect(store.orders.fills().map((f) => f.fillId)).toEqual(['tx9:4']);
  });

  it('lists live orders only', () => {
    store.orders.create(order(1n), { wallet: 'w', chain: 'evm' });
    store.orders.create(order(2n), { wallet: 'w', chain: 'evm' });
    store.orders.create(order(3n), { wallet: 'v', chain: 'evm' });
    store.orders.apply('w', 2n, { type: 'Refused', code: 'E_RULE_TICK', reason: 'off tick' });
    expect(store.orders.live().map((o) => o.clientOrderId)).toEqual([1n, 3n]);
    expect(store.orders.live({ wallet: 'w' }).map((o) => o.clientOrderId)).toEqual([1n]);
  });

  it('lists live orders as the file has them after every change, a rolled-back one included', () => {
    store.orders.create(order(1n), { wallet: 'w', chain: 'evm' });
    const ids = () => store.orders.live({ wallet: 'w', pairId: 'pair-1' }).map((o) => o.clientOrderId);
    expect(ids()).toEqual([1n]);
    store.orders.create(order(2n), { wallet: 'w', chain: 'evm' });
    expect(ids()).toEqual([1n, 2n]);
    store.orders.apply('w', 1n, { type: 'Refused', code: 'E_RULE_TICK', reason: 'off tick' });
    expect(ids()).toEqual([2n]);
    // Read inside a change that is then rolled back: the list read afterwards is the file's, not the change's.
    expect(() =>
      store.atomically(() => {
        store.orders.apply('w', 2n, { type: 'Refused', code: 'E_RULE_TICK', reason: 'off tick' });
        expect(ids()).toEqual([]);
        throw new Error('undone');
      }),
    ).toThrow('undone');
    expect(ids()).toEqual([2n]);
    // A list handed out is the caller's own: changing it changes nothing for the next reader.
    store.orders.live({ wallet: 'w', pairId: 'pair-1' }).pop();
    expect(ids()).toEqual([2n]);
  });
});

describe('transaction journal', () => {
  it('keeps every signed transaction until its fate is settled, with replacements at the same nonce', () => {
    store.transactions.recordSigned({
      txHash: '0x1',
      chain: 'evm',
      wallet: 'w',
      source: 'w',
      sequence: 7n,
      kind: 'place',
      clientOrderId: 1n,
      raw: '0xf8',
    });
    store.transactions.recordSigned({
      txHash: '0x2',
      chain: 'evm',
      wallet: 'w',
      source: 'w',
      sequence: 8n,
      kind: 'cancel',
      clientOrderId: 1n,
      raw: '0xf9',
    });
    store.transactions.mark('0x1', 'sent');
    expect(store.transactions.open('evm').map((t) => [t.txHash, t.status])).toEqual([
      ['0x1', 'sent'],
      ['0x2', 'signed'],
    ]);
    store.transactions.recordSigned({
      txHash: '0x1b',
      chain: 'evm',
      wallet: 'w',
      source: 'w',
      sequence: 7n,
      kind: 'replace',
      clientOrderId: 1n,
      raw: '0xfa',
    });
    store.transactions.mark('0x1', 'replaced', '0x1b');
    expect(store.transactions.atSequence('evm', 'w', 7n).map((t) => [t.txHash, t.status, t.replacedBy])).toEqual([
      ['0x1', 'replaced', '0x1b'],
      ['0x1b', 'signed', null],
    ]);
    store.transactions.mark('0x1b', 'included');
    store.transactions.mark('0x2', 'dropped');
    expect(store.transactions.open('evm')).toEqual([]);
  });
});

describe('small records', () => {
  it('keeps cursors and approvals with their expiries', () => {
    store.state.setCursor('wasm', 'G1', { chain: 'wasm', cursor: '0000000004294967296-0000000001', height: 1n });
    expect(store.state.cursor('wasm', 'G1')).toEqual({
      chain: 'wasm',
      cursor: '0000000004294967296-0000000001',
      height: '1',
    });
    expect(store.state.cursor('evm', 'G1')).toBeNull();
    store.state.setApproval({
      chain: 'wasm',
      wallet: 'G1',
      token: 'C1',
      spender: 'C2',
      amount: 10n ** 30n,
      expiresAtLedger: 5000,
      txHash: 'h',
    });
    expect(store.state.approval('wasm', 'G1', 'C1', 'C2')).toMatchObject({ amount: 10n ** 30n, expiresAtLedger: 5000 });
  });
  it('never hands out a counter value twice, across reopening, and stops at the end of its range', () => {
    expect([store.state.nextCounter('cid', 10, 12), store.state.nextCounter('cid', 10, 12)]).toEqual([10, 11]);
    store.close();
    store = openStore(join(dir, 'state.sqlite'), now);
    expect(store.state.nextCounter('cid', 10, 12)).toBe(12);
    expect(() => store.state.nextCounter('cid', 10, 12)).toThrow(/exhausted/);
  });
  it('links a decision to what the strategy saw', () => {
    const id = store.state.recordDecision({
      pairId: 'p',
      strategy: 'ladder',
      configHash: 'abc',
      params: { levels: 3 },
      market: { mid: '100.5' },
      risk: ['limits'],
    });
    store.orders.create(order(1n), { wallet: 'w', chain: 'evm', decisionId: id });
    expect(store.orders.get('w', 1n)?.decisionId).toBe(id);
    expect(store.state.decision(id)).toMatchObject({ strategy: 'ladder', market: { mid: '100.5' } });
  });
  it('records each decision as it is, however often its placements and its configuration come again', () => {
    const params = { levels: 3, sizes: [1n, 2n] };
    const decision = { pairId: 'p', strategy: 'ladder', configHash: 'abc', params, market: { mid: '1' }, risk: [] };
    const next = { ...decision, market: { mid: '2' }, risk: ['limits'] };
    const ids = [decision, decision, next].map((d) => store.state.recordDecision(d));
    // The configuration read again under another hash (never changed in place, but not trusted either).
    params.levels = 4;
    ids.push(store.state.recordDecision({ ...next, configHash: 'def' }));
    expect(ids.map((id) => store.state.decision(id))).toMatchObject([
      { params: { levels: 3, sizes: ['1', '2'] }, market: { mid: '1' }, risk: [] },
      { params: { levels: 3 }, market: { mid: '1' }, risk: [] },
      { params: { levels: 3 }, market: { mid: '2' }, risk: ['limits'] },
      { configHash: 'def', params: { levels: 4 }, market: { mid: '2' } },
    ]);
  });
});

describe('durability', () => {
  it('what was committed survives the process being killed with SIGKILL', () => {
    const file = join(dir, 'killed.sqlite');
    const storeModule = fileURLToPath(new URL('../../../src/store/store.ts', import.meta.url));
    const script = `
      import { openStore } from ${JSON.stringify(storeModule)};
      const s = openStore(${JSON.stringify(file)});
      s.transactions.recordSigned({ txHash: '0xdead', chain: 'evm', wallet: 'w', source: 'w', sequence: 1n, kind: 'place', clientOrderId: 1n, raw: '0x00' });
      process.kill(process.pid, 'SIGKILL');
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.signal).toBe('SIGKILL');
    const reopened = openStore(file);
    expect(reopened.transactions.get('0xdead')?.status).toBe('signed');
    reopened.close();
  });
});
