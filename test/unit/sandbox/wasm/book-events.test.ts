import { Keypair, StrKey } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import type { BookEvent } from '../../../../src/sandbox/matching/types.ts';
import { decodeBookEvent, encodeBookEvent, hasEventId } from '../../../../src/sandbox/wasm/contracts/book-events.ts';
import { encodeScVal, read } from '../../../../src/sandbox/wasm/scval.ts';

const client = Keypair.random().publicKey();
const tokens = {
  base: StrKey.encodeContract(new Uint8Array(32).fill(1)),
  quote: StrKey.encodeContract(new Uint8Array(32).fill(2)),
};

const events: BookEvent[] = [
  {
    type: 'OrderReceived',
    client,
    orderId: 7n,
    quantity: 5n,
    price: 9n,
    side: 2,
    reportingData: new Uint8Array([0]),
    crossIdentifier: 42n,
    orderType: 1,
    executionCondition: 3,
  },
  { type: 'NewBuyOrder', client, orderId: 7n, quantity: 5n, price: 9n },
  { type: 'NewSellInitiatedTrade', client, orderId: 7n, quantity: 5n, price: 9n },
  {
    type: 'CancelOrder',
    client,
    orderId: 7n,
    quantity: 5n,
    price: 9n,
    cancellationType: 2,
    token: 'quote',
    toAddress: client,
  },
  { type: 'OrderRejected', client, orderId: 7n, reason: 8, quantityNotExecuted: 5n, side: 1, price: 9n },
];

describe('order book events', () => {
  it('decode back to what was encoded, with the event id where the event carries one', () => {
    for (const e of events) {
      const { topics, data } = encodeBookEvent(e, 11n, tokens);
      expect(decodeBookEvent(topics, data, tokens)).toEqual({ ...e, eventId: hasEventId(e) ? 11n : null });
    }
  });

  it('put the name, the client and (except NewBuyOrder/NewSellOrder) the order id in the topics', () => {
    const layouts = events.map((e) => encodeBookEvent(e, 1n, tokens).topics.map((t) => t.type));
    expect(layouts).toEqual([
      [15, 18, 5],
      [15, 18],
      [15, 18, 5],
      [15, 18, 5],
      [15, 18, 5],
    ]);
    const newOrder = encodeBookEvent(events[1] as BookEvent, 1n, tokens);
    expect(newOrder.data.type === 16 ? read.u64(newOrder.data.vec?.[0], 'order id') : null).toBe(7n);
    expect(encodeScVal(newOrder.topics[0] as never).length).toBeGreaterThan(0);
  });
});
