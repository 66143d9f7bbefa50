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
 */
import type { ChainEvent } from '../../../chains/types.ts';
import { newOrder, remainingOf } from '../../../core/order-state.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import { lockOf } from '../fills/amounts.ts';
import { flowsOf, sameAddress, type PairFlows } from '../fills/flows.ts';
import { incomingTrade, makerCandidates, makerInput, makerSide } from '../fills/maker-attempt.ts';
import { attributeMakerFills } from '../fills/maker-fills.ts';
import { takerFill } from '../fills/taker-fill.ts';
import { makerRateOf } from '../pair-runtime.ts';
import { pairOf, type WalletContext } from '../wallet-context.ts';
import { raiseAlert } from '../alerts.ts';
import { OrderEvents } from './order-events.ts';
import { ParkedFills } from './parked-fills.ts';
import { TentativeView } from './tentative-view.ts';
import { ProvisionalOutcomes, type SettleTx } from './provisional-outcomes.ts';
import { sourceOfEvents } from './sources.ts';

type Of<T extends ChainEvent['type']> = Extract<ChainEvent, { type: T }>;

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

  #mark(e: ChainEvent): void {
    this.#ctx.repos.events.mark(this.#ctx.chain, this.#ctx.wallet, e);
  }

  #mine(e: ChainEvent): e is Exclude<ChainEvent, Of<'Transfer'>> {
    return e.type !== 'Transfer' && sameAddress(e.client, this.#ctx.wallet) && this.#ctx.pairs.has(e.pairId);
  }

  #byVenueId(pairId: string, orderId: bigint): StoredOrder | undefined {
    return this.#ctx.repos.orders.byVenueId(this.#ctx.chain, pairId, orderId);
  }

  /** Our own transaction's outcome: the order id at once, and what cannot race a transfer. */
  applyOutcome(events: readonly ChainEvent[]): void {
    const mine = events.filter((e) => this.#mine(e));
    const traded = mine.some((e) => e.type === 'Trade');
    for (const e of mine) {
      if (this.#processed(e.key)) continue;
      let applied = false;
      if (e.type === 'OrderReceived') applied = this.#received(e);
      else if (traded) break;
      else if (e.type === 'OrderRejected' || e.type === 'OrderResting') applied = this.#lifecycle(e);
      else if (e.type === 'OrderCancelled') {
        const order = this.#byVenueId(e.pairId, e.orderId);
        if (order !== undefined && remainingOf(order) === e.quantity && !this.parked.isCandidate(order))
          applied = this.#cancelled(e);
      }
      if (applied) this.#mark(e);
    }
  }

  /** One transaction from the follower, in chain order, transfers included. */
  applyFollowed(events: readonly ChainEvent[]): void {
    this.events.within(sourceOfEvents(events), () => this.#applyFollowed(events));
  }

  #applyFollowed(events: readonly ChainEvent[]): void {
    const ctx = this.#ctx;
    const flows = flowsOf(events, ctx.wallet, ctx.pairs);
    for (const x of flows.external)
      ctx.logger.warn({ ...x, txHash: events[0]?.txHash }, 'token movement with an account other than an order book');
    const incoming = new Set<string>();
    const returns = new Map<string, PairFlows>();
    for (const e of events) {
      if (!this.#mine(e)) continue;
      if (e.type === 'OrderReceived') incoming.add(e.pairId);
      if (e.type === 'OrderCancelled') this.#expectReturn(e, returns);
      if (this.#processed(e.key)) continue;
      if (e.type === 'OrderReceived') this.#received(e);
      else if (e.type === 'Trade') this.#taker(e, events, flows.byPair.get(e.pairId) ?? { baseIn: 0n, quoteIn: 0n });
      else if (e.type === 'OrderRejected' || e.type === 'OrderResting') this.#lifecycle(e);
      else if (e.type === 'OrderCancelled') this.#cancelled(e);
    }
    const transfersDone = flows.keys.some((k) => this.#processed(k));
    if (!transfersDone) {
      for (const [pairId, f] of flows.byPair) {
        if (incoming.has(pairId)) {
          this.#checkPlacementMovement(pairId, events, f);
          continue;
        }
        const back = returns.get(pairId) ?? { baseIn: 0n, quoteIn: 0n };
        const residual = { baseIn: f.baseIn - back.baseIn, quoteIn: f.quoteIn - back.quoteIn };
        if (residual.baseIn !== 0n || residual.quoteIn !== 0n) this.#maker(pairId, residual, events);
      }
    }
    for (const e of events) this.#mark(e);
  }

  #received(e: Of<'OrderReceived'>): boolean {
    const ctx = this.#ctx;
    const pair = pairOf(ctx, e.pairId);
    if (!ctx.ids.isOurs(e.crossIdentifier)) {
      const first = ctx.repos.foreign.seen({
        chain: ctx.chain,
        wallet: ctx.wallet,
        pairId: e.pairId,
        orderId: e.orderId,
        crossId: e.crossIdentifier,
        side: e.side,
        quantity: e.quantity,
        price: e.price,
        source: 'events',
      });
      if (first)
        raiseAlert(
          ctx,
          e.pairId,
          'foreign-order',
          `order ${e.orderId} of our wallet was not placed by this bot (cross identifier ${e.crossIdentifier})`,
          { orderId: e.orderId, crossId: e.crossIdentifier, txHash: e.txHash },
          false,
        );
      return true;
    }
    let order = ctx.repos.orders.get(ctx.wallet, e.crossIdentifier);
    if (order === undefined) {
      // Ours by its cross identifier, but not in the store (a lost or replaced state file): adopt it.
      ctx.ids.adopt(e.crossIdentifier);
      order = ctx.repos.orders.create(
        newOrder({
          clientOrderId: e.crossIdentifier,
          pairId: e.pairId,
          side: e.side,
          quantity: e.quantity,
          price: e.price,
        }),
        {
          wallet: ctx.wallet,
          chain: ctx.chain,
          adopted: true,
          lockRateBps: makerRateOf(pair, ctx.marketMaker),
          prefunded: pair.prefunded,
        },
      );
      ctx.logger.warn(
        { clientOrderId: e.crossIdentifier, orderId: e.orderId, txHash: e.txHash },
        'adopted an order of ours that the store did not know',
      );
    }
    if (order.orderId !== null && order.orderId !== e.orderId) {
      raiseAlert(
        ctx,
        e.pairId,
        'duplicate-placement',
        `client order id ${order.clientOrderId} reached the book twice (orders ${order.orderId} and ${e.orderId})`,
        { clientOrderId: order.clientOrderId, orderIds: [order.orderId, e.orderId], txHash: e.txHash },
      );
      return true;
    }
    if (order.status === 'rejected') {
      raiseAlert(
        ctx,
        e.pairId,
        'order-resurrected',
        `order ${order.clientOrderId}, recorded as never placed, is on the book as ${e.orderId}`,
        { clientOrderId: order.clientOrderId, orderId: e.orderId, rejection: order.rejection },
      );
      return true;
    }
    if (order.side !== e.side || order.quantity !== e.quantity || order.price !== e.price) {
      raiseAlert(
        ctx,
        e.pairId,
        'terms-mismatch',
        `order ${order.clientOrderId} reached the book with other terms than recorded`,
        {
          recorded: { side: order.side, quantity: order.quantity, price: order.price },
          onChain: { side: e.side, quantity: e.quantity, price: e.price },
        },
      );
    }
    if (order.status === 'intended')
      order = this.events.apply(order, { type: 'SubmissionSent', txHash: e.txHash }) ?? order;
    return this.events.apply(order, { type: 'Accepted', orderId: e.orderId }) !== null;
  }

  #lifecycle(e: Of<'OrderRejected'> | Of<'OrderResting'>): boolean {
    const order = this.#byVenueId(e.pairId, e.orderId);
    if (order === undefined) return true;
    const event =
      e.type === 'OrderResting'
        ? ({ type: 'Rested', quantity: e.quantity } as const)
        : ({ type: 'RemainderRejected', reason: e.reason, quantity: e.quantityNotExecuted } as const);
    return this.events.apply(order, event) !== null;
  }

  #taker(e: Of<'Trade'>, events: readonly ChainEvent[], flows: PairFlows): void {
    const ctx = this.#ctx;
    const order = this.#byVenueId(e.pairId, e.orderId);
    if (order === undefined) return;
    const pair = pairOf(ctx, e.pairId);
    const rest =
      events.find((x): x is Of<'OrderResting'> => x.type === 'OrderResting' && x.orderId === e.orderId && this.#mine(x))
        ?.quantity ?? 0n;
    const t = takerFill({
      side: order.side,
      limit: order.price,
      matched: e.quantity,
      price: e.price,
      rest,
      prefunded: order.prefunded ?? pair.prefunded,
      lockRateBps: order.lockRateBps ?? makerRateOf(pair, ctx.marketMaker),
      takerRateBps: ctx.marketMaker ? pair.marketMakerBps : pair.takerBps,
      scales: pair.binding.rules.scales,
      flows,
    });
    if (!t.consistent) {
      raiseAlert(
        ctx,
        e.pairId,
        'unexplained-fill',
        `the token movements of ${e.txHash} do not match our order ${order.clientOrderId} trading ${e.quantity} at ${e.price}`,
        { txHash: e.txHash, flows },
      );
    }
    this.events.apply(
      order,
      { type: 'Filled', fillId: e.key, quantity: e.quantity, price: e.price, role: 'taker' },
      {
        fillId: e.key,
        wallet: ctx.wallet,
        clientOrderId: order.clientOrderId,
        pairId: e.pairId,
        side: order.side,
        role: 'taker',
        quantity: e.quantity,
        price: e.price,
        baseDelta: t.baseDelta,
        quoteDelta: t.quoteDelta,
        fee: t.fee,
        txHash: e.txHash,
        height: e.height,
        atMs: e.timeMs,
      },
    );
  }

  /** What a cancellation hands back: the lock of the cancelled quantity (nothing in no-prefund books). */
  #expectReturn(e: Of<'OrderCancelled'>, returns: Map<string, PairFlows>): void {
    const order = this.#byVenueId(e.pairId, e.orderId);
    if (order === undefined) return;
    const pair = pairOf(this.#ctx, e.pairId);
    const lock = lockOf(
      {
        side: order.side,
        price: order.price,
        remaining: e.quantity,
        lockRateBps: order.lockRateBps ?? makerRateOf(pair, this.#ctx.marketMaker),
      },
      pair.binding.rules.scales,
      order.prefunded ?? pair.prefunded,
    );
    const r = returns.get(e.pairId) ?? { baseIn: 0n, quoteIn: 0n };
    returns.set(e.pairId, { baseIn: r.baseIn + lock.base, quoteIn: r.quoteIn + lock.quote });
  }

  #cancelled(e: Of<'OrderCancelled'>): boolean {
    const ctx = this.#ctx;
    const order = this.#byVenueId(e.pairId, e.orderId);
    if (order === undefined) {
      ctx.repos.foreign.gone(ctx.chain, ctx.wallet, e.pairId, e.orderId);
      return true;
    }
    // A candidate of parked fills: its remaining quantity decides them; it is applied after them.
    if (this.parked.onCancelled(order, e.cancellationType, e.quantity, e.key)) return true;
    const after = this.events.apply(order, { type: 'Cancelled', by: e.cancellationType, quantity: e.quantity });
    if (after !== null && after.unexplained > 0n) {
      raiseAlert(
        ctx,
        e.pairId,
        'unexplained-cancel',
        `cancellation of order ${order.clientOrderId} returned ${e.quantity}, ${after.unexplained} less than it had left: fills we have not seen`,
        { clientOrderId: order.clientOrderId, orderId: e.orderId, txHash: e.txHash, unexplained: after.unexplained },
      );
    }
    return after !== null;
  }

  /** Our placement that did not trade: only its own lock may have moved. */
  #checkPlacementMovement(pairId: string, events: readonly ChainEvent[], f: PairFlows): void {
    if (events.some((e) => e.type === 'Trade' && this.#mine(e))) return;
    const ctx = this.#ctx;
    const pair = pairOf(ctx, pairId);
    let expected = { base: 0n, quote: 0n };
    for (const e of events) {
      if (e.type !== 'OrderResting' || !this.#mine(e)) continue;
      const order = this.#byVenueId(pairId, e.orderId);
      const rate = order?.lockRateBps ?? makerRateOf(pair, ctx.marketMaker);
      const l = lockOf(
        { side: e.side, price: e.price, remaining: e.quantity, lockRateBps: rate },
        pair.binding.rules.scales,
        order?.prefunded ?? pair.prefunded,
      );
      expected = { base: expected.base + l.base, quote: expected.quote + l.quote };
    }
    if (f.baseIn !== -expected.base || f.quoteIn !== -expected.quote) {
      raiseAlert(
        ctx,
        pairId,
        'unexplained-movement',
        `the token movements of ${events[0]?.txHash} are not the lock of our placement`,
        { txHash: events[0]?.txHash, flows: f, expectedLock: expected },
      );
    }
  }

  #maker(pairId: string, residual: PairFlows, events: readonly ChainEvent[]): void {
    const ctx = this.#ctx;
    const pair = pairOf(ctx, pairId);
    const trade = incomingTrade(events, pairId, ctx.wallet);
    const side = makerSide(residual, trade);
    const txHash = events[0]?.txHash ?? '';
    const at = events[0] as ChainEvent;
    const candidates = side === null ? [] : makerCandidates(ctx, pair, side);
    const movement = { txHash, height: at.height, atMs: at.timeMs, ...residual };
    if (side !== null && this.parked.open(pairId, side) !== undefined) {
      this.parked.park(pairId, side, movement, candidates, []);
      return;
    }
    const result =
      side === null
        ? ({ kind: 'unexplained', reason: 'the wallet paid quote to the book without receiving base' } as const)
        : attributeMakerFills(makerInput(pair, side, candidates, residual, trade));
    if (result.kind === 'ambiguous' && side !== null) {
      this.parked.park(pairId, side, movement, candidates, result.options);
      return;
    }
    if (result.kind !== 'attributed') {
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
              : {
                  key: trade.key,
                  orderId: trade.orderId,
                  side: trade.side,
                  quantity: trade.quantity,
                  price: trade.price,
                },
          ...(result.kind === 'ambiguous' ? { options: result.options } : { reason: result.reason }),
          candidates: candidates.map((c) => ({
            clientOrderId: c.clientOrderId,
            orderId: c.orderId,
            price: c.price,
            remaining: c.remaining,
            lockRateBps: c.lockRateBps,
          })),
        },
      );
      return;
    }
    for (const f of result.fills) {
      const order = ctx.repos.orders.get(ctx.wallet, f.clientOrderId);
      if (order === undefined) continue;
      const fillId = `${txHash}:${f.clientOrderId}`;
      this.events.apply(
        order,
        { type: 'Filled', fillId, quantity: f.quantity, price: f.price, role: 'maker' },
        {
          fillId,
          wallet: ctx.wallet,
          clientOrderId: f.clientOrderId,
          pairId,
          side: order.side,
          role: 'maker',
          quantity: f.quantity,
          price: f.price,
          baseDelta: f.baseDelta,
          quoteDelta: f.quoteDelta,
          fee: f.fee,
          txHash,
          height: at.height,
          atMs: at.timeMs,
        },
      );
    }
  }
}
