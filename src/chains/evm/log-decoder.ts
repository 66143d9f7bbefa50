/**
 * Chain A logs to `ChainEvent`s. The layouts are fixed by the ABI in `abi.ts` (indexed parameters in topics,
 * the rest as 32-byte words of data), so each event is read word by word instead of through a generic ABI
 * decoder: the follower decodes tens of thousands of logs per second this way. Everything is checked (topic
 * count, word count, value ranges); a log that fails is `Malformed`, and callers count and skip it.
 */
import { getAddress } from 'ethers';
import { cancellationTypeOf, SIDE_BY_CODE } from '../../core/order-terms.ts';
import type { ChainEvent, PairBinding, TokenRole } from '../types.ts';
import { TOPICS } from './abi.ts';
import { BoundedMemo } from '../../core/bounded-memo.ts';

export class Malformed extends Error {
  override readonly name = 'Malformed';
}

export interface RawLog {
  /** Lower case. */
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly txHash: string;
  readonly logIndex: number;
  readonly removed: boolean;
}

export interface DecodeContext {
  /** Order book address (lower case) -> pair id. */
  readonly books: ReadonlyMap<string, string>;
  /** Token address (lower case) -> its role and the pairs trading it (a quote token is shared). */
  readonly tokens: ReadonlyMap<string, { readonly role: TokenRole; readonly pairIds: readonly string[] }>;
  /** The wallet (lower case): transfers and lifecycle events of others are not ours. */
  readonly wallet: string;
}

/** Which books and tokens are the pairs', for the wallet (addresses in lower case). */
export function decodeContextOf(pairs: readonly PairBinding[], wallet: string): DecodeContext {
  const books = new Map(pairs.map((p) => [p.orderBook.toLowerCase(), p.pairId]));
  const tokens = new Map<string, { role: 'base' | 'quote'; pairIds: string[] }>();
  for (const p of pairs) {
    for (const [role, address] of [
      ['base', p.baseToken],
      ['quote', p.quoteToken],
    ] as const) {
      const t = tokens.get(address.toLowerCase());
      if (t === undefined) tokens.set(address.toLowerCase(), { role, pairIds: [p.pairId] });
      else if (!t.pairIds.includes(p.pairId)) t.pairIds.push(p.pairId);
    }
  }
  return { books, tokens, wallet: wallet.toLowerCase() };
}

const HASH = /^0x[0-9a-f]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DATA = /^0x(?:[0-9a-fA-F]{2})*$/;
const QUANTITY = /^0x[0-9a-fA-F]{1,16}$/;
const ZEROS_48 = '0'.repeat(48);
const ZEROS_62 = '0'.repeat(62);
const ZEROS_24 = '0'.repeat(24);

function quantity(v: unknown, what: string): bigint {
  if (typeof v !== 'string' || !QUANTITY.test(v)) throw new Malformed(`${what} is not a hex quantity`);
  return BigInt(v);
}

function hash(v: unknown, what: string): string {
  const s = typeof v === 'string' ? v.toLowerCase() : v;
  if (typeof s !== 'string' || !HASH.test(s)) throw new Malformed(`${what} is not a 32-byte hash`);
  return s;
}

/** Checks the envelope of one log of an `eth_getLogs` reply or a receipt. */
export function parseRawLog(v: unknown): RawLog {
  if (typeof v !== 'object' || v === null) throw new Malformed('log is not an object');
  const l = v as Record<string, unknown>;
  if (typeof l.address !== 'string' || !ADDRESS.test(l.address)) throw new Malformed('log address is not an address');
  if (!Array.isArray(l.topics) || l.topics.length === 0 || l.topics.length > 4)
    throw new Malformed('log topics are not 1 to 4 hashes');
  const topics = l.topics.map((t, i) => hash(t, `topic ${i}`));
  if (typeof l.data !== 'string' || !DATA.test(l.data)) throw new Malformed('log data is not hex');
  const logIndex = quantity(l.logIndex, 'log index');
  return {
    address: l.address.toLowerCase(),
    topics,
    data: l.data.toLowerCase(),
    blockNumber: quantity(l.blockNumber, 'log block number'),
    blockHash: hash(l.blockHash, 'log block hash'),
    txHash: hash(l.transactionHash, 'log transaction hash'),
    logIndex: Number(logIndex),
    removed: l.removed === true,
  };
}

const checksummed = new BoundedMemo<string, string>(10_000);

/** EIP-55 form of a lower-case address, cached (addresses repeat in every event). */
function checksum(lower: string): string {
  return checksummed.of(lower, getAddress);
}

function words(log: RawLog, min: number): number {
  const n = (log.data.length - 2) / 64;
  if (!Number.isInteger(n) || n < min)
    throw new Malformed(`data has ${(log.data.length - 2) / 2} bytes, expected at least ${min} words`);
  return n;
}

function word(hex: string, i: number): string {
  return hex.slice(2 + i * 64, 66 + i * 64);
}

function uint64(w: string, what: string): bigint {
  if (!w.startsWith(ZEROS_48)) throw new Malformed(`${what} does not fit in uint64`);
  return BigInt(`0x${w.slice(48)}`);
}

function uint8(w: string, what: string): number {
  if (!w.startsWith(ZEROS_62)) throw new Malformed(`${what} does not fit in uint8`);
  return Number.parseInt(w.slice(62), 16);
}

function address(w: string, what: string): string {
  if (!w.startsWith(ZEROS_24)) throw new Malformed(`${what} is not an address`);
  return checksum(`0x${w.slice(24)}`);
}

function topic(log: RawLog, i: number): string {
  return (log.topics[i] as string).slice(2);
}

function needTopics(log: RawLog, n: number, name: string): void {
  if (log.topics.length !== n)
    throw new Malformed(`${name} has ${log.topics.length} topics, expected ${n} (indexed parameters)`);
}

const side = (code: number, what: string) => {
  const s = SIDE_BY_CODE.get(code);
  if (s === undefined) throw new Malformed(`${what} ${code} is not a side`);
  return s;
};

/**
 * One log as an event of ours, or null when it is not one (another contract, another wallet's event, an event
 * the adapter does not follow). Throws `Malformed` when a log of a followed event does not have its layout.
 */
export function decodeLog(log: RawLog, ctx: DecodeContext, timeMs: number): ChainEvent | null {
  const t0 = log.topics[0];
  const pairId = ctx.books.get(log.address);
  const meta: Meta = {
    key: `${log.txHash}:${log.logIndex}`,
    txHash: log.txHash,
    height: log.blockNumber,
    blockHash: log.blockHash,
    timeMs,
  };
  if (pairId === undefined) return t0 === TOPICS.Transfer ? decodeTransfer(log, ctx, meta) : null;
  const m = { ...meta, pairId };
  switch (t0) {
    case TOPICS.OrderReceived:
      return orderReceived(log, m);
    case TOPICS.NewBuyOrder:
    case TOPICS.NewSellOrder:
    case TOPICS.NewBuyInitiatedTrade:
    case TOPICS.NewSellInitiatedTrade:
      return restingOrTrade(log, m, t0);
    case TOPICS.CancelOrder:
      return orderCancelled(log, m);
    case TOPICS.OrderRejected:
      return orderRejected(log, m);
    default:
      return null;
  }
}

function orderReceived(log: RawLog, m: BookMeta): ChainEvent {
  needTopics(log, 3, 'OrderReceived');
  words(log, 7);
  const d = log.data;
  return {
    ...m,
    type: 'OrderReceived',
    client: address(topic(log, 1), 'client'),
    orderId: uint64(topic(log, 2), 'orderId'),
    quantity: uint64(word(d, 0), 'quantity'),
    price: uint64(word(d, 1), 'price'),
    side: side(uint8(word(d, 2), 'side'), 'side'),
    crossIdentifier: uint64(word(d, 4), 'crossIdentifier'),
    orderType: uint8(word(d, 5), 'orderType'),
    executionCondition: uint8(word(d, 6), 'executionCondition'),
  };
}

/** `NewBuyOrder`/`NewSellOrder` (an order rests) and `NewBuyInitiatedTrade`/`NewSellInitiatedTrade` share a layout. */
function restingOrTrade(log: RawLog, m: BookMeta, t0: string): ChainEvent {
  const resting = t0 === TOPICS.NewBuyOrder || t0 === TOPICS.NewSellOrder;
  needTopics(log, 3, resting ? 'NewBuyOrder/NewSellOrder' : 'NewBuyInitiatedTrade/NewSellInitiatedTrade');
  words(log, 2);
  return {
    ...m,
    type: resting ? 'OrderResting' : 'Trade',
    client: address(topic(log, 1), 'client'),
    orderId: uint64(topic(log, 2), 'orderId'),
    side: t0 === TOPICS.NewBuyOrder || t0 === TOPICS.NewBuyInitiatedTrade ? 'buy' : 'sell',
    quantity: uint64(word(log.data, 0), 'quantity'),
    price: uint64(word(log.data, 1), 'price'),
  };
}

function orderCancelled(log: RawLog, m: BookMeta): ChainEvent {
  needTopics(log, 3, 'CancelOrder');
  words(log, 5);
  const code = uint8(word(log.data, 2), 'cancellationType');
  const by = cancellationTypeOf(code);
  if (by === undefined) throw new Malformed(`cancellationType ${code} is unknown`);
  return {
    ...m,
    type: 'OrderCancelled',
    client: address(topic(log, 1), 'client'),
    orderId: uint64(topic(log, 2), 'orderId'),
    quantity: uint64(word(log.data, 0), 'quantity'),
    price: uint64(word(log.data, 1), 'price'),
    cancellationType: by,
    token: address(word(log.data, 3), 'token'),
    toAddress: address(word(log.data, 4), 'toAddress'),
  };
}

function orderRejected(log: RawLog, m: BookMeta): ChainEvent {
  needTopics(log, 3, 'OrderRejected');
  words(log, 4);
  return {
    ...m,
    type: 'OrderRejected',
    client: address(topic(log, 1), 'client'),
    orderId: uint64(topic(log, 2), 'orderId'),
    reason: uint8(word(log.data, 0), 'reason'),
    quantityNotExecuted: uint64(word(log.data, 1), 'quantityNotExecuted'),
    side: SIDE_BY_CODE.get(uint8(word(log.data, 2), 'side')) ?? null,
    price: uint64(word(log.data, 3), 'price'),
  };
}

interface Meta {
  readonly key: string;
  readonly txHash: string;
  readonly height: bigint;
  readonly blockHash: string;
  readonly timeMs: number;
}

/** Where an order book's event was logged, and for which pair. */
interface BookMeta extends Meta {
  readonly pairId: string;
}

function decodeTransfer(log: RawLog, ctx: DecodeContext, meta: Meta): ChainEvent | null {
  const token = ctx.tokens.get(log.address);
  if (token === undefined) return null;
  needTopics(log, 3, 'Transfer');
  words(log, 1);
  const from = topic(log, 1);
  const to = topic(log, 2);
  const fromAddress = address(from, 'from');
  const toAddress = address(to, 'to');
  const wallet = ctx.wallet.slice(2);
  if (!from.endsWith(wallet) && !to.endsWith(wallet)) return null;
  // A shared quote token's movement belongs to the pair whose order book sent or received it.
  const counterparty = from.endsWith(wallet) ? `0x${to.slice(24)}` : `0x${from.slice(24)}`;
  const viaBook = ctx.books.get(counterparty);
  const pairId = viaBook !== undefined && token.pairIds.includes(viaBook) ? viaBook : (token.pairIds[0] as string);
  const w = word(log.data, 0);
  return {
    ...meta,
    pairId,
    type: 'Transfer',
    token: token.role,
    from: fromAddress,
    to: toAddress,
    amount: BigInt(`0x${w}`),
  };
}
