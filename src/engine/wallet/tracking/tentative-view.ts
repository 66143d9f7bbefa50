/**
 * What the chain already shows of our orders before the events are final. The engine applies only confirmed
 * events, so an order a taker filled in the newest block still rests in the store for a block or more; a
 * cancel sent meanwhile would only meet an order that is gone. The follower's tentative events are read here,
 * without changing anything: our orders they cancel, and our resting orders their token movements fill in full
 * (attributed as the confirmed path will, from the store's candidates). Such an order is not cancelled while
 * its removal is pending; the confirmed batch that covers its block applies the truth and the mark goes, and
 * a rollback of the tentative events clears every mark (the order rests again and may be cancelled).
 */
import type { ChainEvent } from '../../../chains/types.ts';
import { flowsOf, sameAddress, type PairFlows } from '../fills/flows.ts';
import { attributeMakerFills } from '../fills/maker-fills.ts';
import type { WalletContext } from '../wallet-context.ts';
import { byTransaction } from './batches.ts';
import { incomingTrade, makerCandidates, makerInput, makerSide } from '../fills/maker-attempt.ts';
import { BoundedMemo } from '../../../core/bounded-memo.ts';

/** How many of our venue ids `TentativeView` keeps. */
const OURS_LIMIT = 4096;

export class TentativeView {
  readonly #ctx: WalletContext;
  /** Transactions of blocks not final yet, in chain order, with their height. */
  #pending: Array<{ readonly height: bigint; readonly tx: readonly ChainEvent[] }> = [];
  /**
   * The last answer of `goneOrders`, with the order store's change count and the pending list it was worked out
   * from: every pair's round asks, and between two changes of either the answer is the same.
   */
  #last: { readonly orders: number; readonly pending: readonly unknown[]; readonly gone: ReadonlySet<bigint> } | null =
    null;

  /**
   * Our orders by the venue's id on a pair (`pair|id`), once the store knew them: the ids of the cancels in
   * blocks not final yet, looked up again each time the answer is worked out. Bounded: past the limit it starts
   * again.
   */
  readonly #ours = new BoundedMemo<string, bigint>(OURS_LIMIT);

  constructor(ctx: WalletContext) {
    this.#ctx = ctx;
  }

  /**
   * Whether a block not final yet shows the order off the book (filled in full or cancelled). Worked out when
   * asked, against the store as it is now: an order that came to rest after the tentative events arrived (its
   * placement's receipt was applied later) is still recognised.
   */
  gone(clientOrderId: bigint): boolean {
    return this.#pending.length > 0 && this.goneOrders().has(clientOrderId);
  }

  /** Every order a block not final yet shows off the book (see `gone`). */
  goneOrders(): ReadonlySet<bigint> {
    if (this.#pending.length === 0) return new Set();
    const orders = this.#ctx.repos.orders.changes;
    const last = this.#last;
    if (last !== null && last.orders === orders && last.pending === this.#pending) return last.gone;
    const gone = this.#goneNow();
    this.#last = { orders, pending: this.#pending, gone };
    return gone;
  }

  /** Tentative events delivered by the follower, in chain order. */
  observe(events: readonly ChainEvent[]): void {
    const added = byTransaction(events).map((tx) => ({ height: (tx[0] as ChainEvent).height, tx }));
    if (added.length > 0) this.#pending = [...this.#pending, ...added];
  }

  #goneNow(): Set<bigint> {
    const ctx = this.#ctx;
    const gone = new Set<bigint>();
    for (const { tx } of this.#pending) {
      const mine = tx.filter(
        (e) => e.type !== 'Transfer' && sameAddress(e.client, ctx.wallet) && ctx.pairs.has(e.pairId),
      );
      for (const e of mine) {
        if (e.type !== 'OrderCancelled') continue;
        const cid = this.#clientOrderId(e.pairId, e.orderId);
        if (cid !== undefined) gone.add(cid);
      }
      // Our own placement or cancellation moved tokens too: only movements of other clients' orders are fills.
      if (mine.some((e) => e.type === 'OrderReceived' || e.type === 'OrderCancelled')) continue;
      for (const [pairId, residual] of flowsOf(tx, ctx.wallet, ctx.pairs).byPair)
        this.#fills(pairId, residual, tx, gone);
    }
    return gone;
  }

  #clientOrderId(pairId: string, orderId: bigint): bigint | undefined {
    const key = `${pairId}|${orderId}`;
    const known = this.#ours.get(key);
    if (known !== undefined) return known;
    const order = this.#ctx.repos.orders.byVenueId(this.#ctx.chain, pairId, orderId);
    if (order === undefined) return undefined;
    this.#ours.set(key, order.clientOrderId);
    return order.clientOrderId;
  }

  #fills(pairId: string, residual: PairFlows, tx: readonly ChainEvent[], gone: Set<bigint>): void {
    const ctx = this.#ctx;
    const pair = ctx.pairs.get(pairId);
    if (pair === undefined || (residual.baseIn === 0n && residual.quoteIn === 0n)) return;
    const trade = incomingTrade(tx, pairId, ctx.wallet);
    const side = makerSide(residual, trade);
    if (side === null) return;
    const candidates = makerCandidates(ctx, pair, side).filter((c) => !gone.has(c.clientOrderId));
    const result = attributeMakerFills(makerInput(pair, side, candidates, residual, trade));
    // Anything the amounts do not decide is left to the confirmed path (which parks or alerts).
    if (result.kind !== 'attributed') return;
    for (const f of result.fills) {
      const c = candidates.find((x) => x.clientOrderId === f.clientOrderId);
      if (c !== undefined && f.quantity >= c.remaining) gone.add(f.clientOrderId);
    }
  }

  /** The confirmed events up to `height` are applied: what they decided is in the store now. */
  confirmedUpTo(height: bigint): void {
    if (!this.#pending.some((p) => p.height <= height)) return;
    this.#changing(() => {
      this.#pending = this.#pending.filter((p) => p.height > height);
    });
  }

  /** The tentative events were withdrawn (a reorganisation): nothing is known to be gone any more. */
  clear(): void {
    // A reorganisation may give a venue id to another order: what was learnt of them goes too.
    this.#ours.clear();
    if (this.#pending.length > 0) this.#changing(() => (this.#pending = []));
  }

  /** Tells the waiters of every order the change may concern (those known gone before it). */
  #changing(change: () => void): void {
    const before = this.#goneNow();
    change();
    for (const cid of before) this.#ctx.watch.notify(cid);
  }
}
