/**
 * Commands as order book calls, encoded by the core (`encodeOrder('evm', ...)`, our client order id as the cross
 * identifier), and what logs say about them: pair, side, human price and quantity, ids.
 */
import { formatDecimal } from '../../core/decimal.ts';
import { encodeOrder } from '../../core/encoding/order-codec.ts';
import type { CancelCommand, PlaceCommand } from '../types.ts';
import { erc20Interface, orderBookInterface } from './abi.ts';

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

/** `newBuyOrder` / `newSellOrder(orderData, reportingData, crossIdentifier)`; throws the core's errors. */
export function placeCalldata(c: PlaceCommand): string {
  const e = encodeOrder('evm', c.terms, c.pair.rules.scales, c.clientOrderId, c.reporting);
  return orderBookInterface.encodeFunctionData(c.terms.side === 'buy' ? 'newBuyOrder' : 'newSellOrder', [hex(e.orderData), hex(e.reportingData), hex(e.crossIdentifier)]);
}

export function cancelCalldata(c: CancelCommand): string {
  return orderBookInterface.encodeFunctionData(c.side === 'buy' ? 'cancelBuyOrder' : 'cancelSellOrder', [c.orderId]);
}

export function approveCalldata(spender: string, amount: bigint): string {
  return erc20Interface.encodeFunctionData('approve', [spender, amount]);
}

export function placeContext(c: PlaceCommand): Record<string, unknown> {
  return {
    pairId: c.pair.pairId,
    symbol: c.pair.symbol,
    side: c.terms.side,
    price: formatDecimal(c.terms.price),
    quantity: formatDecimal(c.terms.quantity),
    clientOrderId: c.clientOrderId.toString(),
  };
}

export function cancelContext(c: CancelCommand): Record<string, unknown> {
  return { pairId: c.pair.pairId, symbol: c.pair.symbol, side: c.side, orderId: c.orderId.toString() };
}
