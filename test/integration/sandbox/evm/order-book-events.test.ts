/**
 * What a client reads from the chain A order book: events decoded with an ABI written from the specification's
 * table alone (not from our artefacts), filtered by `client` in topic 1 with the order id in topic 2, and the
 * read functions with the shapes of venue-facts.md.
 */
import { Interface, id, zeroPadValue, type Log } from 'ethers';
import { describe, expect, it } from 'vitest';
import { regulatoryTable } from '../../../../src/core/ticks.ts';
import { versionBytes } from '../../../../src/sandbox/evm/book-deploy.ts';
import { pairWith } from '../../../support/pairs.ts';
import { HALF, Harness, ONE, px, useHarness } from '../../../support/sandbox/evm/harness.ts';

const SPEC_ABI = new Interface([
  'event OrderReceived(address indexed client, uint64 indexed orderId, uint64 quantity, uint64 price, uint8 side, bytes reportingData, uint64 crossIdentifier, uint8 orderType, uint8 executionCondition)',
  'event NewBuyOrder(address indexed client, uint64 quantity, uint64 price, uint64 indexed orderId)',
  'event NewSellOrder(address indexed client, uint64 quantity, uint64 price, uint64 indexed orderId)',
  'event NewBuyInitiatedTrade(address indexed client, uint64 quantity, uint64 price, uint64 indexed orderId)',
  'event NewSellInitiatedTrade(address indexed client, uint64 quantity, uint64 price, uint64 indexed orderId)',
  'event CancelOrder(address indexed client, uint64 indexed orderId, uint64 quantity, uint64 price, uint8 cancellationType, address token, address toAddress)',
  'event OrderRejected(address indexed client, uint64 indexed orderId, uint8 reason, uint64 quantityNotExecuted, uint8 side, uint64 price)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

let h: Harness;
useHarness(pairWith('evm-pair'), (started) => (h = started));

const topicOf = (address: string) => zeroPadValue(address, 32);

describe('chain A order book events', () => {
  it('a client filters its own events by topic 1 and reads the order id from topic 2', async () => {
    await h.place('alice', 'sell', HALF, px('101'), 7n, { a: 11, b: 12, free: 0n });
    await h.place('bob', 'buy', 3n * HALF, px('101'));
    await h.place('carol', 'sell', ONE, px('103'));
    await h.cancel('bob', 'buy', 2n);
    const logs = await h.provider.getLogs({
      address: h.pair.orderBook,
      fromBlock: 0,
      topics: [null, topicOf(h.address('bob'))],
    });
    const decoded = logs.map((l: Log) => ({ parsed: SPEC_ABI.parseLog(l), orderTopic: l.topics[2] }));
    expect(decoded.map((d) => [d.parsed?.name, d.parsed?.args.orderId, BigInt(d.orderTopic ?? 0)])).toEqual([
      ['OrderReceived', 2n, 2n],
      ['NewBuyInitiatedTrade', 2n, 2n],
      ['NewBuyOrder', 2n, 2n],
      ['CancelOrder', 2n, 2n],
    ]);
    const received = await h.provider.getLogs({
      address: h.pair.orderBook,
      fromBlock: 0,
      topics: [
        id('OrderReceived(address,uint64,uint64,uint64,uint8,bytes,uint64,uint8,uint8)'),
        topicOf(h.address('alice')),
      ],
    });
    const alice = SPEC_ABI.parseLog(received[0] as Log);
    expect(received).toHaveLength(1);
    expect([
      alice?.args.quantity,
      alice?.args.price,
      alice?.args.side,
      alice?.args.crossIdentifier,
      alice?.args.orderType,
      alice?.args.executionCondition,
    ]).toEqual([HALF, px('101'), 2n, 7n, 0n, 0n]);
    // The reporting data comes back exactly as sent: ABI (uint32 11, uint32 12).
    expect(BigInt(alice?.args.reportingData as string)).toBe((11n << 256n) | 12n);
  });

  it('the topic-0 hashes are keccak256 of the canonical signatures of the specification', async () => {
    const placed = await h.place('alice', 'sell', ONE, px('101'));
    expect(placed.receipt.logs.map((l) => l.topics[0])).toContain(id('NewSellOrder(address,uint64,uint64,uint64)'));
    expect(placed.receipt.logs.map((l) => l.topics[0])).toContain(
      id('OrderReceived(address,uint64,uint64,uint64,uint8,bytes,uint64,uint8,uint8)'),
    );
  });

  it('token Transfer events accompany a match, commission included', async () => {
    await h.place('alice', 'sell', ONE, px('101'));
    const placed = await h.place('bob', 'buy', ONE, px('101'));
    const transfers = placed.receipt.logs
      .filter((l) => l.topics[0] === id('Transfer(address,address,uint256)'))
      .map((l) => SPEC_ABI.parseLog(l))
      .map((t) => [t?.args.from, t?.args.to, t?.args.value]);
    expect(transfers).toEqual([
      [h.address('bob'), h.pair.orderBook, 101_202_000n],
      [h.pair.orderBook, h.address('bob'), 100_000_000n],
      [h.pair.orderBook, h.address('alice'), 100_899_000n],
      [h.pair.orderBook, h.address('commission'), 303_000n],
    ]);
  });
});

describe('chain A order book reads', () => {
  it('getConfig and the control reads describe the deployed pair', async () => {
    const addresses = [
      h.pair.quoteToken,
      h.pair.baseToken,
      h.venue.registry,
      h.venue.commissionWallet.address,
      h.venue.operator.address,
      h.venue.operator.address,
    ];
    expect(await h.read('getConfig')).toEqual([
      [10_000n, 100_000_000n],
      [10_000n, 1_000_000n],
      10n,
      20n,
      5n,
      ...addresses,
      4n,
      versionBytes('1.0.0'),
    ]);
    expect(await h.read('getPreTradeControlConfig')).toEqual([1_000_000_000_000n, 10_000_000n, 2000n, 10n]);
    expect(await h.read('getVolatilityManagementConfig')).toEqual([1_000_000n, 1000n, 500n]);
    expect([
      await h.read('getOrderBookPhase'),
      await h.read('getLiquidityBand'),
      await h.read('getStaticRefPrice'),
      await h.read('getLastPrice'),
    ]).toEqual([1n, 4n, 1_000_000n, 1_000_000n]);
    expect(await h.read('getSizeConfig')).toEqual([HALF, HALF]);
    const rows = regulatoryTable(4);
    expect(await h.read('getTickTable')).toEqual([
      rows.map((r) => BigInt(r.from.mul(10_000).toFixed())),
      rows.map((r) => BigInt(r.tick.mul(10_000).toFixed())),
    ]);
  });

  it('bestBidOffer packs the best buy high and the best sell low; counts count orders', async () => {
    await h.place('bob', 'buy', ONE, px('98'));
    await h.place('bob', 'buy', ONE, px('99'));
    await h.place('alice', 'sell', ONE, px('101'));
    expect(await h.read('bestBidOffer')).toBe((px('99') << 128n) | px('101'));
    expect([await h.read('countBuyOrders'), await h.read('countSellOrders')]).toEqual([2n, 1n]);
  });

  it('bestFiftyOffers aggregates each price level, best first, at most fifty levels a side', async () => {
    await h.place('bob', 'buy', HALF, px('99'));
    await h.place('carol', 'buy', ONE, px('99'));
    await h.place('bob', 'buy', HALF, px('98.5'));
    for (let level = 0n; level <= 50n; level++) await h.place('alice', 'sell', HALF, px('100') + level * 1_000n);
    const [buys, sells] = await h.read<[bigint[], bigint[]]>('bestFiftyOffers');
    expect([...buys]).toEqual([((3n * HALF) << 64n) | px('99'), (HALF << 64n) | px('98.5')]);
    expect(sells).toHaveLength(50);
    expect([sells[0], sells[49]]).toEqual([(HALF << 64n) | px('100'), (HALF << 64n) | px('104.9')]);
    expect(await h.read('countSellOrders')).toBe(51n);
  });
});
