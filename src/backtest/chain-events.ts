/**
 * The matching engine's events of one transaction as the chain adapters decode them (`ChainEvent`), with the
 * token movements the transaction made: what a chain follower hands the engine. The transfers follow the
 * first event (their place in the log is not part of the contract).
 */
import type { ChainEvent, PairBinding } from '../chains/types.ts';
import { SIDE_BY_CODE, type Side } from '../core/order-terms.ts';
import type { BookEvent, Token } from '../sandbox/matching/types.ts';

/** A token movement made while a transaction ran (raw native units). */
export interface Move {
  readonly token: Token;
  readonly from: string;
  readonly to: string;
  readonly amount: bigint;
}

const side = (code: 1 | 2): Side => SIDE_BY_CODE.get(code) as Side;

type Bare<T> = T extends unknown ? Omit<T, 'key' | 'pairId' | 'txHash' | 'height' | 'blockHash' | 'timeMs'> : never;
export type BareEvent = Bare<ChainEvent>;

/** Book events as the adapters decode them; the transfers follow the first event (their order is not part of the contract). */
export function toChainEvents(
  events: readonly BookEvent[],
  moves: readonly Move[],
  b: PairBinding,
  tokenOf: (t: Token) => string,
): BareEvent[] {
  const book: BareEvent[] = events.map((e): BareEvent => {
    switch (e.type) {
      case 'OrderReceived':
        return {
          type: 'OrderReceived',
          orderId: e.orderId,
          client: e.client,
          quantity: e.quantity,
          price: e.price,
          side: side(e.side),
          crossIdentifier: e.crossIdentifier,
          orderType: e.orderType,
          executionCondition: e.executionCondition,
        };
      case 'OrderRejected':
        return {
          type: 'OrderRejected',
          orderId: e.orderId,
          client: e.client,
          reason: e.reason,
          quantityNotExecuted: e.quantityNotExecuted,
          side: side(e.side),
          price: e.price,
        };
      case 'NewBuyOrder':
      case 'NewSellOrder':
        return {
          type: 'OrderResting',
          orderId: e.orderId,
          client: e.client,
          side: e.type === 'NewBuyOrder' ? 'buy' : 'sell',
          quantity: e.quantity,
          price: e.price,
        };
      case 'NewBuyInitiatedTrade':
      case 'NewSellInitiatedTrade':
        return {
          type: 'Trade',
          orderId: e.orderId,
          client: e.client,
          side: e.type === 'NewBuyInitiatedTrade' ? 'buy' : 'sell',
          quantity: e.quantity,
          price: e.price,
        };
      case 'CancelOrder':
        return {
          type: 'OrderCancelled',
          orderId: e.orderId,
          client: e.client,
          quantity: e.quantity,
          price: e.price,
          cancellationType: (['ByParticipant', 'ByAdmin', 'ByContract'] as const)[e.cancellationType],
          token: tokenOf(e.token),
          toAddress: e.toAddress,
        };
    }
  });
  const transfers: BareEvent[] = moves.map((m) => ({
    type: 'Transfer',
    token: m.token,
    from: m.from,
    to: m.to,
    amount: m.amount,
  }));
  return [...book.slice(0, 1), ...transfers, ...book.slice(1)];
}
