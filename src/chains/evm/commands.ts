/**
 * Commands as order book calls, encoded by the core (`encodeOrder('evm', ...)`, our client order id as the cross
 * identifier), and what logs say about them: pair, side, human price and quantity, ids.
 */
import { formatDecimal } from '../../core/decimal.ts';
import { encodeOrder } from '../../core/encoding/order-codec.ts';
import type { CancelCommand, PlaceCommand } from '../types.ts';
import { erc20Interface, orderBookInterface } from './abi.ts';

const selector = (name: string) => (orderBookInterface.getFunction(name) as { selector: string }).selector.slice(2);
const NEW_BUY = selector('newBuyOrder');
const NEW_SELL = selector('newSellOrder');
const word = (n: number) => n.toString(16).padStart(64, '0');

/**
 * ABI calldata of a function whose arguments are all `bytes`, written directly: it is on the place-to-send
 * path, where the generic encoder costs several times more (a unit test checks it against ethers).
 */
export function bytesCall(selectorHex: string, args: readonly Uint8Array[]): string {
  const heads: string[] = [];
  const tails: string[] = [];
  let offset = args.length * 32;
  for (const a of args) {
    heads.push(word(offset));
    const padded = Math.ceil(a.length / 32) * 32;
    tails.push(
      word(a.length) +
        Buffer.from(a)
          .toString('hex')
          .padEnd(padded * 2, '0'),
    );
    offset += 32 + padded;
  }
  return `0x${selectorHex}${heads.join('')}${tails.join('')}`;
}

/** `newBuyOrder` / `newSellOrder(orderData, reportingData, crossIdentifier)`; throws the core's errors. */
export function placeCalldata(c: PlaceCommand): string {
  const e = encodeOrder('evm', c.terms, c.pair.rules.scales, c.clientOrderId, c.reporting);
  return bytesCall(c.terms.side === 'buy' ? NEW_BUY : NEW_SELL, [e.orderData, e.reportingData, e.crossIdentifier]);
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
