/**
 * Applies the events of one transaction to our orders. Our own placement's events (received, its trade as
 * taker, rejection, rest) and our cancellations go straight through the transition table; what is left of
 * the token movements between the wallet and a book, once our placements' and cancellations' own movements
 * are accounted for, are fills of our resting orders and go to maker attribution.
 *
 * Two sources feed it. The outcome of our own transaction (`outcome` mode) is fast but carries no token
 * transfers, so it applies only what cannot depend on them: the order id, and the rest or rejection of a
 * placement that traded nothing; a cancellation only when it accounts for the whole remainder (a smaller one
 * may be racing a fill the follower has not delivered yet). The event follower (`follower` mode) delivers
 * every transaction in chain order with its transfers and applies the rest. Every event applied is recorded
 * by key, so the second source, and any replay after a restart, skips what is done. What a chain A
 * transaction changed is recorded with its block (see provisional-outcomes.ts).
 *
 * Its parts: an `OrderReceived` of our wallet (order-received.ts), and the movements our placements and
 * cancellations leave unexplained, fills of our resting orders (maker-movements.ts).
 */
import type { ChainEvent } from '../../../chains/types.ts';
import { remainingOf } from '../../../core/order-state.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import { lockOf } from '../fills/amounts.ts';
import { flowsOf, type PairFlows } from '../fills/flows.ts';
import { takerFill } from '../fills/taker-fill.ts';
import { makerRateOf } from '../pair-runtime.ts';
import { pairOf, type WalletContext } from '../wallet-context.ts';
import { raiseAlert } from '../alerts.ts';
import { OrderEvents } from './order-events.ts';
import { ParkedFills } from './parked-fills.ts';
import { TentativeView } from './tentative-view.ts';
import { ProvisionalOutcomes, type SettleTx } from './provisional-outcomes.ts';
import { sourceOfEvents } from './sources.ts';
import { applyMakerMovement, checkPlacementMovement } from './maker-movements.ts';
import { applyReceived } from './order-received.ts';
import { byVenueId, isMine, type EventOf } from './own-events.ts';

export class TxApplier {
  readonly #ctx: WalletContext;
  readonly events: OrderEvents;
  readonly parked: ParkedFills;
  readonly provisional: ProvisionalOutcomes;
  /** Our orders that blocks not yet final show off the book. */
  readonly tentative: TentativeView;

  constructor(ctx: WalletContext, settleTx: SettleTx) {
    this.#ctx = ctx;
    this.events = new OrderEvents(ctx);
    this.parked = new ParkedFills(ctx, this.events);
    this.provisional = new ProvisionalOutcomes(ctx, this.events, settleTx);
    this.tentative = new TentativeView(ctx);
  }

  #processed(key: string): boolean {
    return this.#ctx.repos.events.has(this.#ctx.chain, this.#ctx.wallet, key);
  }

  #mark(event: ChainEvent): void {
    this.#ctx.repos.events.mark(this.#ctx.chain, this.#ctx.wallet, event);
  }

  #mine(event: ChainEvent): event is Exclude<ChainEvent, EventOf<'Transfer'>> {
    return isMine(this.#ctx, event);
  }

  #byVenueId(pairId: string, orderId: bigint): StoredOrder | undefined {
    return byVenueId(this.#ctx, pairId, orderId);
  }

  /** Our own transaction's outcome: the order id at once, and what cannot race a transfer. */
  applyOutcome(events: readonly ChainEvent[]): void {
    const mine = events.filter((event) => this.#mine(event));
    const traded = mine.some((event) => event.type === 'Trade');
    for (const event of mine) {
      if (this.#processed(event.key)) continue;
      let applied = false;
      if (event.type === 'OrderReceived') applied = applyReceived(this.#ctx, this.events, event);
      else if (traded) break;
      else if (event.type === 'OrderRejected' || event.type === 'OrderResting') applied = this.#lifecycle(event);
      else if (event.type === 'OrderCancelled') {
        const order = this.#byVenueId(event.pairId, event.orderId);
        if (order !== undefined && remainingOf(order) === event.quantity && !this.parked.isCandidate(order))
          applied = this.#cancelled(event);
      }
      if (applied) this.#mark(event);
    }
  }

  /** One transaction from the follower, in chain order, transfers included. */
  applyFollowed(events: readonly ChainEvent[]): void {
    this.events.within(sourceOfEvents(events), () => this.#applyFollowed(events));
  }

  #applyFollowed(events: readonly ChainEvent[]): void {
    const ctx = this.#ctx;
    const flows = flowsOf(events, ctx.wallet, ctx.pairs);
    for (const movement of flows.external)
      ctx.logger.warn(
        { ...movement, txHash: events[0]?.txHash },
        'token movement with an account other than an order book',
      );
    const incoming = new Set<string>();
    const returns = new Map<string, PairFlows>();
    for (const event of events) {
      if (!this.#mine(event)) continue;
      if (event.type === 'OrderReceived') incoming.add(event.pairId);
      if (event.type === 'OrderCancelled') this.#expectReturn(event, returns);
      if (this.#processed(event.key)) continue;
      if (event.type === 'OrderReceived') applyReceived(this.#ctx, this.events, event);
      else if (event.type === 'Trade')
        this.#taker(event, events, flows.byPair.get(event.pairId) ?? { baseIn: 0n, quoteIn: 0n });
      else if (event.type === 'OrderRejected' || event.type === 'OrderResting') this.#lifecycle(event);
      else if (event.type === 'OrderCancelled') this.#cancelled(event);
    }
    const transfersDone = flows.keys.some((key) => this.#processed(key));
    if (!transfersDone) {
      for (const [pairId, pairFlows] of flows.byPair) {
        if (incoming.has(pairId)) {
          checkPlacementMovement(ctx, pairId, events, pairFlows);
          continue;
        }
        const back = returns.get(pairId) ?? { baseIn: 0n, quoteIn: 0n };
        const residual = { baseIn: pairFlows.baseIn - back.baseIn, quoteIn: pairFlows.quoteIn - back.quoteIn };
        if (residual.baseIn !== 0n || residual.quoteIn !== 0n)
          applyMakerMovement(ctx, { orderEvents: this.events, parked: this.parked }, pairId, residual, events);
      }
    }
    for (const event of events) this.#mark(event);
  }

  #lifecycle(reported: EventOf<'OrderRejected'> | EventOf<'OrderResting'>): boolean {
    const order = this.#byVenueId(reported.pairId, reported.orderId);
    if (order === undefined) return true;
    const orderEvent =
      reported.type === 'OrderResting'
        ? ({ type: 'Rested', quantity: reported.quantity } as const)
        : ({ type: 'RemainderRejected', reason: reported.reason, quantity: reported.quantityNotExecuted } as const);
    return this.events.apply(order, orderEvent) !== null;
  }

  #taker(trade: EventOf<'Trade'>, events: readonly ChainEvent[], flows: PairFlows): void {
    const ctx = this.#ctx;
    const order = this.#byVenueId(trade.pairId, trade.orderId);
    if (order === undefined) return;
    const pair = pairOf(ctx, trade.pairId);
    const rest =
      events.find(
        (candidate): candidate is EventOf<'OrderResting'> =>
          candidate.type === 'OrderResting' && candidate.orderId === trade.orderId && this.#mine(candidate),
      )?.quantity ?? 0n;
    const fill = takerFill({
      side: order.side,
      limit: order.price,
      matched: trade.quantity,
      price: trade.price,
      rest,
      prefunded: order.prefunded ?? pair.prefunded,
      lockRateBps: order.lockRateBps ?? makerRateOf(pair, ctx.marketMaker),
      takerRateBps: ctx.marketMaker ? pair.marketMakerBps : pair.takerBps,
      scales: pair.binding.rules.scales,
      flows,
    });
    if (!fill.consistent) {
      raiseAlert(
        ctx,
        trade.pairId,
        'unexplained-fill',
        `the token movements of ${trade.txHash} do not match our order ${order.clientOrderId} trading ${trade.quantity} at ${trade.price}`,
        { txHash: trade.txHash, flows },
      );
    }
    this.events.apply(
      order,
      { type: 'Filled', fillId: trade.key, quantity: trade.quantity, price: trade.price, role: 'taker' },
      {
        fillId: trade.key,
        wallet: ctx.wallet,
        clientOrderId: order.clientOrderId,
        pairId: trade.pairId,
        side: order.side,
        role: 'taker',
        quantity: trade.quantity,
        price: trade.price,
        baseDelta: fill.baseDelta,
        quoteDelta: fill.quoteDelta,
        fee: fill.fee,
        txHash: trade.txHash,
        height: trade.height,
        atMs: trade.timeMs,
      },
    );
  }

  /** What a cancellation hands back: the lock of the cancelled quantity (nothing in no-prefund books). */
  #expectReturn(cancelled: EventOf<'OrderCancelled'>, returns: Map<string, PairFlows>): void {
    const order = this.#byVenueId(cancelled.pairId, cancelled.orderId);
    if (order === undefined) return;
    const pair = pairOf(this.#ctx, cancelled.pairId);
    const lock = lockOf(
      {
        side: order.side,
        price: order.price,
        remaining: cancelled.quantity,
        lockRateBps: order.lockRateBps ?? makerRateOf(pair, this.#ctx.marketMaker),
      },
      pair.binding.rules.scales,
      order.prefunded ?? pair.prefunded,
    );
    const sum = returns.get(cancelled.pairId) ?? { baseIn: 0n, quoteIn: 0n };
    returns.set(cancelled.pairId, { baseIn: sum.baseIn + lock.base, quoteIn: sum.quoteIn + lock.quote });
  }

  #cancelled(cancelled: EventOf<'OrderCancelled'>): boolean {
    const ctx = this.#ctx;
    const order = this.#byVenueId(cancelled.pairId, cancelled.orderId);
    if (order === undefined) {
      ctx.repos.foreign.gone(ctx.chain, ctx.wallet, cancelled.pairId, cancelled.orderId);
      return true;
    }
    // A candidate of parked fills: its remaining quantity decides them; it is applied after them.
    if (this.parked.onCancelled(order, cancelled.cancellationType, cancelled.quantity, cancelled.key)) return true;
    const after = this.events.apply(order, {
      type: 'Cancelled',
      by: cancelled.cancellationType,
      quantity: cancelled.quantity,
    });
    if (after !== null && after.unexplained > 0n) {
      raiseAlert(
        ctx,
        cancelled.pairId,
        'unexplained-cancel',
        `cancellation of order ${order.clientOrderId} returned ${cancelled.quantity}, ${after.unexplained} less than it had left: fills we have not seen`,
        {
          clientOrderId: order.clientOrderId,
          orderId: cancelled.orderId,
          txHash: cancelled.txHash,
          unexplained: after.unexplained,
        },
      );
    }
    return after !== null;
  }
}
