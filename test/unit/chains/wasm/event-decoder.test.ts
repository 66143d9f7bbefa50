/**
 * Decoding chain B events liberally: integers of any width, the trailing event id ignored, trade events
 * with the order id in topic[2] or first in the data, OrderReceived extras by position, SEP-41 transfers
 * with a plain or a map amount; other clients, contracts and event kinds are not ours; a malformed event of
 * ours throws `Malformed` (the follower counts and skips it).
 */
import { Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { derivePairRules } from '../../../../src/core/rules.ts';
import type { PairBinding } from '../../../../src/chains/types.ts';
import { decodeContractEvent, decodeRpcEvent, EventBindings } from '../../../../src/chains/wasm/event-decoder.ts';
import { encodeScVal, Malformed, scv, type ScVal } from '../../../../src/chains/wasm/scval.ts';
import { pairWith } from '../../../support/pairs.ts';

const contract = (n: number) => StrKey.encodeContract(Buffer.alloc(32, n));
const me = Keypair.random().publicKey();
const someone = Keypair.random().publicKey();
const pair: PairBinding = {
  pairId: 'p1',
  symbol: 'P1',
  chain: 'wasm',
  orderBook: contract(1),
  baseToken: contract(2),
  quoteToken: contract(3),
  rules: derivePairRules(pairWith('wasm-pair')),
};
const b = new EventBindings(me, [pair]);
const where = {
  key: '0000004294967296-0000000000',
  txHash: 'ab'.repeat(32),
  height: 1000n,
  blockHash: null,
  timeMs: 1,
};
const u128 = (v: bigint): ScVal => ({ type: 9, u128: { hi: v >> 64n, lo: v & ((1n << 64n) - 1n) } });
const vec = (...v: ScVal[]): ScVal => ({ type: 16, vec: v });
const str = (s: string): ScVal => ({ type: 14, str: new xdr.XdrString(s) });

describe('order book events', () => {
  it('OrderReceived: id from topic[2], quantity and price, then side, cross identifier, type and condition by position', () => {
    const data = vec(
      scv.u64(1000n),
      scv.u64(123_400n),
      scv.u32(2),
      scv.bytes(new Uint8Array([0])),
      scv.u32(7),
      scv.u32(0),
      scv.u32(1),
      u128(9n),
    );
    expect(
      decodeContractEvent(b, pair.orderBook, [scv.sym('OrderReceived'), scv.address(me), scv.u64(5n)], data, where),
    ).toEqual({
      ...where,
      pairId: 'p1',
      type: 'OrderReceived',
      orderId: 5n,
      client: me,
      quantity: 1000n,
      price: 123_400n,
      side: 'sell',
      crossIdentifier: 7n,
      orderType: 0,
      executionCondition: 1,
    });
  });

  it('NewBuyOrder: the order id is the first u64 of the data', () => {
    const e = decodeContractEvent(
      b,
      pair.orderBook,
      [scv.sym('NewBuyOrder'), scv.address(me)],
      vec(scv.u64(5n), scv.u64(1000n), scv.u64(120_000n), u128(3n)),
      where,
    );
    expect(e).toMatchObject({ type: 'OrderResting', orderId: 5n, side: 'buy', quantity: 1000n, price: 120_000n });
  });

  it('a trade event with the order id in topic[2] or, without it, first in the data; integers of other widths', () => {
    const topic = decodeContractEvent(
      b,
      pair.orderBook,
      [scv.sym('NewSellInitiatedTrade'), scv.address(me), scv.u64(8n)],
      vec(scv.u64(10n), scv.u64(20n), u128(1n)),
      where,
    );
    const data = decodeContractEvent(
      b,
      pair.orderBook,
      [scv.sym('NewSellInitiatedTrade'), scv.address(me)],
      vec(scv.u64(8n), u128(10n), scv.u32(20)),
      where,
    );
    expect(
      [topic, data].map((e) => e !== null && e.type === 'Trade' && [e.orderId, e.side, e.quantity, e.price]),
    ).toEqual([
      [8n, 'sell', 10n, 20n],
      [8n, 'sell', 10n, 20n],
    ]);
  });

  it('CancelOrder and OrderRejected', () => {
    const cancel = decodeContractEvent(
      b,
      pair.orderBook,
      [scv.sym('CancelOrder'), scv.address(me), scv.u64(4n)],
      vec(scv.u64(500n), scv.u64(1n), scv.u32(2), scv.address(pair.quoteToken), scv.address(me), u128(1n)),
      where,
    );
    expect(cancel).toMatchObject({
      type: 'OrderCancelled',
      orderId: 4n,
      quantity: 500n,
      cancellationType: 'ByContract',
      token: pair.quoteToken,
      toAddress: me,
    });
    const rejected = decodeContractEvent(
      b,
      pair.orderBook,
      [scv.sym('OrderRejected'), scv.address(me), scv.u64(4n)],
      vec(scv.u32(8), scv.u64(500n), scv.u32(1), scv.u64(9n)),
      where,
    );
    expect(rejected).toMatchObject({
      type: 'OrderRejected',
      orderId: 4n,
      reason: 8,
      quantityNotExecuted: 500n,
      side: 'buy',
      price: 9n,
    });
  });

  it('events of another client, another contract or an unknown name are not ours', () => {
    const data = vec(scv.u64(5n), scv.u64(1n), scv.u64(1n), u128(1n));
    expect(
      decodeContractEvent(b, pair.orderBook, [scv.sym('NewBuyOrder'), scv.address(someone)], data, where),
    ).toBeNull();
    expect(decodeContractEvent(b, contract(9), [scv.sym('NewBuyOrder'), scv.address(me)], data, where)).toBeNull();
    expect(decodeContractEvent(b, pair.orderBook, [scv.sym('Upgraded'), scv.address(me)], data, where)).toBeNull();
  });

  it('an event of ours that cannot be read is Malformed', () => {
    expect(() =>
      decodeContractEvent(
        b,
        pair.orderBook,
        [scv.sym('NewBuyOrder'), scv.address(me)],
        vec(scv.bytes(new Uint8Array(2))),
        where,
      ),
    ).toThrow(Malformed);
    expect(() =>
      decodeContractEvent(
        b,
        pair.orderBook,
        [scv.sym('OrderReceived'), scv.address(me), scv.u64(1n)],
        vec(scv.u64(1n), scv.u64(1n), scv.u32(3)),
        where,
      ),
    ).toThrow(Malformed);
    expect(() => decodeContractEvent(b, pair.orderBook, [scv.u32(1), scv.address(me)], vec(), where)).toThrow(
      Malformed,
    );
  });
});

describe('token transfers', () => {
  it('to or from the wallet, amount as an i128 or a map with amount; others are not ours', () => {
    const asset = str('EURe:GISSUER');
    const out = decodeContractEvent(
      b,
      pair.quoteToken,
      [scv.sym('transfer'), scv.address(me), scv.address(pair.orderBook), asset],
      scv.i128(250n),
      where,
    );
    const inMap = decodeContractEvent(
      b,
      pair.baseToken,
      [scv.sym('transfer'), scv.address(pair.orderBook), scv.address(me), asset],
      { type: 17, map: [{ key: scv.sym('amount'), val: scv.i128(7n) }] },
      where,
    );
    expect([out, inMap].map((e) => e !== null && e.type === 'Transfer' && [e.token, e.from, e.to, e.amount])).toEqual([
      ['quote', me, pair.orderBook, 250n],
      ['base', pair.orderBook, me, 7n],
    ]);
    expect(
      decodeContractEvent(
        b,
        pair.quoteToken,
        [scv.sym('transfer'), scv.address(someone), scv.address(pair.orderBook)],
        scv.i128(1n),
        where,
      ),
    ).toBeNull();
    expect(
      decodeContractEvent(
        b,
        pair.quoteToken,
        [scv.sym('approve'), scv.address(me), scv.address(pair.orderBook)],
        scv.i128(1n),
        where,
      ),
    ).toBeNull();
  });
});

describe('getEvents items', () => {
  it('reads the RPC shape and refuses an item without its fields', () => {
    const raw = {
      id: where.key,
      ledger: 1000,
      ledgerClosedAt: '2026-03-02T09:00:00Z',
      contractId: pair.orderBook,
      txHash: where.txHash,
      topic: [scv.sym('NewBuyOrder'), scv.address(me)].map(encodeScVal),
      value: encodeScVal(vec(scv.u64(5n), scv.u64(1n), scv.u64(2n), u128(1n))),
    };
    expect(decodeRpcEvent(b, raw)).toMatchObject({
      key: where.key,
      height: 1000n,
      timeMs: Date.UTC(2026, 2, 2, 9),
      type: 'OrderResting',
      orderId: 5n,
    });
    expect(() => decodeRpcEvent(b, { ...raw, value: 'not base64 xdr' })).toThrow(Malformed);
    expect(() => decodeRpcEvent(b, { ...raw, ledgerClosedAt: 'yesterday' })).toThrow(Malformed);
    expect(() => decodeRpcEvent(b, { ...raw, topic: 'x' })).toThrow(Malformed);
    expect(decodeRpcEvent(b, { ...raw, contractId: contract(9) })).toBeNull();
  });
});
