/**
 * The writing process keeps the answers of the fill reads every round makes (new fills after a sequence number,
 * the count of fills reorganisations withdrew) until the fills change: a recorded fill, a deleted one, or a
 * transaction rolled back. Each change here is alone, so a read that missed it would answer what it kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newOrder } from '../../../src/core/order-state.ts';
import { openStore, type Store } from '../../../src/store/store.ts';

const WALLET = '0xmaker';
const PAIR = 'p1';

let dir: string;
let store: Store;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dltmm-fill-reads-'));
  store = openStore(join(dir, 'state.sqlite'), () => 1_000);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A resting buy of ours, then a maker fill of `quantity` of it. */
function filled(cid: bigint, quantity: bigint, pairId = PAIR): void {
  store.orders.create(newOrder({ clientOrderId: cid, pairId, side: 'buy', quantity: 10n, price: 99n }), {
    wallet: WALLET,
    chain: 'evm',
  });
  for (const e of [
    { type: 'SubmissionSent', txHash: `0x${cid}` },
    { type: 'Accepted', orderId: cid },
    { type: 'Rested', quantity: 10n },
  ] as const)
    expect(store.orders.apply(WALLET, cid, e).ok).toBe(true);
  const fillId = `f${cid}`;
  const fill = {
    fillId,
    wallet: WALLET,
    clientOrderId: cid,
    pairId,
    side: 'buy' as const,
    role: 'maker' as const,
  };
  const amounts = { quantity, price: 99n, baseDelta: quantity, quoteDelta: -99n * quantity, fee: 0n };
  const event = { type: 'Filled', fillId, quantity, price: 99n, role: 'maker' } as const;
  const at = { txHash: `0xt${cid}`, height: 1n, atMs: 1_000 };
  expect(store.orders.apply(WALLET, cid, event, { ...fill, ...amounts, ...at }).ok).toBe(true);
}

const after = (seq: number) => store.evaluation.fillsAfter(PAIR, WALLET, seq).map((f) => f.fill.fillId);

describe('the fill reads of every round', () => {
  it('read a fill recorded after a read that found none', () => {
    filled(1n, 4n);
    const seq = store.evaluation.fillsAfter(PAIR, WALLET, 0).at(-1)!.seq;
    expect(after(seq)).toEqual([]);
    expect(after(seq)).toEqual([]);
    filled(2n, 3n);
    expect(after(seq)).toEqual(['f2']);
  });

  it("read a pair's new fill after another pair's fills, which leave its answer as it was", () => {
    filled(1n, 4n);
    const seq = store.evaluation.fillsAfter(PAIR, WALLET, 0).at(-1)!.seq;
    expect(after(seq)).toEqual([]);
    filled(2n, 3n, 'p2');
    expect(after(seq)).toEqual([]);
    expect(store.evaluation.fillsAfter('p2', WALLET, 0).map((f) => f.fill.fillId)).toEqual(['f2']);
    filled(3n, 2n);
    expect(after(seq)).toEqual(['f3']);
  });

  it('count a fill a reorganisation withdrew, and one whose withdrawal was rolled back no more', () => {
    filled(1n, 4n);
    expect(store.evaluation.droppedFills()).toBe(0);
    store.orders.deleteFill('f1');
    expect(store.evaluation.droppedFills()).toBe(1);
    expect(after(0)).toEqual([]);
    filled(2n, 3n);
    expect(() =>
      store.atomically(() => {
        store.orders.deleteFill('f2');
        expect(store.evaluation.droppedFills()).toBe(2);
        expect(after(0)).toEqual([]);
        throw new Error('the batch failed');
      }),
    ).toThrow('the batch failed');
    expect(store.evaluation.droppedFills()).toBe(1);
    expect(after(0)).toEqual(['f2']);
  });
});
