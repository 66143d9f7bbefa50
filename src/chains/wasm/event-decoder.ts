/**
 * Chain B order book and token events as `ChainEvent`s. The topic vector is the stable part (specification:
 * topic[0] the event name, topic[1] the client, topic[2] the order id where the table puts it); data vectors
 * may change between order book versions, so they are read liberally: integers of any width, the trailing
 * `event_id` ignored, and the layouts the specification does not show (trade events, the extras of
 * `OrderReceived`) read by position with fallbacks. An event of ours that still cannot be read throws
 * `Malformed`; events of other clients and other kinds are `null`.
 */
import { SIDE_BY_CODE, cancellationTypeOf, type Side } from '../../core/order-terms.ts';
import type { ChainEvent, EventMeta, PairBinding, TokenRole } from '../types.ts';
import {
  address,
  decodeScVal,
  fields,
  integer,
  isInteger,
  Malformed,
  small,
  text,
  unsigned,
  vec,
  type ScVal,
} from './scval.ts';

/** What the decoder needs to know: whose events, and which contract is which pair's book or token. */
export class EventBindings {
  readonly wallet: string;
  readonly books = new Map<string, PairBinding>();
  readonly tokens = new Map<string, { readonly pair: PairBinding; readonly role: TokenRole }>();

  constructor(wallet: string, pairs: readonly PairBinding[]) {
    this.wallet = wallet;
    for (const p of pairs) {
      this.books.set(p.orderBook, p);
      // A token shared by several pairs (one quote currency) is reported under the first pair that names it.
      if (!this.tokens.has(p.baseToken)) this.tokens.set(p.baseToken, { pair: p, role: 'base' });
      if (!this.tokens.has(p.quoteToken)) this.tokens.set(p.quoteToken, { pair: p, role: 'quote' });
    }
  }
}

type Where = Omit<EventMeta, 'pairId'>;

function sideNamed(name: string): Side {
  return name.startsWith('NewBuy') ? 'buy' : 'sell';
}

function sideCode(v: ScVal | undefined, what: string): Side {
  const s = SIDE_BY_CODE.get(small(v, what));
  if (s === undefined) throw new Malformed(`${what}: not 1 (buy) or 2 (sell)`);
  return s;
}

/** The data vector without a trailing u128 `event_id` (it is not part of any field). */
function payload(data: ScVal): ScVal[] {
  const d = vec(data, 'data');
  return d.length > 0 && d[d.length - 1]?.type === 9 ? d.slice(0, -1) : d;
}

type BookMeta = Where & { readonly pairId: string };

const clientOf = (topics: readonly ScVal[]): string => address(topics[1], 'topic[1] client');
const topicOrderId = (topics: readonly ScVal[]): bigint => unsigned(topics[2], 'topic[2] order_id');

function bookEvent(
  name: string,
  pair: PairBinding,
  topics: readonly ScVal[],
  data: ScVal,
  where: Where,
): ChainEvent | null {
  const meta = { ...where, pairId: pair.pairId };
  switch (name) {
    case 'OrderReceived':
      return orderReceived(meta, topics, data);
    case 'NewBuyOrder':
    case 'NewSellOrder':
      return orderResting(meta, name, topics, data);
    case 'NewBuyInitiatedTrade':
    case 'NewSellInitiatedTrade':
      return trade(meta, name, topics, data);
    case 'CancelOrder':
      return orderCancelled(meta, topics, data);
    case 'OrderRejected':
      return orderRejected(meta, topics, data);
    default:
      return null;
  }
}

function orderReceived(meta: BookMeta, topics: readonly ScVal[], data: ScVal): ChainEvent {
  const d = payload(data);
  // Extras after quantity and price, by position as chain A lists them: side, reporting data,
  // cross identifier, order type, execution condition. Only the integers count (reporting data is bytes).
  const ints = d.slice(2).filter(isInteger);
  return {
    ...meta,
    type: 'OrderReceived',
    orderId: topicOrderId(topics),
    client: clientOf(topics),
    quantity: unsigned(d[0], 'quantity'),
    price: unsigned(d[1], 'price'),
    side: sideCode(ints[0], 'side'),
    crossIdentifier: ints[1] === undefined ? 0n : unsigned(ints[1], 'cross_identifier', 32),
    orderType: ints[2] === undefined ? 0 : small(ints[2], 'order_type'),
    executionCondition: ints[3] === undefined ? 0 : small(ints[3], 'execution_condition'),
  };
}

function orderResting(meta: BookMeta, name: string, topics: readonly ScVal[], data: ScVal): ChainEvent {
  const d = payload(data);
  return {
    ...meta,
    type: 'OrderResting',
    orderId: unsigned(d[0], 'order_id'),
    client: clientOf(topics),
    side: sideNamed(name),
    quantity: unsigned(d[1], 'quantity'),
    price: unsigned(d[2], 'price'),
  };
}

function trade(meta: BookMeta, name: string, topics: readonly ScVal[], data: ScVal): ChainEvent {
  // Layout not specified: the order id in topic[2] (as for the other per-order events), or else the
  // first u64 of the data (as for NewBuyOrder); quantity and price follow.
  const d = payload(data);
  const inTopic = topics[2] !== undefined;
  const rest = inTopic ? d : d.slice(1);
  return {
    ...meta,
    type: 'Trade',
    orderId: inTopic ? topicOrderId(topics) : unsigned(d[0], 'order_id'),
    client: clientOf(topics),
    side: sideNamed(name),
    quantity: unsigned(rest[0], 'quantity'),
    price: unsigned(rest[1], 'price'),
  };
}

function orderCancelled(meta: BookMeta, topics: readonly ScVal[], data: ScVal): ChainEvent {
  const d = payload(data);
  const type = cancellationTypeOf(small(d[2], 'cancellation_type'));
  if (type === undefined) throw new Malformed('cancellation_type is not 0, 1 or 2');
  return {
    ...meta,
    type: 'OrderCancelled',
    orderId: topicOrderId(topics),
    client: clientOf(topics),
    quantity: unsigned(d[0], 'quantity'),
    price: unsigned(d[1], 'price'),
    cancellationType: type,
    token: address(d[3], 'token'),
    toAddress: address(d[4], 'to_address'),
  };
}

function orderRejected(meta: BookMeta, topics: readonly ScVal[], data: ScVal): ChainEvent {
  const d = vec(data, 'data');
  const side = d[2] === undefined ? null : (SIDE_BY_CODE.get(small(d[2], 'side')) ?? null);
  return {
    ...meta,
    type: 'OrderRejected',
    orderId: topicOrderId(topics),
    client: clientOf(topics),
    reason: small(d[0], 'reason'),
    quantityNotExecuted: unsigned(d[1], 'quantity_not_executed'),
    side,
    price: d[3] === undefined ? 0n : unsigned(d[3], 'price'),
  };
}

/** SEP-41 `transfer`: topics `["transfer", from, to, ...]`, data the i128 amount or a map with `amount`. */
function transferEvent(
  b: EventBindings,
  token: { pair: PairBinding; role: TokenRole },
  topics: readonly ScVal[],
  data: ScVal,
  where: Where,
): ChainEvent | null {
  const from = address(topics[1], 'topic[1] from');
  const to = address(topics[2], 'topic[2] to');
  if (from !== b.wallet && to !== b.wallet) return null;
  const amount = data.type === 17 ? integer(fields(data, 'data').get('amount'), 'amount') : integer(data, 'amount');
  if (amount < 0n) throw new Malformed(`transfer amount ${amount} is negative`);
  return { ...where, pairId: token.pair.pairId, type: 'Transfer', token: token.role, from, to, amount };
}

/**
 * One contract event as a ChainEvent of the wallet, or null (another contract, another client, another kind
 * of event); throws `Malformed` when an event that should be ours cannot be read. `anyClient` keeps the order
 * book events of other clients too (the trade event of an incoming order that filled ours).
 */
export function decodeContractEvent(
  b: EventBindings,
  contractId: string,
  topics: readonly ScVal[],
  data: ScVal,
  where: Where,
  anyClient = false,
): ChainEvent | null {
  const book = b.books.get(contractId);
  const token = book === undefined ? b.tokens.get(contractId) : undefined;
  if (book === undefined && token === undefined) return null;
  const name = text(topics[0], 'topic[0] event name');
  if (token !== undefined) return name === 'transfer' ? transferEvent(b, token, topics, data, where) : null;
  if (!anyClient && topics[1]?.type === 18 && address(topics[1], 'topic[1] client') !== b.wallet) return null;
  return bookEvent(name, book as PairBinding, topics, data, where);
}

function field<T>(o: Record<string, unknown>, k: string, check: (v: unknown) => v is T): T {
  const v = o[k];
  if (!check(v)) throw new Malformed(`event field ${k} is missing or of the wrong type`);
  return v;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

/** The raw event ids and positions a follower needs even when the event itself does not decode. */
export function rawEventId(raw: unknown): { id: string; ledger: number } | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const o = raw as Record<string, unknown>;
  return isString(o.id) && isNumber(o.ledger) ? { id: o.id, ledger: o.ledger } : null;
}

/** A getEvents item as a ChainEvent of the wallet (of any client with `anyClient`), or null; throws `Malformed`. */
export function decodeRpcEvent(b: EventBindings, raw: unknown, anyClient = false): ChainEvent | null {
  if (typeof raw !== 'object' || raw === null) throw new Malformed('event is not an object');
  const o = raw as Record<string, unknown>;
  const contractId = field(o, 'contractId', isString);
  if (!b.books.has(contractId) && !b.tokens.has(contractId)) return null;
  const topics = field(o, 'topic', isStrings).map(decodeScVal);
  const data = decodeScVal(o.value);
  const closedAt = Date.parse(field(o, 'ledgerClosedAt', isString));
  if (Number.isNaN(closedAt)) throw new Malformed('ledgerClosedAt is not a date');
  const where: Where = {
    key: field(o, 'id', isString),
    txHash: field(o, 'txHash', isString),
    height: BigInt(field(o, 'ledger', isNumber)),
    blockHash: null,
    timeMs: closedAt,
  };
  return decodeContractEvent(b, contractId, topics, data, where, anyClient);
}
