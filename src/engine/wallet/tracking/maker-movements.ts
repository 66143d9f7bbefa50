/**
 * The token movements of a transaction that our placements and cancellations do not account for (see
 * tx-applier.ts): fills of our resting orders, attributed to them (maker-fills.ts) or parked until a later
 * transaction decides them (parked-fills.ts); what nothing explains is alerted. And the movement of a
 * placement that did not trade, which must be its own lock.
 */
import type { ChainEvent } from '../../../chains/types.ts';
import type { Side } from '../../../core/order-terms.ts';
import { raiseAlert } from '../alerts.ts';
import { lockOf } from '../fills/amounts.ts';
import type { PairFlows } from '../fills/flows.ts';
import { incomingTrade, makerCandidates, makerInput, makerSide } from '../fills/maker-attempt.ts';
import { attributeMakerFills, type MakerCandidate, type MakerFill, type MakerResult } from '../fills/maker-fills.ts';
import { makerRateOf } from '../pair-runtime.ts';
import { pairOf, type WalletContext } from '../wallet-context.ts';
import type { OrderEvents } from './order-events.ts';
import { byVenueId, isMine, type EventOf } from './own-events.ts';
import type { ParkedFills } from './parked-fills.ts';

/** Our placement that did not trade: only its own lock may have moved. */
export function checkPlacementMovement(
  ctx: WalletContext,
  pairId: string,
  events: readonly ChainEvent[],
  flows: PairFlows,
): void {
  if (events.some((event) => event.type === 'Trade' && isMine(ctx, event))) return;
  const pair = pairOf(ctx, pairId);
  let expected = { base: 0n, quote: 0n };
  for (const event of events) {
    if (event.type !== 'OrderResting' || !isMine(ctx, event)) continue;
    const order = byVenueId(ctx, pairId, event.orderId);
    const rate = order?.lockRateBps ?? makerRateOf(pair, ctx.marketMaker);
    const lock = lockOf(
      { side: event.side, price: event.price, remaining: event.quantity, lockRateBps: rate },
      pair.binding.rules.scales,
      order?.prefunded ?? pair.prefunded,
    );
    expected = { base: expected.base + lock.base, quote: expected.quote + lock.quote };
  }
  if (flows.baseIn !== -expected.base || flows.quoteIn !== -expected.quote) {
    raiseAlert(
      ctx,
      pairId,
      'unexplained-movement',
      `the token movements of ${events[0]?.txHash} are not the lock of our placement`,
      { txHash: events[0]?.txHash, flows, expectedLock: expected },
    );
  }
}

/** What explains nothing: the movement, the others' trade and our candidates, in an alert. */
function unexplainedFill(
  ctx: WalletContext,
  pairId: string,
  movement: { readonly txHash: string; readonly residual: PairFlows; readonly side: Side | null },
  trade: EventOf<'Trade'> | undefined,
  result: Exclude<MakerResult, { kind: 'attributed' }>,
  candidates: readonly MakerCandidate[],
): void {
  const { txHash, residual, side } = movement;
  raiseAlert(
    ctx,
    pairId,
    'unexplained-fill',
    `token movements of ${txHash} are not explained by our resting orders (${result.kind})`,
    {
      txHash,
      residual,
      side,
      tradePrice: trade?.price ?? null,
      trade:
        trade === undefined
          ? null
          : { key: trade.key, orderId: trade.orderId, side: trade.side, quantity: trade.quantity, price: trade.price },
      ...(result.kind === 'ambiguous' ? { options: result.options } : { reason: result.reason }),
      candidates: candidates.map((candidate) => ({
        clientOrderId: candidate.clientOrderId,
        orderId: candidate.orderId,
        price: candidate.price,
        remaining: candidate.remaining,
        lockRateBps: candidate.lockRateBps,
      })),
    },
  );
}

/** The attributed maker fills applied to their orders, each with its inventory change. */
function applyMakerFills(
  ctx: WalletContext,
  orderEvents: OrderEvents,
  pairId: string,
  fills: readonly MakerFill[],
  source: { readonly txHash: string; readonly at: ChainEvent },
): void {
  const { txHash, at } = source;
  for (const fill of fills) {
    const order = ctx.repos.orders.get(ctx.wallet, fill.clientOrderId);
    if (order === undefined) continue;
    const fillId = `${txHash}:${fill.clientOrderId}`;
    orderEvents.apply(
      order,
      { type: 'Filled', fillId, quantity: fill.quantity, price: fill.price, role: 'maker' },
      {
        fillId,
        wallet: ctx.wallet,
        clientOrderId: fill.clientOrderId,
        pairId,
        side: order.side,
        role: 'maker',
        quantity: fill.quantity,
        price: fill.price,
        baseDelta: fill.baseDelta,
        quoteDelta: fill.quoteDelta,
        fee: fill.fee,
        txHash,
        height: at.height,
        atMs: at.timeMs,
      },
    );
  }
}

/**
 * The residual movement of a pair in a transaction: fills of our resting orders on the side it says, parked
 * while an earlier movement of that side waits or while more than one attribution fits.
 */
export function applyMakerMovement(
  ctx: WalletContext,
  tracking: { readonly orderEvents: OrderEvents; readonly parked: ParkedFills },
  pairId: string,
  residual: PairFlows,
  events: readonly ChainEvent[],
): void {
  const pair = pairOf(ctx, pairId);
  const trade = incomingTrade(events, pairId, ctx.wallet);
  const side = makerSide(residual, trade);
  const txHash = events[0]?.txHash ?? '';
  const at = events[0] as ChainEvent;
  const candidates = side === null ? [] : makerCandidates(ctx, pair, side);
  const movement = { txHash, height: at.height, atMs: at.timeMs, ...residual };
  if (side !== null && tracking.parked.open(pairId, side) !== undefined) {
    tracking.parked.park(pairId, side, movement, candidates, []);
    return;
  }
  const result =
    side === null
      ? ({ kind: 'unexplained', reason: 'the wallet paid quote to the book without receiving base' } as const)
      : attributeMakerFills(makerInput(pair, side, candidates, residual, trade));
  if (result.kind === 'ambiguous' && side !== null) {
    tracking.parked.park(pairId, side, movement, candidates, result.options);
    return;
  }
  if (result.kind !== 'attributed') {
    unexplainedFill(ctx, pairId, { txHash, residual, side }, trade, result, candidates);
    return;
  }
  applyMakerFills(ctx, tracking.orderEvents, pairId, result.fills, { txHash, at });
}
