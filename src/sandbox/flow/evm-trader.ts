/**
 * A simulated trader's hands on chain A: signed `newBuyOrder` / `newSellOrder` with the v1 two-word order
 * encoding of the core, and cancellations, through a pipelined sender; each call resolves once mined, with
 * what the receipt's order book logs say about the order (its id, and the quantity that rested). A trader
 * sends the SDK's default cross identifier (the ABI word of 0), or, with `emptyCrossIdentifier`, empty bytes:
 * the venue's "any unique identifier or empty", as a client that leaves the field out sends it.
 */
import { Interface } from 'ethers';
import { encodeOrder } from '../../core/encoding/order-codec.ts';
import { DEFAULT_ORDER_OPTIONS, type Side } from '../../core/order-terms.ts';
import type { Decimal } from '../../core/decimal.ts';
import type { PairScales } from '../../core/units.ts';
import { loadArtifacts } from '../evm/compile.ts';
import type { EvmReceipt, EvmSender } from '../venue/evm-sender.ts';

/** Enough for a placement that matches `maximumMatches` resting orders on the sandbox's books. */
export const PLACE_GAS = 3_000_000n;
export const CANCEL_GAS = 300_000n;

export interface EvmPlacement {
  readonly receipt: EvmReceipt;
  readonly orderId?: bigint;
  /** Raw quantity that rests on the book after the placement (0 when none does). */
  readonly rested: bigint;
}

export interface EvmTraderOptions {
  /** Send every order with an empty cross identifier instead of the ABI word of 0. */
  readonly emptyCrossIdentifier?: boolean;
}

const EMPTY = new Uint8Array(0);

export class EvmTrader {
  readonly sender: EvmSender;
  readonly #iface = new Interface(loadArtifacts().contracts.OrderBook.abi as never);
  readonly #emptyCrossIdentifier: boolean;

  constructor(sender: EvmSender, options: EvmTraderOptions = {}) {
    this.sender = sender;
    this.#emptyCrossIdentifier = options.emptyCrossIdentifier ?? false;
  }

  get address(): string {
    return this.sender.address;
  }

  async place(
    orderBook: string,
    scales: PairScales,
    side: Side,
    quantity: Decimal,
    price: Decimal,
  ): Promise<EvmPlacement> {
    const o = encodeOrder('evm', { ...DEFAULT_ORDER_OPTIONS, side, quantity, price }, scales);
    const fn = side === 'buy' ? 'newBuyOrder' : 'newSellOrder';
    const cross = this.#emptyCrossIdentifier ? EMPTY : o.crossIdentifier;
    const data = this.#iface.encodeFunctionData(fn, [o.orderData, o.reportingData, cross]);
    const receipt = await this.sender.send(orderBook, data, PLACE_GAS);
    let orderId: bigint | undefined;
    let rested = 0n;
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== orderBook.toLowerCase()) continue;
      const parsed = this.#iface.parseLog(log);
      if (parsed?.name === 'OrderReceived') orderId = parsed.args[1] as bigint;
      if (parsed?.name === 'NewBuyOrder' || parsed?.name === 'NewSellOrder') rested = parsed.args[1] as bigint;
    }
    return { receipt, rested, ...(orderId === undefined ? {} : { orderId }) };
  }

  cancel(orderBook: string, side: Side, orderId: bigint): Promise<EvmReceipt> {
    const data = this.#iface.encodeFunctionData(side === 'buy' ? 'cancelBuyOrder' : 'cancelSellOrder', [orderId]);
    return this.sender.send(orderBook, data, CANCEL_GAS);
  }
}
