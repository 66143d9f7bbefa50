import { describe, expect, it } from 'vitest';
import {
  orderCounts,
  placementsOf,
  placementUses,
  presence,
  responses,
  secondCancels,
  unusedApprovals,
  type CancelAttempt,
} from './analysis.ts';
import type { ChainTx, Draw, OrderTruth } from './model.ts';

const approval = (hash: string, height: number, index = 0, token = '0xT', chain: 'evm' | 'wasm' = 'evm'): ChainTx => ({
  chain,
  hash,
  height,
  index,
  call: 'approve',
  fn: 'approve',
  pairId: null,
  orderId: null,
  approval: { token, spender: '0xBOOK' },
  success: true,
  code: null,
  name: null,
});
const draw = (height: number, index = 1, token = '0xT'): Draw => ({
  chain: 'evm',
  token,
  spender: '0xbook',
  height,
  index,
});

describe('unusedApprovals', () => {
  it('an approval is unused when the next approval of the same token and spender, or the end, comes before any draw', () => {
    const txs = [approval('a1', 10), approval('a2', 12), approval('a3', 20)];
    // a1 is drawn on (block 11), a2 is replaced at 20 with nothing drawn, a3 is drawn on after it in its own block.
    const unused = unusedApprovals(txs, [draw(11), draw(20, 5)]);
    expect(unused.map((t) => t.hash)).toEqual(['a2']);
  });

  it('orders by position inside a block and keeps tokens, spenders and chains apart', () => {
    // The draw in block 10 comes before the approval (index 3): it cannot use it.
    expect(unusedApprovals([approval('a1', 10, 3)], [draw(10, 1)]).map((t) => t.hash)).toEqual(['a1']);
    expect(unusedApprovals([approval('a1', 10, 3)], [draw(11, 0, '0xOTHER')]).map((t) => t.hash)).toEqual(['a1']);
    expect(unusedApprovals([approval('a1', 10, 0, '0xT', 'wasm')], [draw(11)]).map((t) => t.hash)).toEqual(['a1']);
    expect(unusedApprovals([approval('a1', 10, 0)], [draw(10, 1)])).toEqual([]);
  });

  it('a placement on the book that needs the token is a use too', () => {
    const place: ChainTx = { ...approval('p1', 11), call: 'place', fn: 'new_buy_order', pairId: 'p', approval: null };
    const uses = placementUses(
      [place, { ...place, hash: 'p2', fn: 'new_sell_order' }, { ...place, hash: 'p3', success: false }],
      new Map([['p', { orderBook: '0xbook', base: '0xB', quote: '0xT' }]]),
    );
    expect(uses).toEqual([
      { chain: 'evm', token: '0xT', spender: '0xbook', height: 11, index: 0 },
      { chain: 'evm', token: '0xB', spender: '0xbook', height: 11, index: 0 },
    ]);
    expect(unusedApprovals([approval('a1', 10), approval('a2', 12)], uses).map((t) => t.hash)).toEqual(['a2']);
  });

  it('ignores failed approvals', () => {
    expect(unusedApprovals([{ ...approval('a1', 10), success: false }], [])).toEqual([]);
  });
});

const attempt = (o: Partial<CancelAttempt>): CancelAttempt => ({
  chain: 'evm',
  pairId: 'p',
  orderId: '7',
  txHash: null,
  atMs: 0,
  at: null,
  ...o,
});

describe('secondCancels', () => {
  it('counts attempts after an earlier cancel of the same order reached the chain', () => {
    const out = secondCancels([
      attempt({ txHash: 'c1', atMs: 100, at: { height: 5, index: 0 } }),
      attempt({ txHash: 'c2', atMs: 200, at: { height: 6, index: 0 } }),
      attempt({ atMs: 300 }),
      // Another order, and an attempt refused before any cancel reached the chain.
      attempt({ orderId: '8', atMs: 50 }),
      attempt({ orderId: '8', txHash: 'c3', atMs: 60, at: { height: 5, index: 1 } }),
    ]);
    expect(out.map((s) => [s.orderId, s.txHash, s.reachedChain, s.first])).toEqual([
      ['7', 'c2', true, 'c1'],
      ['7', null, false, 'c1'],
    ]);
  });

  it('an order cancelled once is not counted', () => {
    expect(secondCancels([attempt({ txHash: 'c1', atMs: 100, at: { height: 5, index: 0 } })])).toEqual([]);
  });
});

const order = (o: Partial<OrderTruth>): OrderTruth => ({
  chain: 'evm',
  pairId: 'p',
  orderId: '1',
  crossId: '3506438145',
  side: 'buy',
  quantity: 100n,
  receivedHeight: 1,
  restedHeight: 1,
  filled: 0n,
  fills: [],
  closedHeight: null,
  closedBy: null,
  rejectReason: null,
  tradedOnArrival: 0n,
  ...o,
});

describe('presence', () => {
  it('is the time-weighted union of resting intervals, clipped to the window', () => {
    const published = {
      evm: new Map([
        [1, 0],
        [2, 100],
        [3, 200],
        [4, 300],
        [5, 400],
      ]),
      wasm: new Map<number, number>(),
    };
    const orders = [
      order({ orderId: '1', restedHeight: 1, closedHeight: 3, closedBy: 'cancelled by us' }),
      order({ orderId: '2', restedHeight: 2, closedHeight: 4, closedBy: 'filled' }),
      order({ orderId: '3', side: 'sell', restedHeight: 4, closedHeight: null }),
    ];
    const out = presence(orders, [{ chain: 'evm', pairId: 'p' }], published, 100, 500);
    // Buys rest from 0 to 300 (two overlapping orders): 200 of the window's 400. The sell from 300 to the end.
    expect(out).toEqual([
      { chain: 'evm', pairId: 'p', side: 'buy', share: 0.5 },
      { chain: 'evm', pairId: 'p', side: 'sell', share: 0.5 },
    ]);
  });
});

describe('responses', () => {
  it('groups placements by the latest change published before the decision; next block only when all of them were', () => {
    const published = {
      evm: new Map([
        [10, 1_000],
        [11, 3_000],
        [12, 5_000],
        [13, 7_000],
      ]),
      wasm: new Map<number, number>(),
    };
    const changes = new Map([['p', [10, 12]]]);
    const out = responses(
      [
        { chain: 'evm', pairId: 'p', decidedMs: 1_500, height: 11 },
        { chain: 'evm', pairId: 'p', decidedMs: 1_600, height: 11 },
        { chain: 'evm', pairId: 'p', decidedMs: 5_500, height: 13 },
        { chain: 'evm', pairId: 'p', decidedMs: 5_600, height: 15 },
        // Decided before any change: an opening quote, left out.
        { chain: 'evm', pairId: 'p', decidedMs: 500, height: 10 },
      ],
      changes,
      published,
      [],
    );
    expect(out).toEqual([
      { chain: 'evm', answered: 2, inNext: 1, late: [2] },
      { chain: 'wasm', answered: 0, inNext: 0, late: [] },
    ]);
  });

  it('takes each placement on the chain with the time the bot decided it, by chain and cross identifier', () => {
    const decided = new Map([
      ['evm|7', { createdMs: 1_500 }],
      ['wasm|8', { createdMs: 2_500 }],
    ]);
    expect(
      placementsOf(
        [
          order({ crossId: '7', receivedHeight: 11 }),
          order({ chain: 'wasm', pairId: 'q', crossId: '8', receivedHeight: 4 }),
          // The same cross identifier on the other chain, and an order the bot has no record of.
          order({ chain: 'wasm', crossId: '7' }),
          order({ crossId: '9' }),
        ],
        decided,
      ),
    ).toEqual([
      { chain: 'evm', pairId: 'p', decidedMs: 1_500, height: 11 },
      { chain: 'wasm', pairId: 'q', decidedMs: 2_500, height: 4 },
    ]);
  });

  it('leaves out decisions taken inside excluded windows', () => {
    const published = { evm: new Map([[10, 1_000]]), wasm: new Map<number, number>() };
    const out = responses(
      [{ chain: 'evm', pairId: 'p', decidedMs: 1_500, height: 14 }],
      new Map([['p', [10]]]),
      published,
      [[1_000, 2_000]],
    );
    expect(out[0]).toEqual({ chain: 'evm', answered: 0, inNext: 0, late: [] });
  });
});

describe('orderCounts', () => {
  it('counts what the chain says happened to each order', () => {
    expect(
      orderCounts([
        order({ orderId: '1', closedBy: 'cancelled by us', closedHeight: 3 }),
        order({ orderId: '2', filled: 100n, closedBy: 'filled', closedHeight: 3 }),
        order({ orderId: '3', filled: 40n, closedBy: 'cancelled by the contract', closedHeight: 4 }),
        order({ orderId: '4', restedHeight: null, closedBy: 'rejected', closedHeight: 1 }),
        order({ orderId: '5', restedHeight: null, filled: 100n, tradedOnArrival: 100n, closedHeight: 2 }),
      ]),
    ).toEqual({
      placed: 5,
      rested: 3,
      cancelledByUs: 1,
      filledInFull: 2,
      filledInPart: 1,
      rejectedAtMatching: 1,
      cancelledByContract: 1,
      tradedOnArrival: 1,
    });
  });
});
