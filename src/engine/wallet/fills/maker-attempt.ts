/**
 * The inputs of maker-fill attribution for one transaction's movement on a pair: the other client's incoming
 * trade, the side of ours it hit, and our orders that may have been on the book. Shared by the confirmed path
 * (the transaction applier) and the tentative view.
 */
import type { ChainEvent } from '../../../chains/types.ts';
import { isOnBook, remainingOf } from '../../../core/order-state.ts';
import type { Side } from '../../../core/order-terms.ts';
import { makerRateOf, type PairRuntime } from '../pair-runtime.ts';
import type { WalletContext } from '../wallet-context.ts';
import { sameAddress, type PairFlows } from './flows.ts';
import type { MakerCandidate, MakerInput } from './maker-fills.ts';

type Trade = Extract<ChainEvent, { type: 'Trade' }>;

/** The trade event of another client's incoming order on the pair in this transaction (it names the execution price). */
export function incomingTrade(events: readonly ChainEvent[], pairId: string, wallet: string): Trade | undefined {
  return events.find((e): e is Trade => e.type === 'Trade' && e.pairId === pairId && !sameAddress(e.client, wallet));
}

/** Which side of ours the movement filled: the incoming order's other side, or what the amounts say. */
export function makerSide(residual: PairFlows, trade: Trade | undefined): Side | null {
  if (trade !== undefined) return trade.side === 'buy' ? 'sell' : 'buy';
  return residual.baseIn > 0n ? 'buy' : residual.baseIn < 0n || residual.quoteIn > 0n ? 'sell' : null;
}

/** Our orders of the side that may have been on the book when the incoming order matched. */
export function makerCandidates(ctx: WalletContext, pair: PairRuntime, side: Side): MakerCandidate[] {
  return ctx.repos.orders
    .live({ wallet: ctx.wallet, pairId: pair.binding.pairId })
    .filter((o) => o.side === side && o.orderId !== null && isOnBook(o.status))
    .map((o) => ({
      clientOrderId: o.clientOrderId,
      orderId: o.orderId as bigint,
      price: o.price,
      remaining: remainingOf(o),
      lockRateBps: o.lockRateBps ?? makerRateOf(pair, ctx.marketMaker),
    }));
}

export function makerInput(
  pair: PairRuntime,
  side: Side,
  candidates: readonly MakerCandidate[],
  residual: PairFlows,
  trade: Trade | undefined,
): MakerInput {
  return {
    side,
    candidates,
    scales: pair.binding.rules.scales,
    prefunded: pair.prefunded,
    baseIn: residual.baseIn,
    quoteIn: residual.quoteIn,
    tradePrice: trade?.price ?? null,
    incomingOrderId: trade?.orderId ?? null,
    sizeStep: pair.sizeStep,
    onTick: pair.onTick,
    ...(pair.priceBounds === undefined ? {} : { priceBounds: pair.priceBounds }),
  };
}
