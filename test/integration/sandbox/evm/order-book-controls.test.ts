/**
 * What the chain A order book refuses, and how: each pre-trade control, the volatility thresholds with their
 * automatic halt, phases, permissions, beneficiaries, order encodings and token funding. A refused submission
 * reverts and changes nothing (no order id, no balance); a volatility rejection keeps its order id and halts.
 * Pair: evm-pair with minimumOrderValue 50 and maximumOrderValue 1000; collar 20 % and static threshold 10 %
 * around 100.00, dynamic threshold 5 % around the last price; ticks 0.05 below 100 and 0.1 from 100.
 */
import { AbiCoder, solidityPacked } from 'ethers';
import { describe, expect, it } from 'vitest';
import { encodeEvmOrderData } from '../../../../src/core/encoding/evm-order.ts';
import { encodeWasmCrossIdentifier, encodeWasmOrderData } from '../../../../src/core/encoding/wasm-order.ts';
import { DEFAULT_ORDER_OPTIONS } from '../../../../src/core/order-terms.ts';
import { pairWith } from '../../../support/pairs.ts';
import { thrown } from '../../../support/errors.ts';
import { BUY, HALF, Harness, ONE, px, SELL, useHarness } from '../../../support/sandbox/evm/harness.ts';

let h: Harness;
useHarness(pairWith('evm-pair', { minimumOrderValue: '50', maximumOrderValue: '1000' }), (started) => (h = started));

const abi = AbiCoder.defaultAbiCoder();

/** The error code of a refused placement, after checking that it left no trace. */
async function refused(name: string, side: 'buy' | 'sell', quantity: bigint, price: bigint): Promise<string> {
  const before = await h.balances();
  const lastId = await h.read<bigint>('getLastOrderId');
  const e = await h.failure(h.place(name, side, quantity, price));
  expect(Harness.deltas(before, await h.balances())).toEqual({});
  expect(await h.read<bigint>('getLastOrderId')).toBe(lastId);
  return e.code;
}

describe('pre-trade controls on chain A', () => {
  it('size: below the minimum, or not the minimum plus whole increments', async () => {
    expect(await refused('alice', 'buy', 2_500n, px('100'))).toBe('E_VENUE_VOLUME_BELOW_MIN_RANGE');
    expect(await refused('alice', 'buy', 7_500n, px('100'))).toBe('E_VENUE_VOLUME_BELOW_MIN_RANGE');
    expect((await h.place('alice', 'buy', 3n * HALF, px('100'))).orderId).toBe(1n);
  });

  it('off-tick prices: the tick follows the price band (0.05 below 100, 0.1 from 100)', async () => {
    expect(await refused('alice', 'buy', ONE, px('100.05'))).toBe('E_VENUE_OFF_TICK');
    expect(await refused('alice', 'sell', ONE, px('101.01'))).toBe('E_VENUE_OFF_TICK');
    expect((await h.place('alice', 'buy', ONE, px('99.95'))).orderId).toBe(1n);
    expect((await h.place('alice', 'sell', ONE, px('100.1'))).orderId).toBe(2n);
  });

  it('price collar: 20 % around the static reference price, bounds included', async () => {
    expect(await refused('alice', 'sell', ONE, px('120.1'))).toBe('E_VENUE_PRICE_ABOVE_MAX_RANGE');
    expect(await refused('alice', 'buy', ONE, px('79.95'))).toBe('E_VENUE_PRICE_BELOW_MIN_RANGE');
    expect((await h.place('alice', 'sell', ONE, px('120'))).orderId).toBe(1n);
    expect((await h.place('alice', 'buy', ONE, px('80'))).orderId).toBe(2n);
  });

  it('order value: exactly the minimum is refused, the maximum is allowed', async () => {
    expect(await refused('alice', 'buy', HALF, px('100'))).toBe('E_VENUE_VALUE_BELOW_MIN_RANGE');
    expect(await refused('alice', 'buy', 10n * ONE, px('100.1'))).toBe('E_VENUE_VALUE_ABOVE_MAX_RANGE');
    expect((await h.place('alice', 'buy', HALF, px('100.1'))).orderId).toBe(1n);
    expect((await h.place('alice', 'buy', 10n * ONE, px('100'))).orderId).toBe(2n);
  });
});

/** Alice offers, Bob takes at the same price: the execution price is that price. */
async function trade(price: bigint): Promise<Awaited<ReturnType<Harness['place']>>> {
  await h.place('alice', 'sell', ONE, price);
  return h.place('bob', 'buy', ONE, price);
}

describe('volatility management on chain A', () => {
  it('an execution above the static threshold is rejected (reason 3) and halts the book automatically', async () => {
    await h.place('alice', 'sell', ONE, px('111'));
    let placed!: Awaited<ReturnType<Harness['place']>>;
    const deltas = await h.deltasOf(async () => {
      placed = await h.place('bob', 'buy', ONE, px('111'));
    });
    expect(deltas).toEqual({});
    expect(placed.events.map((e) => [e.name, e.args.reason ?? null])).toEqual([
      ['OrderReceived', null],
      ['OrderRejected', 3n],
    ]);
    expect(placed.orderId).toBe(2n);
    expect(await h.read('getOrderBookPhase')).toBe(4n);
    expect(await h.read('getHaltInfo')).toEqual([1n, expect.any(BigInt)]);
    expect(await h.read('getLastPrice')).toBe(px('100'));
    expect(await h.side(SELL)).toEqual([[1n, 'alice', ONE, px('111')]]);
    expect((await h.failure(h.place('carol', 'buy', ONE, px('100')))).code).toBe('E_VENUE_MARKET_CLOSED');
    await h.call('operator', 'setPhase', [1]);
    expect((await h.place('carol', 'buy', ONE, px('100'))).orderId).toBe(3n);
  });

  it('an execution below the static threshold is rejected with reason 4', async () => {
    await h.place('bob', 'buy', ONE, px('89'));
    const placed = await h.place('alice', 'sell', ONE, px('89'));
    expect(placed.events.map((e) => e.args.reason ?? null)).toEqual([null, 4n]);
    expect(await h.read('getOrderBookPhase')).toBe(4n);
  });

  it('the dynamic threshold applies around the last execution price: 5 % is allowed, more is rejected (5 above, 6 below)', async () => {
    expect((await trade(px('105'))).events.map((e) => e.name)).toEqual(['OrderReceived', 'NewBuyInitiatedTrade']);
    expect(await h.read('getLastPrice')).toBe(px('105'));
    // 99.7 is 5.05 % below the last price 105 and inside the static range.
    const below = await trade(px('99.7'));
    expect(below.events.map((e) => e.args.reason ?? null)).toEqual([null, 6n]);
    expect(await h.read('getOrderBookPhase')).toBe(4n);
    await h.call('operator', 'setPhase', [1]);
    await h.cancel('alice', 'sell', 3n);
    await h.call('operator', 'setStaticReferencePrice', [px('105')]);
    // 110.3 is 5.05 % above 105 and inside the static range around the new reference.
    expect((await trade(px('110.3'))).events.map((e) => e.args.reason ?? null)).toEqual([null, 5n]);
    expect(await h.read('getHaltInfo')).toEqual([2n, expect.any(BigInt)]);
  });
});

describe('who may trade on chain A', () => {
  it('a closed or manually halted book refuses orders on both sides', async () => {
    for (const phase of [2, 3]) {
      await h.call('operator', 'setPhase', [phase]);
      expect(await refused('alice', 'buy', ONE, px('100'))).toBe('E_VENUE_MARKET_CLOSED');
      expect(await refused('alice', 'sell', ONE, px('100'))).toBe('E_VENUE_MARKET_CLOSED');
    }
  });

  it('a wallet outside the whitelist, or without the side flag, is refused for that side', async () => {
    expect(await refused('outsider', 'buy', ONE, px('100'))).toBe('E_VENUE_NOT_ALLOWED_TO_BUY');
    expect(await refused('outsider', 'sell', ONE, px('100'))).toBe('E_VENUE_NOT_ALLOWED_TO_SELL');
    expect(await refused('nobuy', 'buy', ONE, px('100'))).toBe('E_VENUE_NOT_ALLOWED_TO_BUY');
    expect(await refused('nosell', 'sell', ONE, px('100'))).toBe('E_VENUE_NOT_ALLOWED_TO_SELL');
    expect((await h.place('nobuy', 'sell', ONE, px('100'))).orderId).toBe(1n);
    expect((await h.place('nosell', 'buy', ONE, px('99'))).orderId).toBe(2n);
  });

  it('a buyer that is not a beneficiary of the base token cannot receive it: the whole transaction reverts', async () => {
    await h.place('alice', 'sell', ONE, px('101'));
    expect(await refused('nobene', 'buy', ONE, px('101'))).toBe('E_VENUE_NOT_BENEFICIARY');
    expect(await h.side(SELL)).toEqual([[1n, 'alice', ONE, px('101')]]);
    // Resting is fine (no base moves) but a seller cannot then fill it.
    expect((await h.place('nobene', 'buy', ONE, px('100'))).orderId).toBe(2n);
    expect(await refused('bob', 'sell', ONE, px('100'))).toBe('E_VENUE_NOT_BENEFICIARY');
    expect(await h.side(BUY)).toEqual([[2n, 'nobene', ONE, px('100')]]);
  });

  it("funding: a missing allowance or balance reverts with the token's OpenZeppelin error and its numbers", async () => {
    const book = h.pair.orderBook;
    const noAllowance = await h.failure(h.place('dora', 'buy', ONE, px('100')));
    expect([noAllowance.code, noAllowance.details.args]).toEqual([
      'E_VENUE_INSUFFICIENT_ALLOWANCE',
      { spender: book, allowance: 0n, needed: 100_100_000n },
    ]);
    const noBaseAllowance = await h.failure(h.place('dora', 'sell', ONE, px('100')));
    expect([noBaseAllowance.code, noBaseAllowance.details.args]).toEqual([
      'E_VENUE_INSUFFICIENT_ALLOWANCE',
      { spender: book, allowance: 0n, needed: 100_000_000n },
    ]);
    const poor = await h.failure(h.place('poor', 'buy', ONE, px('100')));
    expect([poor.code, poor.details.args]).toEqual([
      'E_VENUE_INSUFFICIENT_BALANCE',
      { sender: h.address('poor'), balance: 10_000_000n, needed: 100_100_000n },
    ]);
  });
});

describe('order encodings on chain A (contract v1: two ABI words only)', () => {
  const q = ONE;
  const p = px('100');
  const word = (v: bigint) => abi.encode(['uint256'], [v]);
  const reporting = abi.encode(['uint32', 'uint32'], [0, 0]);

  it('extended layouts, packed forms and out-of-range fields revert OrderBook_InvalidInputOrderData', async () => {
    const layouts: Record<string, string | Uint8Array> = {
      'ABI tuple with an order type': abi.encode(['uint64', 'uint64', 'uint8'], [q, p, 0]),
      'chain B IOC layout (4 words)': encodeWasmOrderData({
        ...DEFAULT_ORDER_OPTIONS,
        condition: 'ioc',
        quantity: q,
        price: p,
      }),
      'chain B GTD layout (6 words)': encodeWasmOrderData({
        ...DEFAULT_ORDER_OPTIONS,
        validity: 'gtd',
        lifetimeDays: 30,
        quantity: q,
        price: p,
      }),
      'packed (uint64, uint64)': solidityPacked(['uint64', 'uint64'], [q, p]),
      'single packed word': word((q << 64n) | p),
      'quantity above uint64': abi.encode(['uint256', 'uint256'], [1n << 64n, p]),
      'zero quantity': abi.encode(['uint256', 'uint256'], [0n, p]),
      'zero price': abi.encode(['uint256', 'uint256'], [q, 0n]),
      'one word too short': abi.encode(['uint256', 'uint256'], [q, p]).slice(0, -2),
    };
    const outcomes: Record<string, string> = {};
    for (const [label, data] of Object.entries(layouts))
      outcomes[label] = (await h.failure(h.placeRaw('alice', 'buy', data, reporting, word(0n)))).code;
    expect(outcomes).toEqual(Object.fromEntries(Object.keys(layouts).map((k) => [k, 'E_VENUE_INVALID_ORDER_DATA'])));
    expect(await h.read('getLastOrderId')).toBe(0n);
  });

  it('a cross identifier must be one ABI word holding a uint32', async () => {
    const data = encodeEvmOrderData({ ...DEFAULT_ORDER_OPTIONS, quantity: q, price: p });
    const ids = [
      encodeWasmCrossIdentifier(7n),
      '0x0000000000000007',
      word(1n << 32n),
      abi.encode(['uint256', 'uint256'], [0n, 0n]),
    ];
    const codes = [];
    for (const id of ids) codes.push((await h.failure(h.placeRaw('alice', 'buy', data, reporting, id))).code);
    expect(codes).toEqual(ids.map(() => 'E_VENUE_INVALID_ORDER_DATA'));
    expect((await h.placeRaw('alice', 'buy', data, reporting, word((1n << 32n) - 1n))).orderId).toBe(1n);
  });

  it('an empty cross identifier ("any unique identifier or empty") is accepted and reads as 0', async () => {
    const data = encodeEvmOrderData({ ...DEFAULT_ORDER_OPTIONS, quantity: q, price: p });
    const empty = await h.placeRaw('bob', 'sell', data, reporting, '0x');
    expect(empty.events.map((e) => [e.name, e.args.crossIdentifier ?? null])).toEqual([
      ['OrderReceived', 0n],
      ['NewSellOrder', null],
    ]);
    // Empty and the zero word are the same identifier: the same wallet cannot trade with itself through them.
    const same = await h.placeRaw('bob', 'buy', data, reporting, word(0n));
    expect(same.events.map((e) => [e.name, e.args.reason ?? null])).toEqual([
      ['OrderReceived', null],
      ['OrderRejected', 1n],
    ]);
    const other = await h.placeRaw('alice', 'buy', data, reporting, '0x');
    expect(other.events.map((e) => e.name)).toEqual(['OrderReceived', 'NewBuyInitiatedTrade']);
  });

  it('the core encoder never produces an extended chain A layout in the first place', () => {
    expect(
      thrown(() => encodeEvmOrderData({ ...DEFAULT_ORDER_OPTIONS, condition: 'ioc', quantity: q, price: p })).code,
    ).toBe('E_ENCODING_UNSUPPORTED');
  });
});
