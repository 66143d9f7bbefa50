/**
 * Before a placement is queued and before anything is signed (see order-manager.ts): whether the wallet takes
 * placements now, and the order's durable record with its decision, so that a crash from then on leaves a trace.
 */
import { DltError } from '../../../core/errors.ts';
import { newOrder } from '../../../core/order-state.ts';
import type { OrderOptions } from '../../../core/order-terms.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import { isPaused } from '../alerts.ts';
import { makerRateOf, type PairRuntime } from '../pair-runtime.ts';
import type { WalletContext } from '../wallet-context.ts';
import type { PlaceOrder } from './order-commands.ts';
import { refuseSelfTrade } from './own-wallets.ts';

/** Why a placement is refused before it is queued, and the result it is counted as (none: not counted). */
export interface PlacementRefusal {
  readonly error: DltError;
  readonly counted: string | null;
}

/** Refused: while halted (`halted` says why), before the wallet is reconciled, while an alert pauses the pair. */
export function placementRefusal(
  ctx: WalletContext,
  cmd: PlaceOrder,
  halted: string | null,
  ready: boolean,
): PlacementRefusal | null {
  const details = { pairId: cmd.pairId };
  if (halted !== null)
    return {
      error: new DltError('E_ORDER_WITHDRAWN', `no placement is accepted any more: ${halted}`, { details }),
      counted: 'withdrawn',
    };
  if (!ready)
    return {
      error: new DltError('E_TRADING_PAUSED', `wallet ${ctx.wallet} is not reconciled yet`, { details }),
      counted: null,
    };
  if (isPaused(ctx, cmd.pairId))
    return {
      error: new DltError('E_TRADING_PAUSED', `trading on ${cmd.pairId} is paused by an open alert`, { details }),
      counted: 'paused',
    };
  return null;
}

/**
 * The order's record, in one transaction with its decision and after the self-trade check: the id and the
 * record are durable before anything is signed.
 */
export function recordPlacement(
  ctx: WalletContext,
  pair: PairRuntime,
  cmd: PlaceOrder,
  raw: { readonly quantity: bigint; readonly price: bigint },
  options: OrderOptions,
): StoredOrder {
  const order = ctx.repos.atomically(() => {
    refuseSelfTrade(ctx, cmd.pairId, cmd.side, raw.price);
    const clientOrderId = ctx.ids.next();
    const reporting = cmd.reporting ?? pair.reporting;
    const decisionId = cmd.decision === undefined ? null : ctx.repos.state.recordDecision(cmd.decision, reporting);
    return ctx.repos.orders.create(
      newOrder({ clientOrderId, pairId: cmd.pairId, side: cmd.side, quantity: raw.quantity, price: raw.price }),
      {
        wallet: ctx.wallet,
        chain: ctx.chain,
        decisionId,
        lockRateBps: makerRateOf(pair, ctx.marketMaker),
        prefunded: pair.prefunded,
        options,
        level: cmd.level ?? null,
      },
    );
  });
  ctx.repos.durable();
  return order;
}
