import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DltError } from '../../../../src/core/errors.ts';
import { baseNative, lockFor } from '../../../../src/sandbox/matching/amounts.ts';
import { cancelOrder, cloneBook, createBook, submitOrder } from '../../../../src/sandbox/matching/engine.ts';
import type { BookContext, BookParams } from '../../../../src/sandbox/matching/types.ts';
import { openBookParams } from '../../../support/matching/book-params.ts';
import { MemoryLedger } from '../../../support/matching/memory-ledger.ts';

const WALLETS = ['w0', 'w1', 'w2', 'w3'] as const;

function params(prefunded: boolean, quoteNative: bigint, rates: readonly [number, number, number]): BookParams {
  const base = openBookParams();
  return openBookParams({
    prefunded,
    scales: { ...base.scales, quoteNative },
    makerBps: rates[0],
    takerBps: rates[1],
    marketMakerBps: rates[2],
  });
}

const action = fc.oneof(
  fc.record({
    kind: fc.constant('place' as const),
    wallet: fc.constantFrom(...WALLETS),
    side: fc.constantFrom('buy' as const, 'sell' as const),
    quantity: fc.bigInt({ min: 1n, max: 500n }),
    price: fc.bigInt({ min: 9_000n, max: 11_000n }),
    cross: fc.bigInt({ min: 0n, max: 1n }),
    condition: fc.constantFrom('standard' as const, 'ioc' as const, 'fok' as const, 'boc' as const),
    market: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('cancel' as const),
    pick: fc.nat(),
    side: fc.constantFrom('buy' as const, 'sell' as const),
  }),
);

function inPriorityOrder(list: ReadonlyArray<{ price: bigint; id: bigint }>, side: 'buy' | 'sell'): boolean {
  return list.every((y, i) => {
    const x = list[i - 1];
    if (x === undefined) return true;
    return (side === 'buy' ? x.price > y.price : x.price < y.price) || (x.price === y.price && x.id < y.id);
  });
}

describe('matching engine invariants over random order flow', () => {
  it('conserves tokens, keeps exactly the locks of resting orders, never crosses the book, never charges the commission wallet', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.constantFrom(1n, 7n, 1_000n, 1_000_000n),
        fc.tuple(fc.constantFrom(0, 1, 7, 30), fc.constantFrom(0, 1, 13, 30), fc.constantFrom(0, 1, 3)),
        fc.array(action, { minLength: 1, maxLength: 60 }),
        (prefunded, quoteNative, rates, actions) => {
          const p = params(prefunded, quoteNative, rates);
          let book = createBook(p);
          const ledger = new MemoryLedger();
          for (const w of WALLETS) {
            ledger.mint('base', w, 10n ** 12n);
            ledger.mint('quote', w, 10n ** 15n);
            ledger.approve('base', w, 'orderBook', 10n ** 12n);
            ledger.approve('quote', w, 'orderBook', 10n ** 15n);
          }
          const ctx: BookContext = {
            ledger,
            nowSeconds: 0n,
            client: (a) => ({ canBuy: true, canSell: true, canCancel: true, isMarketMaker: a === 'w3' }),
          };
          const total = (t: 'base' | 'quote') =>
            [...WALLETS, 'orderBook', 'commission'].reduce((s, a) => s + ledger.balance(t, a), 0n);
          const totals = { base: total('base'), quote: total('quote') };
          const ids: bigint[] = [];
          let commission = 0n;
          for (const a of actions) {
            const saved = { book: cloneBook(book), ledger: ledger.snapshot() };
            try {
              if (a.kind === 'place') {
                const r = submitOrder(book, ctx, a.wallet, a.side, () => ({
                  quantity: a.quantity,
                  price: a.market ? 0n : a.price,
                  crossId: a.cross,
                  type: a.market ? 'market' : 'limit',
                  condition: a.market && a.condition === 'boc' ? 'standard' : a.condition,
                  validity: 'gfd',
                  lifetimeDays: 0,
                  reportingData: new Uint8Array([0]),
                }));
                ids.push(r.orderId);
              } else {
                const list = a.side === 'buy' ? book.buys : book.sells;
                const target = list[a.pick % Math.max(1, list.length)];
                if (target) cancelOrder(book, ctx, target.wallet, a.side, target.id, 'ByParticipant');
              }
            } catch (e) {
              if (!(e instanceof DltError)) throw e;
              book = saved.book;
              ledger.restore(saved.ledger);
            }
            expect(total('base')).toBe(totals.base);
            expect(total('quote')).toBe(totals.quote);
            const held = {
              base: prefunded ? book.sells.reduce((s, o) => s + baseNative(o.remaining, p.scales), 0n) : 0n,
              quote: prefunded
                ? book.buys.reduce((s, o) => s + lockFor(o.price, o.remaining, o.lockRateBps, p.scales), 0n)
                : 0n,
            };
            expect({ base: ledger.balance('base', 'orderBook'), quote: ledger.balance('quote', 'orderBook') }).toEqual(
              held,
            );
            const fee = ledger.balance('quote', 'commission');
            expect(fee >= commission).toBe(true);
            commission = fee;
            const bestBuy = book.buys[0]?.price;
            const bestSell = book.sells[0]?.price;
            expect(bestBuy === undefined || bestSell === undefined || bestBuy < bestSell).toBe(true);
            expect(inPriorityOrder(book.buys, 'buy') && inPriorityOrder(book.sells, 'sell')).toBe(true);
          }
          expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] as bigint))).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
