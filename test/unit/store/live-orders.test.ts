/**
 * The live orders the writing process keeps in memory agree with the table at every step: after any sequence of
 * new orders, events (accepted or refused), derivations again and rolled-back changes, every list, every order
 * and every venue id reads as a store without the index reads them from SQLite.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { newOrder, type OrderEvent, type OrderStatus } from '../../../src/core/order-state.ts';
import { transaction } from '../../../src/store/database.ts';
import { OrderStore } from '../../../src/store/order-store.ts';
import { openStore, type Store } from '../../../src/store/store.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const WALLETS = ['w', 'v'] as const;
const PAIRS = ['a', 'b'] as const;
const FILTERS = [{}, { wallet: 'w' }, { pairId: 'a' }, { wallet: 'v', pairId: 'b' }, { wallet: 'w', pairId: 'a' }];

type Step =
  | { kind: 'create'; wallet: number; pair: number; side: 'buy' | 'sell' }
  | { kind: 'event'; order: number; event: OrderEvent }
  | { kind: 'rolled-back'; order: number; event: OrderEvent }
  | { kind: 'rederive'; order: number; status: OrderStatus };

const event: fc.Arbitrary<OrderEvent> = fc.oneof(
  fc.constant<OrderEvent>({ type: 'SubmissionSent', txHash: '0xs' }),
  // The venue's id of an order is its client id here: venue ids are unique on a pair.
  fc.constant<OrderEvent>({ type: 'Accepted', orderId: 0n }),
  fc.constant<OrderEvent>({ type: 'Rested', quantity: 10n }),
  fc
    .tuple(fc.integer({ min: 0, max: 50 }), fc.bigInt({ min: 1n, max: 10n }))
    .map(([n, quantity]): OrderEvent => ({ type: 'Filled', fillId: `f${n}`, quantity, price: 100n, role: 'maker' })),
  fc.constant<OrderEvent>({ type: 'CancelSent', txHash: '0xc' }),
  fc.constant<OrderEvent>({ type: 'Cancelled', by: 'ByParticipant', quantity: 10n }),
  fc.constant<OrderEvent>({ type: 'Refused', code: 'E_CHAIN_TX_REFUSED', reason: 'test' }),
  fc.constant<OrderEvent>({ type: 'CancelFailed', code: 'E_CHAIN_TX_REFUSED', reason: 'test' }),
);

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    wallet: fc.nat(1),
    pair: fc.nat(1),
    side: fc.constantFrom('buy' as const, 'sell' as const),
  }),
  fc.record({ kind: fc.constant('event' as const), order: fc.nat(20), event }),
  fc.record({ kind: fc.constant('event' as const), order: fc.nat(20), event }),
  fc.record({ kind: fc.constant('rolled-back' as const), order: fc.nat(20), event }),
  fc.record({
    kind: fc.constant('rederive' as const),
    order: fc.nat(20),
    status: fc.constantFrom<OrderStatus>('submitting', 'resting', 'partiallyFilled', 'cancelled', 'filled'),
  }),
);

interface Placed {
  readonly wallet: string;
  readonly cid: bigint;
}

function run(store: Store, placed: Placed[], s: Step, now: number): void {
  if (s.kind === 'create') {
    const wallet = WALLETS[s.wallet] as string;
    const cid = BigInt(placed.length + 1);
    const order = newOrder({
      clientOrderId: cid,
      pairId: PAIRS[s.pair] as string,
      side: s.side,
      quantity: 10n,
      price: 100n,
    });
    store.orders.create(order, { wallet, chain: 'evm' });
    placed.push({ wallet, cid });
    return;
  }
  const target = placed[s.order % Math.max(1, placed.length)];
  if (target === undefined) return;
  const change: OrderEvent =
    s.kind !== 'rederive' && s.event.type === 'Accepted'
      ? { type: 'Accepted', orderId: target.cid }
      : s.kind === 'rederive'
        ? { type: 'Rested', quantity: 0n }
        : s.event;
  if (s.kind === 'event') {
    const fill =
      s.event.type === 'Filled'
        ? {
            fillId: s.event.fillId,
            wallet: target.wallet,
            clientOrderId: target.cid,
            pairId: store.orders.get(target.wallet, target.cid)?.pairId ?? 'a',
            side: 'buy' as const,
            role: 'maker' as const,
            quantity: s.event.quantity,
            price: 100n,
            baseDelta: s.event.quantity,
            quoteDelta: -s.event.quantity * 100n,
            fee: 0n,
            txHash: '0xf',
            height: 1n,
            atMs: now,
          }
        : undefined;
    store.orders.apply(target.wallet, target.cid, change, fill);
  } else if (s.kind === 'rolled-back') {
    try {
      transaction(store.db, () => {
        store.orders.apply(target.wallet, target.cid, change);
        throw new Error('undone');
      });
    } catch {
      // the change is rolled back, as the engine's failed batches are
    }
  } else {
    const current = store.orders.get(target.wallet, target.cid);
    if (current !== undefined)
      store.orders.rederive(target.wallet, target.cid, { ...current, status: s.status }, 'test');
  }
}

describe('live orders kept in memory', () => {
  it('read as the table reads them after any sequence of changes', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 60 }), (steps) => {
        const dir = mkdtempSync(join(tmpdir(), 'dltmm-live-'));
        dirs.push(dir);
        let now = 1_000;
        const store = openStore(join(dir, 'state.sqlite'), () => now);
        const table = new OrderStore(store.db, () => now, false);
        const placed: Placed[] = [];
        try {
          for (const s of steps) {
            now += s.kind === 'create' ? 0 : 1;
            run(store, placed, s, now);
            for (const filter of FILTERS) expect(store.orders.live(filter)).toEqual(table.live(filter));
            for (const p of placed) expect(store.orders.get(p.wallet, p.cid)).toEqual(table.get(p.wallet, p.cid));
            for (const { cid: id } of placed)
              for (const pair of PAIRS)
                expect(store.orders.byVenueId('evm', pair, id)).toEqual(table.byVenueId('evm', pair, id));
          }
        } finally {
          store.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});
