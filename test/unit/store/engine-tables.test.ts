import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newOrder } from '../../../src/core/order-state.ts';
import { transaction } from '../../../src/store/database.ts';
import { openStore, type Store } from '../../../src/store/store.ts';

let dir: string;
let store: Store;
let clock = 1_000;

beforeEach(() => {
  clock = 1_000;
  dir = mkdtempSync(join(tmpdir(), 'dltmm-store2-'));
  store = openStore(join(dir, 'state.sqlite'), () => clock);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const order = (cid: bigint) => newOrder({ clientOrderId: cid, pairId: 'p', side: 'sell', quantity: 10n, price: 7n });

describe('nested transactions', () => {
  it('commit an inner part with the outer one, and roll back only the inner part that threw', () => {
    transaction(store.db, () => {
      store.orders.create(order(1n), { wallet: 'w', chain: 'evm' });
      expect(() =>
        transaction(store.db, () => {
          store.orders.create(order(2n), { wallet: 'w', chain: 'evm' });
          throw new Error('inner fails');
        }),
      ).toThrow('inner fails');
      store.state.setCursor('evm', 'w', { height: '5' });
    });
    expect(store.orders.get('w', 1n)).toBeDefined();
    expect(store.orders.get('w', 2n)).toBeUndefined();
    expect(store.state.cursor('evm', 'w')).toEqual({ height: '5' });
  });

  it('roll everything back when the outer transaction throws', () => {
    expect(() =>
      transaction(store.db, () => {
        store.orders.apply('w', 9n, { type: 'SubmissionSent', txHash: 'x' });
        store.orders.create(order(3n), { wallet: 'w', chain: 'evm' });
        store.events.mark('evm', 'w', { key: 'k', txHash: 't', height: 1n });
        throw new Error('crash');
      }),
    ).toThrow('crash');
    expect(store.orders.get('w', 3n)).toBeUndefined();
    expect(store.events.has('evm', 'w', 'k')).toBe(false);
  });
});

describe('engine tables', () => {
  it('keeps an order’s lock terms and options', () => {
    store.orders.create(order(4n), {
      wallet: 'w',
      chain: 'wasm',
      lockRateBps: 15,
      prefunded: false,
      options: { type: 'limit', condition: 'standard', validity: 'gtd', lifetimeDays: 3 },
    });
    expect(store.orders.get('w', 4n)).toMatchObject({
      lockRateBps: 15,
      prefunded: false,
      options: { validity: 'gtd', lifetimeDays: 3 },
    });
    store.orders.create(order(5n), { wallet: 'w', chain: 'wasm' });
    expect(store.orders.get('w', 5n)).toMatchObject({ lockRateBps: null, prefunded: null, options: null });
  });

  it('remembers processed events per chain and wallet', () => {
    store.events.mark('evm', 'w', { key: 'tx:1', txHash: 'tx', height: 3n });
    store.events.mark('evm', 'w', { key: 'tx:1', txHash: 'tx', height: 3n });
    expect(store.events.has('evm', 'w', 'tx:1')).toBe(true);
    expect(store.events.has('wasm', 'w', 'tx:1')).toBe(false);
    expect(store.events.count('evm', 'w')).toBe(1);
  });

  it('moves inventory totals only after a baseline, by exact bigint deltas', () => {
    store.inventory.add('evm', 'w', '0xq', 5n);
    expect(store.inventory.get('evm', 'w', '0xq')).toBeUndefined();
    store.inventory.setBaseline('evm', 'w', '0xq', 10n ** 30n);
    store.inventory.add('evm', 'w', '0xq', -1n);
    expect(store.inventory.get('evm', 'w', '0xq')?.total).toBe(10n ** 30n - 1n);
  });

  it('raises one open alert per kind and pair, pauses the pair (or the wallet), and resolves', () => {
    const a = {
      chain: 'evm',
      wallet: 'w',
      pairId: 'p',
      kind: 'inventory-mismatch',
      message: 'm',
      details: { n: 1n },
      pauses: true,
    } as const;
    const first = store.alerts.raise(a);
    expect(store.alerts.raise({ ...a, message: 'again' })).toEqual({ id: first.id, created: false });
    expect(store.alerts.pausing('evm', 'w', 'p').map((x) => x.message)).toEqual(['again']);
    expect(store.alerts.pausing('evm', 'w', 'other')).toEqual([]);
    store.alerts.raise({ ...a, pairId: null, kind: 'gap' });
    expect(store.alerts.pausing('evm', 'w', 'other').map((x) => x.kind)).toEqual(['gap']);
    clock = 2_000;
    store.alerts.resolve(first.id, 'explained by later fills');
    expect(store.alerts.get(first.id)).toMatchObject({ resolvedMs: 2_000, resolution: 'explained by later fills' });
    expect(store.alerts.pausing('evm', 'w', 'p').map((x) => x.kind)).toEqual(['gap']);
  });

  it('records foreign orders once, with first and last sighting, until gone', () => {
    const f = {
      chain: 'wasm',
      wallet: 'w',
      pairId: 'p',
      orderId: 2n ** 64n - 1n,
      crossId: 0n,
      side: 'buy',
      quantity: 5n,
      price: 9n,
      source: 'events',
    } as const;
    expect(store.foreign.seen(f)).toBe(true);
    clock = 3_000;
    expect(store.foreign.seen({ ...f, quantity: null })).toBe(false);
    expect(store.foreign.open('wasm', 'w')).toMatchObject([
      { orderId: 2n ** 64n - 1n, quantity: 5n, firstSeenMs: 1_000, lastSeenMs: 3_000 },
    ]);
    store.foreign.gone('wasm', 'w', 'p', f.orderId);
    expect(store.foreign.open('wasm', 'w')).toEqual([]);
  });

  it('raises a counter past a number found on the venue, never lowering it', () => {
    expect(store.state.nextCounter('c', 1, 100)).toBe(1);
    store.state.raiseCounter('c', 40);
    expect(store.state.nextCounter('c', 1, 100)).toBe(41);
    store.state.raiseCounter('c', 10);
    expect(store.state.nextCounter('c', 1, 100)).toBe(42);
  });
});
