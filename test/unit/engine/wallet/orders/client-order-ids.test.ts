import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientOrderIds, DEFAULT_CROSS_ID_TAG } from '../../../../../src/engine/wallet/orders/client-order-ids.ts';
import { openStore, type Store } from '../../../../../src/store/store.ts';

const WALLET = '0x1111111111111111111111111111111111111111';
const TAG = BigInt(DEFAULT_CROSS_ID_TAG) << 24n;

let store: Store;
beforeEach(() => {
  store = openStore(':memory:', () => 1_000);
});
afterEach(() => store.close());

describe('client order ids as cross identifiers', () => {
  it('never takes an empty cross identifier (read as 0) or a bare tag for one of ours', () => {
    const ids = new ClientOrderIds(store.state, WALLET);
    expect([0n, TAG, 1n, (TAG + 1n) ^ (1n << 31n)].map((id) => ids.isOurs(id))).toEqual([false, false, false, false]);
    expect(ids.isOurs(TAG + 1n)).toBe(true);
  });
  it('starts a fresh state file above its own ids on chain, whatever the empty ones of the wallet', () => {
    const ids = new ClientOrderIds(store.state, WALLET);
    expect(ids.fresh).toBe(true);
    expect(ids.startAbove([0n, 0n, TAG + 4n, 0n])).toBe(TAG + 4n);
    expect(ids.next()).toBe(TAG + 5n);
    ids.adopt(0n);
    expect(ids.next()).toBe(TAG + 6n);
  });
  it('a wallet whose chain history holds only empty cross identifiers starts at 1', () => {
    const ids = new ClientOrderIds(store.state, WALLET);
    expect(ids.startAbove([0n, 0n])).toBe(0n);
    expect(ids.fresh).toBe(false);
    expect(ids.next()).toBe(TAG + 1n);
  });
});
