/**
 * What the chain already shows of our orders before the events are final. The engine applies only confirmed
 * events, so an order a taker filled in the newest block still rests in the store for a block or more; a
 * cancel sent meanwhile would only meet an order that is gone. The follower's tentative events are read here,
 * without changing anything: our orders they cancel, and our resting orders their token movements fill in full
 * (attributed as the confirmed path will, from the store's candidates). Such an order is not cancelled while
 * its removal is pending; the confirmed batch that covers its block applies the truth and the mark goes, and
 * a rollback of the tentative events clears every mark (the order rests again and may be cancelled).
 */
import type { ChainEvent } from '../../chains/types.ts';
import { flowsOf, sameAddress, type PairFlows } from '../fills/flows.ts';
import { attributeMakerFills } from '../fills/maker-fills.ts';
import type { WalletContext } from '../wallet-context.ts';
import { byTransaction } from './batches.ts';
import { incomingTrade, makerCandidates, makerInput, makerSide } from '../fills/maker-attempt.ts';

export class TentativeView {
  readonly #ctx: WalletContext;
  /** Orders a tentative block removed, by client order id, with the height of that block. */
  readonly #gone = new Map<bigint, bigint>();

  constructor(ctx: WalletContext) {
    this.#ctx = ctx;
  }

  /** Whether a block not yet final shows the order off the book (filled in full or cancelled). */
  gone(clientOrderId: bigint): boolean {
    return this.#gone.has(clientOrderId);
  }

  /** Tentative events delivered by the follower, in chain order. */
  observe(events: readonly ChainEvent[]): void {
    const ctx = this.#ctx;
    for (const tx of byTransaction(events)) {
      const mine = tx.filter((e) => e.type !== 'Transfer' && sameAddress(e.client, ctx.wallet) && ctx.pairs.has(e.pairId));
      for (const e of mine) {
        if (e.type !== 'OrderCancelled') continue;
        const order = ctx.store.orders.byVenueId(ctx.chain, e.pairId, e.orderId);
        if (order !== undefined) this.#mark(order.clientOrderId, e.height);
      }
      // Our own placement or cancellation moved tokens too: only movements of other clients' orders are fills.
      if (mine.some((e) => e.type === 'OrderReceived' || e.type === 'OrderCancelled')) continue;
      for (const [pairId, residual] of flowsOf(tx, ctx.wallet, ctx.pairs).byPair) this.#fills(pairId, residual, tx);
    }
  }

  #fills(pairId: string, residual: PairFlows, tx: readonly ChainEvent[]): void {
    const ctx = this.#ctx;
    const pair = ctx.pairs.get(pairId);
    if (pair === undefined || (residual.baseIn === 0n && residual.quoteIn === 0n)) return;
    const trade = incomingTrade(tx, pairId, ctx.wallet);
    const side = makerSide(residual, trade);
    if (side === null) return;
    const candidates = makerCandidates(ctx, pair, side).filter((c) => !this.#gone.has(c.clientOrderId));
    const result = attributeMakerFills(makerInput(pair, side, candidates, residual, trade));
    // Anything the amounts do not decide is left to the confirmed path (which parks or alerts).
    if (result.kind !== 'attributed') return;
    const height = (tx[0] as ChainEvent).height;
    for (const f of result.fills) {
      const c = candidates.find((x) => x.clientOrderId === f.clientOrderId);
      if (c !== undefined && f.quantity >= c.remaining) this.#mark(f.clientOrderId, height);
    }
  }

  #mark(clientOrderId: bigint, height: bigint): void {
    if (!this.#gone.has(clientOrderId)) this.#gone.set(clientOrderId, height);
  }

  /** The confirmed events up to `height` are applied: what they decided is in the store now. */
  confirmedUpTo(height: bigint): void {
    for (const [cid, h] of this.#gone) {
      if (h > height) continue;
      this.#gone.delete(cid);
      this.#ctx.watch.notify(cid);
    }
  }

  /** The tentative events were withdrawn (a reorganisation): nothing is known to be gone any more. */
  clear(): void {
    const ids = [...this.#gone.keys()];
    this.#gone.clear();
    for (const cid of ids) this.#ctx.watch.notify(cid);
  }
}
