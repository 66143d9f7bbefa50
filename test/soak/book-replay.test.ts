import { describe, expect, it } from 'vitest';
import type { BookEvent } from '../../src/sandbox/matching/types.ts';
import { BookReplay, netFilledIn, remainingAt, restingAt } from './book-replay.ts';

const US = '0xUs';
const THEM = '0xThem';

const received = (
  client: string,
  orderId: bigint,
  side: 1 | 2,
  quantity: bigint,
  crossIdentifier = 0xd1000001n,
): BookEvent => ({
  type: 'OrderReceived',
  client,
  orderId,
  quantity,
  price: 100n,
  side,
  reportingData: new Uint8Array(),
  crossIdentifier,
  orderType: 0,
  executionCondition: 0,
});
const rested = (client: string, orderId: bigint, side: 1 | 2, quantity: bigint, price = 100n): BookEvent => ({
  type: side === 1 ? 'NewBuyOrder' : 'NewSellOrder',
  client,
  orderId,
  quantity,
  price,
});
const trade = (client: string, orderId: bigint, takerSide: 1 | 2, quantity: bigint): BookEvent => ({
  type: takerSide === 1 ? 'NewBuyInitiatedTrade' : 'NewSellInitiatedTrade',
  client,
  orderId,
  quantity,
  price: 100n,
});
const cancel = (client: string, orderId: bigint, cancellationType: 0 | 1 | 2 = 0): BookEvent => ({
  type: 'CancelOrder',
  client,
  orderId,
  quantity: 0n,
  price: 100n,
  cancellationType,
  token: 'base',
  toAddress: client,
});

function replay(events: Array<[number, BookEvent]>): BookReplay {
  const r = new BookReplay({ evm: US, wasm: 'GUS' });
  for (const [height, event] of events) r.apply({ chain: 'evm', pairId: 'p', height, event });
  return r;
}

describe('BookReplay', () => {
  it("follows our resting order through the trades that name only the incoming order, in the book's priority", () => {
    const r = replay([
      [1, received(THEM, 1n, 2, 50n)],
      [1, rested(THEM, 1n, 2, 50n, 99n)],
      [2, received(US, 2n, 2, 100n)],
      [2, rested(US, 2n, 2, 100n)],
      // A buy of 80 takes their better-priced 50 first, then 30 of ours; a later buy of 70 takes the rest.
      [3, received(THEM, 3n, 1, 80n)],
      [3, trade(THEM, 3n, 1, 80n)],
      [5, received(THEM, 4n, 1, 70n)],
      [5, trade(THEM, 4n, 1, 70n)],
    ]);
    const ours = r.orders.get(BookReplay.key('evm', 'p', 2n));
    expect(ours).toMatchObject({
      restedHeight: 2,
      filled: 100n,
      fills: [
        { height: 3, quantity: 30n },
        { height: 5, quantity: 70n },
      ],
      closedHeight: 5,
      closedBy: 'filled',
    });
    expect(r.orders.size).toBe(1);
    // Others changed the book at 1, 3 and 5.
    expect(r.changes.get('p')).toEqual([1, 3, 5]);
    const all = [...r.orders.values()];
    expect(restingAt(all, 'evm', 4).map((o) => o.orderId)).toEqual(['2']);
    expect(remainingAt(ours!, 4)).toBe(70n);
    expect(restingAt(all, 'evm', 5)).toEqual([]);
    expect(netFilledIn(all, 'p', 5)).toBe(-70n);
  });

  it('tells a cancel of ours from one by the contract', () => {
    const r = replay([
      [1, received(US, 1n, 1, 10n)],
      [1, rested(US, 1n, 1, 10n)],
      [2, received(US, 2n, 1, 10n)],
      [2, rested(US, 2n, 1, 10n)],
      [3, cancel(US, 1n)],
      [4, cancel(US, 2n, 2)],
    ]);
    expect(r.orders.get(BookReplay.key('evm', 'p', 1n))).toMatchObject({
      closedHeight: 3,
      closedBy: 'cancelled by us',
    });
    expect(r.orders.get(BookReplay.key('evm', 'p', 2n))).toMatchObject({
      closedHeight: 4,
      closedBy: 'cancelled by the contract',
    });
    // Our own cancels are no book change by others.
    expect(r.changes.get('p')).toBeUndefined();
  });

  it('tells what of our incoming order traded on arrival (taker) from what filled it later at rest', () => {
    const r = replay([
      [1, received(THEM, 1n, 2, 30n)],
      [1, rested(THEM, 1n, 2, 30n)],
      // Ours crosses their resting sell for 30 and rests the other 20; a later incoming sell takes 5 of it.
      [2, received(US, 2n, 1, 50n)],
      [2, trade(US, 2n, 1, 30n)],
      [2, rested(US, 2n, 1, 20n)],
      [3, received(THEM, 3n, 2, 5n)],
      [3, trade(THEM, 3n, 2, 5n)],
    ]);
    expect(r.orders.get(BookReplay.key('evm', 'p', 2n))).toMatchObject({ filled: 35n, tradedOnArrival: 30n });
  });

  it('records rejections at matching and automatic halts', () => {
    const r = replay([
      [1, received(US, 1n, 1, 10n)],
      [
        1,
        { type: 'OrderRejected', client: US, orderId: 1n, reason: 2, quantityNotExecuted: 10n, side: 1, price: 100n },
      ],
      [2, received(THEM, 2n, 1, 10n)],
      [
        2,
        { type: 'OrderRejected', client: THEM, orderId: 2n, reason: 5, quantityNotExecuted: 10n, side: 1, price: 100n },
      ],
    ]);
    expect(r.orders.get(BookReplay.key('evm', 'p', 1n))).toMatchObject({
      closedHeight: 1,
      closedBy: 'rejected',
      rejectReason: 2,
    });
    expect(r.halts.get('p')).toEqual([2]);
  });
});
