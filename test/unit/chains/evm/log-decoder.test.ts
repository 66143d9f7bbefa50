import * as fc from 'fast-check';
import { getAddress, type EventFragment } from 'ethers';
import { describe, expect, it } from 'vitest';
import { erc20Interface, orderBookInterface } from '../../../../src/chains/evm/abi.ts';
import {
  decodeLog,
  Malformed,
  parseRawLog,
  type DecodeContext,
  type RawLog,
} from '../../../../src/chains/evm/log-decoder.ts';

const WALLET = '0x1111111111111111111111111111111111111111';
const OTHER = '0x2222222222222222222222222222222222222222';
const BOOK_A = '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const BOOK_B = '0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const QUOTE = '0xcccccccccccccccccccccccccccccccccccccccc';
const BASE_A = '0xdddddddddddddddddddddddddddddddddddddddd';
const TX = `0x${'ab'.repeat(32)}`;
const BLOCK = `0x${'cd'.repeat(32)}`;

const ctx: DecodeContext = {
  books: new Map([
    [BOOK_A, 'pair-a'],
    [BOOK_B, 'pair-b'],
  ]),
  tokens: new Map([
    [QUOTE, { role: 'quote', pairIds: ['pair-a', 'pair-b'] }],
    [BASE_A, { role: 'base', pairIds: ['pair-a'] }],
  ]),
  wallet: WALLET,
};

/** A log as a node would serve it, encoded by ethers from the ABI. */
function rpcLog(
  address: string,
  iface: typeof orderBookInterface,
  name: string,
  values: readonly unknown[],
  logIndex = 3,
): Record<string, unknown> {
  const { data, topics } = iface.encodeEventLog(iface.getEvent(name) as EventFragment, values);
  return {
    address,
    topics,
    data,
    blockNumber: '0x10',
    blockHash: BLOCK,
    transactionHash: TX,
    logIndex: `0x${logIndex.toString(16)}`,
    removed: false,
  };
}

const decode = (log: Record<string, unknown>) => decodeLog(parseRawLog(log), ctx, 1_700_000_000_000);
const meta = { key: `${TX}:3`, txHash: TX, height: 16n, blockHash: BLOCK, timeMs: 1_700_000_000_000 };

describe('chain A log decoding', () => {
  it('decodes every order book event of the specification, with the order id from its topic', () => {
    expect(
      decode(
        rpcLog(BOOK_A, orderBookInterface, 'OrderReceived', [WALLET, 7n, 10_000n, 990_000n, 1, '0x1234', 9n, 0, 0]),
      ),
    ).toEqual({
      ...meta,
      pairId: 'pair-a',
      type: 'OrderReceived',
      client: getAddress(WALLET),
      orderId: 7n,
      quantity: 10_000n,
      price: 990_000n,
      side: 'buy',
      crossIdentifier: 9n,
      orderType: 0,
      executionCondition: 0,
    });
    expect(decode(rpcLog(BOOK_B, orderBookInterface, 'NewSellOrder', [WALLET, 5n, 1_010_000n, 8n]))).toEqual({
      ...meta,
      pairId: 'pair-b',
      type: 'OrderResting',
      client: getAddress(WALLET),
      orderId: 8n,
      side: 'sell',
      quantity: 5n,
      price: 1_010_000n,
    });
    expect(
      decode(rpcLog(BOOK_A, orderBookInterface, 'NewBuyInitiatedTrade', [WALLET, 5n, 1_000_000n, 8n])),
    ).toMatchObject({ type: 'Trade', side: 'buy', orderId: 8n });
    expect(
      decode(rpcLog(BOOK_A, orderBookInterface, 'CancelOrder', [WALLET, 4n, 10n, 20n, 2, QUOTE, WALLET])),
    ).toMatchObject({
      type: 'OrderCancelled',
      orderId: 4n,
      cancellationType: 'ByContract',
      token: getAddress(QUOTE),
      toAddress: getAddress(WALLET),
    });
    expect(decode(rpcLog(BOOK_A, orderBookInterface, 'OrderRejected', [WALLET, 4n, 2, 10n, 2, 20n]))).toMatchObject({
      type: 'OrderRejected',
      reason: 2,
      quantityNotExecuted: 10n,
      side: 'sell',
      price: 20n,
    });
  });

  it('attributes a shared quote token transfer to the pair whose order book sent or received it', () => {
    expect(decode(rpcLog(QUOTE, erc20Interface, 'Transfer', [BOOK_B, WALLET, 123n]))).toMatchObject({
      type: 'Transfer',
      pairId: 'pair-b',
      token: 'quote',
      amount: 123n,
      to: getAddress(WALLET),
    });
    expect(decode(rpcLog(QUOTE, erc20Interface, 'Transfer', [WALLET, OTHER, 5n]))).toMatchObject({
      pairId: 'pair-a',
      from: getAddress(WALLET),
    });
    expect(decode(rpcLog(BASE_A, erc20Interface, 'Transfer', [WALLET, BOOK_A, 1n]))).toMatchObject({
      pairId: 'pair-a',
      token: 'base',
    });
  });

  it("decodes another client's order with an empty cross identifier as an ordinary order (cross identifier 0)", () => {
    // The book records an empty cross identifier as 0; a client leaving it empty may leave its reporting data empty too.
    const received = decode(
      rpcLog(BOOK_A, orderBookInterface, 'OrderReceived', [OTHER, 12n, 20n, 99_999_990n, 2, '0x', 0n, 0, 0]),
    );
    expect(received).toEqual({
      ...meta,
      pairId: 'pair-a',
      type: 'OrderReceived',
      client: getAddress(OTHER),
      orderId: 12n,
      quantity: 20n,
      price: 99_999_990n,
      side: 'sell',
      crossIdentifier: 0n,
      orderType: 0,
      executionCondition: 0,
    });
    expect(
      decode(rpcLog(BOOK_A, orderBookInterface, 'NewSellInitiatedTrade', [OTHER, 20n, 99_999_990n, 12n])),
    ).toMatchObject({ type: 'Trade', client: getAddress(OTHER), orderId: 12n, side: 'sell' });
  });

  it('ignores what is not ours: other wallets transfers, unknown contracts, events it does not follow', () => {
    expect(decode(rpcLog(QUOTE, erc20Interface, 'Transfer', [OTHER, BOOK_A, 5n]))).toBeNull();
    expect(decode(rpcLog(OTHER, erc20Interface, 'Transfer', [WALLET, BOOK_A, 5n]))).toBeNull();
    expect(
      decode({
        ...rpcLog(BOOK_A, orderBookInterface, 'NewBuyOrder', [WALLET, 1n, 1n, 1n]),
        topics: [`0x${'12'.repeat(32)}`],
      }),
    ).toBeNull();
  });

  it('refuses logs that do not have the layout of their event', () => {
    const good = rpcLog(BOOK_A, orderBookInterface, 'NewBuyOrder', [WALLET, 1n, 2n, 3n]);
    const broken: Record<string, unknown>[] = [
      { ...good, topics: (good.topics as string[]).slice(0, 2) },
      { ...good, data: '0x1234' },
      { ...good, data: `0x${'f'.repeat(128)}` },
      { ...good, topics: [(good.topics as string[])[0], `0x${'f'.repeat(64)}`, (good.topics as string[])[2]] },
      { ...good, data: 'zz' },
      { ...good, logIndex: 7 },
      { ...good, blockHash: '0x12' },
      { ...good, address: 'nope' },
      rpcLog(BOOK_A, orderBookInterface, 'OrderReceived', [WALLET, 7n, 1n, 1n, 3, '0x', 0n, 0, 0]),
      rpcLog(BOOK_A, orderBookInterface, 'CancelOrder', [WALLET, 4n, 10n, 20n, 9, QUOTE, WALLET]),
    ];
    for (const log of broken) expect(() => decode(log)).toThrow(Malformed);
    expect(() => parseRawLog('not a log')).toThrow(Malformed);
  });

  it('agrees with ethers on any value the ABI allows', () => {
    const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
    fc.assert(
      fc.property(
        u64,
        u64,
        u64,
        u64,
        fc.constantFrom(1, 2),
        fc.uint8Array({ maxLength: 70 }),
        (id, q, p, cross, side, reporting) => {
          const log = rpcLog(BOOK_A, orderBookInterface, 'OrderReceived', [
            WALLET,
            id,
            q,
            p,
            side,
            reporting,
            cross,
            0,
            1,
          ]);
          const parsed = orderBookInterface.parseLog({ topics: log.topics as string[], data: log.data as string });
          const e = decode(log);
          expect(e).toMatchObject({
            orderId: parsed?.args[1],
            quantity: parsed?.args[2],
            price: parsed?.args[3],
            crossIdentifier: parsed?.args[6],
            executionCondition: 1,
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps the envelope fields a follower keys on', () => {
    const raw: RawLog = parseRawLog({
      ...rpcLog(BOOK_A, orderBookInterface, 'NewBuyOrder', [WALLET, 1n, 2n, 3n], 0x2a),
      removed: true,
      address: BOOK_A.toUpperCase().replace('0X', '0x'),
    });
    expect(raw).toMatchObject({ address: BOOK_A, logIndex: 42, blockNumber: 16n, txHash: TX, removed: true });
  });
});
