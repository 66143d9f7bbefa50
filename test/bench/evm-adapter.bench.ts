/**
 * The chain A adapter, side by side: (1) orders one wallet gets into each block at 2 s blocks on a real node,
 * pipelined through the adapter's nonce lane versus awaiting every receipt; (2) the time from `submit` to the
 * signed transaction being handed to the transport (p50 / p99), pipelined and on an idle wallet (simulation and
 * allowance read included), beside ethers' own contract call; (3) events decoded and applied per second by the
 * follower (reply parsed, logs checked and decoded, notices applied to order records), and decoding alone
 * beside ethers' `Interface.parseLog`.
 */
import { Contract, Wallet, type EventFragment } from 'ethers';
import { orderBookInterface, erc20Interface, ORDER_BOOK_ABI } from '../../src/chains/evm/abi.ts';
import { BlockCache } from '../../src/chains/evm/block-cache.ts';
import { EvmAdapter } from '../../src/chains/evm/evm-adapter.ts';
import { EvmFollower } from '../../src/chains/evm/follower.ts';
import { decodeLog, parseRawLog } from '../../src/chains/evm/log-decoder.ts';
import { resolveOptions, systemClock } from '../../src/chains/evm/options.ts';
import { EvmRpc } from '../../src/chains/evm/rpc-client.ts';
import type { ChainEvent, FollowerNotice, Outcome, PairBinding, Submission } from '../../src/chains/types.ts';
import { Decimal } from '../../src/core/decimal.ts';
import { ZERO_REPORTING } from '../../src/core/encoding/reporting.ts';
import { approvalFor } from '../../src/core/money.ts';
import { applyOrderEvent, newOrder, type OrderEvent, type OrderRecord } from '../../src/core/order-state.ts';
import { DEFAULT_ORDER_OPTIONS } from '../../src/core/order-terms.ts';
import { derivePairRules } from '../../src/core/rules.ts';
import { openStore } from '../../src/store/store.ts';
import { silentLogger } from '../../src/telemetry/logger.ts';
import { Harness } from '../support/sandbox/evm/harness.ts';
import { pairWith } from '../support/pairs.ts';
import { compare, fmt, type Row } from './harness.ts';

export const title = 'chain A adapter';

const BLOCK_MS = 2000;
const PIPELINED_ORDERS = 240;

const percentile = (xs: readonly number[], p: number) =>
  xs.toSorted((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))] as number;

function binding(h: Harness): PairBinding {
  return {
    pairId: h.pair.id,
    symbol: 'BOND26EURe',
    chain: 'evm',
    orderBook: h.pair.orderBook,
    baseToken: h.pair.baseToken,
    quoteToken: h.pair.quoteToken,
    rules: derivePairRules(h.pair.pair),
  };
}

function buy(pair: PairBinding, id: number) {
  const terms = {
    ...DEFAULT_ORDER_OPTIONS,
    side: 'buy' as const,
    quantity: new Decimal('0.5'),
    price: new Decimal('95'),
  };
  return {
    kind: 'place' as const,
    pair,
    clientOrderId: BigInt(id),
    terms,
    reporting: ZERO_REPORTING,
    approval: approvalFor('buy', terms.quantity, terms.price, pair.rules.scales, pair.rules.commissions, false),
  };
}

/** Accepted outcomes per block height. */
function perBlock(outcomes: readonly Outcome[]): number[] {
  const counts = new Map<bigint, number>();
  for (const o of outcomes) if (o.kind === 'accepted') counts.set(o.height, (counts.get(o.height) ?? 0) + 1);
  return [...counts.values()];
}

async function blocks(h: Harness): Promise<Row[]> {
  const pair = binding(h);
  const store = openStore(':memory:');
  const samples: number[] = [];
  const adapter = new EvmAdapter({
    rpcUrl: h.node.rpcUrl,
    chainId: 80002n,
    privateKey: h.signer('bot').privateKey,
    journal: store.transactions,
    receipts: { pollIntervalMs: 200 },
    approvals: { budgets: { [pair.pairId]: { quote: 10n ** 12n } } },
    onSubmitTiming: (t) => {
      if (t.kind === 'place') samples.push(t.toSendMs);
    },
  });
  const rows: Row[] = [];
  try {
    await h.provider.send('evm_setAutomine', [false]);
    await h.provider.send('evm_setIntervalMining', [BLOCK_MS]);
    // Awaiting each receipt, from an idle wallet every time (simulation and allowance read included).
    const awaited: Outcome[] = [];
    const idleTimes: number[] = [];
    for (let i = 0; i < 4; i++) {
      const s = await adapter.submit(buy(pair, i + 1));
      idleTimes.push(samples.pop() as number);
      awaited.push(await s.outcome);
    }
    // Pipelined: every order submitted as soon as the previous one left, none awaited.
    samples.length = 0;
    const subs: Submission[] = [];
    for (let i = 0; i < PIPELINED_ORDERS; i++) subs.push(await adapter.submit(buy(pair, 100 + i)));
    const pipelined = perBlock(await Promise.all(subs.map((s) => s.outcome)));
    const sequential = perBlock(awaited);
    rows.push({
      benchmark: title,
      measure: `orders per block at ${BLOCK_MS / 1000} s blocks, one wallet: pipelined (${PIPELINED_ORDERS} orders) vs awaiting each receipt`,
      value: fmt(Math.max(...pipelined)),
      baseline: fmt(Math.max(...sequential)),
      ratio: `${fmt(Math.max(...pipelined) / Math.max(...sequential), 0)}x`,
    });
    rows.push({
      benchmark: title,
      measure: `  pipelined: blocks used, orders in each`,
      value: `${pipelined.length}: ${pipelined.join(' / ')}`,
    });
    rows.push({
      benchmark: title,
      measure: 'place to send, ms, pipelined: p50 / p99',
      value: `${fmt(percentile(samples, 0.5), 2)} / ${fmt(percentile(samples, 0.99), 2)}`,
    });
    rows.push({
      benchmark: title,
      measure: 'place to send, ms, idle wallet (simulation + allowance read): p50 / max',
      value: `${fmt(percentile(idleTimes, 0.5), 2)} / ${fmt(Math.max(...idleTimes), 2)}`,
    });
    await h.provider.send('evm_setIntervalMining', [0]);
    await h.provider.send('evm_setAutomine', [true]);
    rows.push(await ethersBaseline(h, pair));
    return rows;
  } finally {
    await adapter.close();
    store.close();
  }
}

/** The same order through an ethers `Contract` with a `Wallet` (populates nonce, gas and fees per call). */
async function ethersBaseline(h: Harness, pair: PairBinding): Promise<Row> {
  const wallet = new Wallet(h.signer('other').privateKey, h.provider);
  const book = new Contract(pair.orderBook, [...ORDER_BOOK_ABI], wallet);
  await (
    await new Contract(pair.quoteToken, ['function approve(address,uint256)'], wallet)
      .getFunction('approve')
      .send(pair.orderBook, 10n ** 12n)
  ).wait();
  const od = `0x${5_000n.toString(16).padStart(64, '0')}${950_000n.toString(16).padStart(64, '0')}`;
  const times: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    await book.getFunction('newBuyOrder').send(od, `0x${'0'.repeat(128)}`, `0x${'0'.repeat(64)}`);
    times.push(performance.now() - t0);
  }
  return {
    benchmark: title,
    measure: '  ethers Contract call to node acceptance, ms (automine): p50 / p99',
    value: `${fmt(percentile(times, 0.5), 2)} / ${fmt(percentile(times, 0.99), 2)}`,
  };
}

const WALLET = '0x1111111111111111111111111111111111111111';
const BOOK = '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const QUOTE = '0xcccccccccccccccccccccccccccccccccccccccc';
const BASE = '0xdddddddddddddddddddddddddddddddddddddddd';

const blockHash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const header = (n: number) => ({
  number: `0x${n.toString(16)}`,
  hash: blockHash(n),
  timestamp: `0x${(1_700_000_000 + n * 2).toString(16)}`,
});

/** One transition of the core's order state machine; the benchmark's events must all apply. */
function step(o: OrderRecord, e: OrderEvent): OrderRecord {
  const r = applyOrderEvent(o, e);
  if (!r.ok) throw new Error(r.reason);
  return r.order;
}

/** One log as a node serves it: five logs per transaction. */
function log(
  address: string,
  iface: typeof orderBookInterface,
  name: string,
  values: unknown[],
  block: number,
  index: number,
) {
  const { data, topics } = iface.encodeEventLog(iface.getEvent(name) as EventFragment, values);
  const tx = `0x${(block * 1000 + Math.floor(index / 5)).toString(16).padStart(64, 'e')}`;
  return {
    address,
    topics,
    data,
    blockNumber: `0x${block.toString(16)}`,
    blockHash: blockHash(block),
    transactionHash: tx,
    logIndex: `0x${index.toString(16)}`,
    removed: false,
  };
}

/** A node's JSON for a round of `orders` orders: each received, funded, resting and later cancelled with its refund (5 logs). */
function syntheticRound(orders: number): { books: string; transfers: string; blocks: number } {
  const book: unknown[] = [];
  const transfers: unknown[] = [];
  for (let i = 0; i < orders; i++) {
    const block = 1 + Math.floor(i / 50);
    const at = (i % 50) * 5;
    const id = BigInt(i + 1);
    book.push(
      log(
        BOOK,
        orderBookInterface,
        'OrderReceived',
        [WALLET, id, 5_000n, 950_000n, 1, `0x${'00'.repeat(64)}`, id, 0, 0],
        block,
        at,
      ),
    );
    transfers.push(log(QUOTE, erc20Interface, 'Transfer', [WALLET, BOOK, 475_475n], block, at + 1));
    book.push(log(BOOK, orderBookInterface, 'NewBuyOrder', [WALLET, 5_000n, 950_000n, id], block, at + 2));
    book.push(
      log(BOOK, orderBookInterface, 'CancelOrder', [WALLET, id, 5_000n, 950_000n, 0, QUOTE, WALLET], block, at + 3),
    );
    transfers.push(log(QUOTE, erc20Interface, 'Transfer', [BOOK, WALLET, 475_475n], block, at + 4));
  }
  return {
    books: JSON.stringify(book),
    transfers: JSON.stringify(transfers),
    blocks: 1 + Math.floor((orders - 1) / 50),
  };
}

async function events(): Promise<Row[]> {
  const ORDERS = 6000;
  const round = syntheticRound(ORDERS);
  const pair: PairBinding = {
    pairId: 'p',
    symbol: 'P',
    chain: 'evm',
    orderBook: BOOK,
    baseToken: BASE,
    quoteToken: QUOTE,
    rules: derivePairRules(pairWith('evm-pair')),
  };
  const transport = async (method: string, params: readonly unknown[]): Promise<unknown> => {
    if (method === 'eth_getBlockByNumber') return header(params[0] === 'latest' ? round.blocks : Number(params[0]));
    if (method !== 'eth_getLogs') throw new Error(method);
    const filter = params[0] as { topics: unknown[] };
    if (Array.isArray(filter.topics[0])) return JSON.parse(round.books) as unknown;
    // The wallet sends the lock and receives the refund: the "from" and "to" queries split the transfers.
    const all = JSON.parse(round.transfers) as { topics: string[] }[];
    return all.filter((l, i) => (filter.topics[1] === null ? i % 2 === 1 : i % 2 === 0));
  };
  const options = {
    ...resolveOptions({ rpcUrl: '', chainId: 1n, privateKey: '', journal: null as never }).follower,
    confirmations: 0,
    maxBlockRange: 10_000,
  };
  const runOnce = async (): Promise<{ ms: number; delivered: number }> => {
    const rpc = new EvmRpc(transport, null, silentLogger());
    const orders = new Map<bigint, OrderRecord>();
    let delivered = 0;
    const apply = (e: ChainEvent) => {
      delivered += 1;
      if (e.type === 'Transfer') return;
      let o =
        orders.get(e.orderId) ??
        newOrder({ clientOrderId: e.orderId, pairId: e.pairId, side: 'buy', quantity: 5_000n, price: 950_000n });
      if (e.type === 'OrderReceived')
        o = step(step(o, { type: 'SubmissionSent', txHash: e.txHash }), { type: 'Accepted', orderId: e.orderId });
      else if (e.type === 'OrderResting') o = step(o, { type: 'Rested', quantity: e.quantity });
      else if (e.type === 'OrderCancelled')
        o = step(o, { type: 'Cancelled', by: e.cancellationType, quantity: e.quantity });
      orders.set(e.orderId, o);
    };
    const onNotice = async (n: FollowerNotice) => {
      if (n.kind === 'events') for (const e of n.events) apply(e);
    };
    const deps = {
      rpc,
      blocks: new BlockCache(rpc),
      clock: systemClock,
      sleep: systemClock.sleep,
      options,
      metrics: null,
      logger: silentLogger(),
      wallet: WALLET,
      state: null,
    };
    const f = new EvmFollower(deps, [pair], { chain: 'evm', height: 0n, blockHash: header(0).hash }, onNotice);
    const t0 = performance.now();
    await f.round();
    const ms = performance.now() - t0;
    if ([...orders.values()].some((o) => o.status !== 'cancelled') || orders.size !== ORDERS)
      throw new Error('events were not applied');
    return { ms, delivered };
  };
  await runOnce();
  const runs: { ms: number; delivered: number }[] = [];
  for (let i = 0; i < 5; i++) runs.push(await runOnce());
  const best = percentile(
    runs.map((r) => r.delivered / (r.ms / 1000)),
    0.5,
  );

  const raw = (JSON.parse(round.books) as unknown[]).slice(0, 3000);
  const ctx = { books: new Map([[BOOK, 'p']]), tokens: new Map(), wallet: WALLET };
  const [ours, theirs] = compare([
    { name: 'ours', fn: () => raw.map((l) => decodeLog(parseRawLog(l), ctx, 0)) },
    { name: 'ethers', fn: () => raw.map((l) => orderBookInterface.parseLog(l as { topics: string[]; data: string })) },
  ]);
  return [
    {
      benchmark: title,
      measure: `events decoded and applied per second (follower round, ${fmt(ORDERS * 5)} logs from JSON)`,
      value: fmt(best),
    },
    {
      benchmark: title,
      measure: '  decoding alone, logs per second: ours vs ethers Interface.parseLog',
      value: fmt((ours?.opsPerSecond ?? 0) * raw.length),
      baseline: fmt((theirs?.opsPerSecond ?? 0) * raw.length),
      ratio: `${fmt((ours?.opsPerSecond ?? 0) / (theirs?.opsPerSecond ?? 1), 1)}x`,
    },
  ];
}

export async function run(): Promise<Row[]> {
  const FUNDED = { balances: { BOND26: '1000', EURe: '1000000' } };
  const h = await Harness.start(pairWith('evm-pair'), {}, [
    { name: 'bot', ...FUNDED },
    { name: 'other', ...FUNDED },
  ]);
  try {
    return [...(await blocks(h)), ...(await events())];
  } finally {
    await h.stop();
  }
}
