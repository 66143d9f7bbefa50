/**
 * The contract calls the adapter signs, with the argument types of the specification's method tables:
 * `new_buy_order`/`new_sell_order(user, order_data, cross_identifier, reporting_data)` with the core's
 * chain B encodings, `cancel_buy_order`/`cancel_sell_order(user, order_id)`, and the token's
 * `approve(from, spender, amount, expiration_ledger)`.
 */
import { Address, nativeToScVal } from '@stellar/stellar-sdk';
import type { EncodedOrder } from '../../core/encoding/order-codec.ts';
import type { Side } from '../../core/order-terms.ts';
import type { Invocation } from './envelope.ts';

export function placeCall(orderBook: string, user: string, order: EncodedOrder): Invocation {
  return {
    contract: orderBook,
    fn: order.side === 'buy' ? 'new_buy_order' : 'new_sell_order',
    args: [
      new Address(user).toScVal(),
      nativeToScVal(order.orderData),
      nativeToScVal(order.crossIdentifier),
      nativeToScVal(order.reportingData),
    ],
  };
}

export function cancelCall(orderBook: string, user: string, side: Side, orderId: bigint): Invocation {
  return {
    contract: orderBook,
    fn: side === 'buy' ? 'cancel_buy_order' : 'cancel_sell_order',
    args: [new Address(user).toScVal(), nativeToScVal(orderId, { type: 'u64' })],
  };
}

export function approveCall(
  token: string,
  from: string,
  spender: string,
  amount: bigint,
  expirationLedger: number,
): Invocation {
  return {
    contract: token,
    fn: 'approve',
    args: [
      new Address(from).toScVal(),
      new Address(spender).toScVal(),
      nativeToScVal(amount, { type: 'i128' }),
      nativeToScVal(expirationLedger, { type: 'u32' }),
    ],
  };
}
