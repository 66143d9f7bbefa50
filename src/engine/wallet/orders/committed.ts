/** What a wallet's resting orders may still draw from its allowance on a book that does not pre-fund them. */
import { remainingOf } from '../../../core/order-state.ts';
import type { Side } from '../../../core/order-terms.ts';
import { lockOf } from '../fills/amounts.ts';
import { makerRateOf } from '../pair-runtime.ts';
import { pairOf, type WalletContext } from '../wallet-context.ts';

/**
 * On a no-prefund book: what the wallet's other live orders of the side's token may still draw when they
 * trade (their lock, had the book locked it), which the allowance must cover together with the new order.
 */
export function committedDraw(ctx: WalletContext, pairId: string, side: Side, except: bigint): bigint {
  const pair = pairOf(ctx, pairId);
  let sum = 0n;
  for (const o of ctx.repos.orders.live({ wallet: ctx.wallet, pairId })) {
    if (o.side !== side || o.clientOrderId === except) continue;
    const draw = lockOf(
      {
        side: o.side,
        price: o.price,
        remaining: remainingOf(o),
        lockRateBps: o.lockRateBps ?? makerRateOf(pair, ctx.marketMaker),
      },
      pair.binding.rules.scales,
      true,
    );
    sum += side === 'sell' ? draw.base : draw.quote;
  }
  return sum;
}
