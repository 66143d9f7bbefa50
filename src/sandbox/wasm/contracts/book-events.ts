/**
 * The order book's chain B events: a topic vector (event name as a symbol, the client address, and for
 * `OrderReceived`, `CancelOrder`, `OrderRejected` and the trade events the u64 order id) and a data vector
 * ending in a per-contract u128 `event_id` (except `OrderRejected`, whose data the specification fixes as
 * reason, quantity not executed, side, price). Encoding and decoding live together so they cannot drift.
 */
import type { BookEvent, Token } from '../../matching/types.ts';
import { fromScAddress, read, scv, u128Of, type ScVal } from '../scval.ts';

export interface EncodedEvent {
  readonly topics: ScVal[];
  readonly data: ScVal;
}

/** Token contract addresses, to name the asset a cancellation returns. */
export interface TokenAddresses {
  readonly base: string;
  readonly quote: string;
}

export function encodeBookEvent(e: BookEvent, eventId: bigint, tokens: TokenAddresses): EncodedEvent {
  const head = [scv.sym(e.type), scv.address(e.client)];
  switch (e.type) {
    case 'OrderReceived':
      return {
        topics: [...head, scv.u64(e.orderId)],
        data: scv.vec([
          scv.u64(e.quantity),
          scv.u64(e.price),
          scv.u32(e.side),
          scv.bytes(e.reportingData),
          scv.u32(Number(e.crossIdentifier)),
          scv.u32(e.orderType),
          scv.u32(e.executionCondition),
          scv.u128(eventId),
        ]),
      };
    case 'NewBuyOrder':
    case 'NewSellOrder':
      return {
        topics: head,
        data: scv.vec([scv.u64(e.orderId), scv.u64(e.quantity), scv.u64(e.price), scv.u128(eventId)]),
      };
    case 'NewBuyInitiatedTrade':
    case 'NewSellInitiatedTrade':
      return {
        topics: [...head, scv.u64(e.orderId)],
        data: scv.vec([scv.u64(e.quantity), scv.u64(e.price), scv.u128(eventId)]),
      };
    case 'CancelOrder':
      return {
        topics: [...head, scv.u64(e.orderId)],
        data: scv.vec([
          scv.u64(e.quantity),
          scv.u64(e.price),
          scv.u32(e.cancellationType),
          scv.address(tokens[e.token]),
          scv.address(e.toAddress),
          scv.u128(eventId),
        ]),
      };
    case 'OrderRejected':
      return {
        topics: [...head, scv.u64(e.orderId)],
        data: scv.vec([scv.u32(e.reason), scv.u64(e.quantityNotExecuted), scv.u32(e.side), scv.u64(e.price)]),
      };
  }
}

/** Whether an event carries (and so consumes) an `event_id`. */
export function hasEventId(e: BookEvent): boolean {
  return e.type !== 'OrderRejected';
}

export type DecodedBookEvent = BookEvent & { readonly eventId: bigint | null };

function side(n: number): 1 | 2 {
  return n === 1 ? 1 : 2;
}

/** Reads an order book event back; undefined for an event of another kind (token events, for example). */
export function decodeBookEvent(
  topics: readonly ScVal[],
  data: ScVal,
  tokens: TokenAddresses,
): DecodedBookEvent | undefined {
  const [name, client, id] = topics;
  if (name?.type !== 15 || client?.type !== 18 || data.type !== 16 || data.vec === null) return undefined;
  const type = name.sym.toString();
  const d = data.vec;
  const c = fromScAddress(client.address);
  const orderId = () => read.u64(id, 'order_id');
  switch (type) {
    case 'OrderReceived':
      return {
        type,
        client: c,
        orderId: orderId(),
        quantity: read.u64(d[0], 'quantity'),
        price: read.u64(d[1], 'price'),
        side: side(read.u32(d[2], 'side')),
        reportingData: read.bytes(d[3], 'reporting_data'),
        crossIdentifier: BigInt(read.u32(d[4], 'cross_identifier')),
        orderType: read.u32(d[5], 'order_type') === 1 ? 1 : 0,
        executionCondition: read.u32(d[6], 'execution_condition') as 0 | 1 | 2 | 3,
        eventId: u128Of(d[7] as ScVal),
      };
    case 'NewBuyOrder':
    case 'NewSellOrder':
      return {
        type,
        client: c,
        orderId: read.u64(d[0], 'order_id'),
        quantity: read.u64(d[1], 'quantity'),
        price: read.u64(d[2], 'price'),
        eventId: u128Of(d[3] as ScVal),
      };
    case 'NewBuyInitiatedTrade':
    case 'NewSellInitiatedTrade':
      return {
        type,
        client: c,
        orderId: orderId(),
        quantity: read.u64(d[0], 'quantity'),
        price: read.u64(d[1], 'price'),
        eventId: u128Of(d[2] as ScVal),
      };
    case 'CancelOrder': {
      const token: Token = read.address(d[3], 'token') === tokens.base ? 'base' : 'quote';
      return {
        type,
        client: c,
        orderId: orderId(),
        quantity: read.u64(d[0], 'quantity'),
        price: read.u64(d[1], 'price'),
        cancellationType: read.u32(d[2], 'cancellation_type') as 0 | 1 | 2,
        token,
        toAddress: read.address(d[4], 'to_address'),
        eventId: u128Of(d[5] as ScVal),
      };
    }
    case 'OrderRejected':
      return {
        type,
        client: c,
        orderId: orderId(),
        reason: read.u32(d[0], 'reason'),
        quantityNotExecuted: read.u64(d[1], 'quantity_not_executed'),
        side: side(read.u32(d[2], 'side')),
        price: read.u64(d[3], 'price'),
        eventId: null,
      };
    default:
      return undefined;
  }
}
