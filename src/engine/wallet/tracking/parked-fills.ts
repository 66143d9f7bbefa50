/**
 * Maker fills the token movements cannot decide (two splits of our resting sells pay the same amount, and the
 * follower did not deliver the incoming order's trade event with its price) are parked, never guessed: the
 * pair pauses, the candidate orders are cancelled, and each cancellation's remaining quantity (or the order's
 * absence from the book) fixes what it had filled. Until then, further movements on the same side join the
 * parked record; once every candidate is decided, the fills are applied (the amounts of the wallet exact, the
 * per-fill price an estimate), then the cancellations, and the pair resumes.
 */
import { remainingOf } from '../../../core/order-state.ts';
import type { CancellationType, Side } from '../../../core/order-terms.ts';
import type { PendingCandidate, PendingFill } from '../../../store/pending-fills.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import { baseNative } from '../fills/amounts.ts';
import type { MakerCandidate } from '../fills/maker-fills.ts';
import { pairOf, type WalletContext } from '../wallet-context.ts';
import { raiseAlert } from '../alerts.ts';
import type { OrderEvents } from './order-events.ts';

export interface Movement {
  readonly txHash: string;
  readonly height: bigint;
  readonly atMs: number;
  readonly baseIn: bigint;
  readonly quoteIn: bigint;
}

export class ParkedFills {
  readonly #ctx: WalletContext;
  readonly #events: OrderEvents;
  /** Batches the follower applied in this process: a `gone` fate waits for one after it. */
  #batches = 0;
  readonly #goneAt = new Map<bigint, number>();

  constructor(ctx: WalletContext, events: OrderEvents) {
    this.#ctx = ctx;
    this.#events = events;
  }

  open(pairId: string, side: Side): PendingFill | undefined {
    return this.#ctx.repos.pendingFills.open(this.#ctx.chain, this.#ctx.wallet, pairId, side)[0];
  }

  /** The open record an order is an undecided candidate of. */
  #recordOf(order: StoredOrder): { record: PendingFill; at: number } | undefined {
    const record = this.open(order.pairId, order.side);
    const at = record?.candidates.findIndex((c) => c.clientOrderId === order.clientOrderId) ?? -1;
    return record === undefined || at < 0 || record.candidates[at]?.fate !== null ? undefined : { record, at };
  }

  isCandidate(order: StoredOrder): boolean {
    return this.#recordOf(order) !== undefined;
  }

  /** Parks a movement; a new record raises the alert that pauses the pair. */
  park(
    pairId: string,
    side: Side,
    m: Movement,
    candidates: readonly MakerCandidate[],
    options: ReadonlyArray<{ filled: bigint; price: bigint }>,
  ): void {
    const ctx = this.#ctx;
    const existing = this.open(pairId, side);
    // The same transaction delivered again (mined again after a reorganisation) is parked once.
    if (existing?.txHashes.includes(m.txHash) === true) return;
    const known = new Set(existing?.candidates.map((c) => c.clientOrderId) ?? []);
    const joining: PendingCandidate[] = candidates
      .filter((c) => !known.has(c.clientOrderId))
      .map((c) => ({
        clientOrderId: c.clientOrderId,
        orderId: c.orderId,
        price: c.price,
        remaining: c.remaining,
        fate: null,
      }));
    if (existing === undefined) {
      ctx.repos.pendingFills.create({
        chain: ctx.chain,
        wallet: ctx.wallet,
        pairId,
        side,
        txHashes: [m.txHash],
        height: m.height,
        atMs: m.atMs,
        baseIn: m.baseIn,
        quoteIn: m.quoteIn,
        options,
        candidates: joining,
      });
      raiseAlert(
        ctx,
        pairId,
        'ambiguous-fill',
        `token movements of ${m.txHash} fit more than one split over our resting ${side} orders; cancelling them to find out`,
        {
          txHash: m.txHash,
          baseIn: m.baseIn,
          quoteIn: m.quoteIn,
          options,
          candidates: joining.map((c) => c.clientOrderId),
        },
      );
    } else {
      ctx.repos.pendingFills.update({
        ...existing,
        txHashes: [...existing.txHashes, m.txHash],
        baseIn: existing.baseIn + m.baseIn,
        quoteIn: existing.quoteIn + m.quoteIn,
        candidates: [...existing.candidates, ...joining],
      });
      ctx.logger.warn({ txHash: m.txHash, pairId, side }, 'movement joins the parked maker fills of the pair');
    }
    const ids = joining.map((c) => c.clientOrderId);
    if (ids.length > 0) queueMicrotask(() => this.requestCancel(ids));
  }

  /** Asks the order manager for cancellations (called after the current transaction commits). */
  requestCancel(clientOrderIds: readonly bigint[]): void {
    this.#ctx.signals.cancelRequested.emit(clientOrderIds);
  }

  /** A candidate's cancellation: kept, and applied after the fills once every candidate is decided. */
  onCancelled(order: StoredOrder, by: CancellationType, quantity: bigint, key: string): boolean {
    const found = this.#recordOf(order);
    if (found === undefined) return false;
    this.#decide(found.record, found.at, { kind: 'cancelled', by, quantity, key });
    return true;
  }

  /** Our cancellation was refused because the order is no longer on the book: filled in full. */
  onGone(order: StoredOrder): void {
    const found = this.#recordOf(order);
    if (found !== undefined) this.#decide(found.record, found.at, { kind: 'gone' }, this.#batches);
  }

  #decide(record: PendingFill, at: number, fate: NonNullable<PendingCandidate['fate']>, goneAt?: number): void {
    const candidates = record.candidates.map((c, i) => (i === at ? { ...c, fate } : c));
    if (goneAt !== undefined) this.#goneAt.set((record.candidates[at] as PendingCandidate).clientOrderId, goneAt);
    this.#ctx.repos.pendingFills.update({ ...record, candidates });
    this.tryResolve();
  }

  /**
   * The follower applied a batch: `gone` fates recorded before it are now final (an admin or contract
   * cancellation the refusal may have raced would have come in chain order before it).
   */
  onBatch(): void {
    this.#batches++;
    this.tryResolve();
  }

  /** Undecided candidates that still rest, for reconciliation to cancel again after a restart. */
  undecided(): bigint[] {
    return this.#ctx.repos.pendingFills
      .open(this.#ctx.chain, this.#ctx.wallet)
      .flatMap((r) => r.candidates.filter((c) => c.fate === null).map((c) => c.clientOrderId));
  }

  /** Quote received for parked fills, by pair: inventory counts it before the fills are known. */
  parkedQuote(): Map<string, bigint> {
    const out = new Map<string, bigint>();
    for (const r of this.#ctx.repos.pendingFills.open(this.#ctx.chain, this.#ctx.wallet))
      out.set(r.pairId, (out.get(r.pairId) ?? 0n) + r.quoteIn);
    return out;
  }

  tryResolve(): void {
    for (const r of this.#ctx.repos.pendingFills.open(this.#ctx.chain, this.#ctx.wallet)) {
      const decided = r.candidates.every(
        (c) => c.fate !== null && (c.fate.kind !== 'gone' || (this.#goneAt.get(c.clientOrderId) ?? -1) < this.#batches),
      );
      // Decided by several transactions (movements and cancellations): recorded as derived from none of them.
      if (decided) this.#events.within(null, () => this.#resolve(r));
    }
  }

  #resolve(r: PendingFill): void {
    const ctx = this.#ctx;
    const pair = pairOf(ctx, r.pairId);
    const s = pair.binding.rules.scales;
    const orders = r.candidates.map((c) => ({
      c,
      order: ctx.repos.orders.get(ctx.wallet, c.clientOrderId) as StoredOrder,
    }));
    const fills = orders
      .map(({ c, order }) => ({
        c,
        order,
        f: remainingOf(order) - (c.fate?.kind === 'cancelled' ? c.fate.quantity : 0n),
      }))
      .filter((x) => x.f > 0n);
    const total = fills.reduce((n, x) => n + x.f, 0n);
    const option = r.options.find((o) => o.filled === total);
    // The wallet's quote is exact in total; it is shared by value at each order's limit, the rest on the last.
    const weight = fills.reduce((n, x) => n + x.f * x.c.price, 0n);
    let given = 0n;
    fills.forEach((x, i) => {
      const quote =
        i === fills.length - 1 ? r.quoteIn - given : weight === 0n ? 0n : (r.quoteIn * x.f * x.c.price) / weight;
      given += quote;
      const price = option?.price ?? x.c.price;
      const fillId = `${r.txHashes[0]}:${x.c.clientOrderId}`;
      const base = baseNative(x.f, s);
      this.#events.apply(
        x.order,
        { type: 'Filled', fillId, quantity: x.f, price, role: 'maker' },
        {
          fillId,
          wallet: ctx.wallet,
          clientOrderId: x.c.clientOrderId,
          pairId: r.pairId,
          side: r.side,
          role: 'maker',
          quantity: x.f,
          price,
          baseDelta: r.side === 'sell' ? -base : base,
          quoteDelta: r.side === 'sell' ? quote : -quote,
          fee: 0n,
          txHash: r.txHashes[0] ?? '',
          height: r.height,
          atMs: r.atMs,
        },
      );
    });
    for (const { c } of orders) {
      if (c.fate?.kind !== 'cancelled') continue;
      const now = ctx.repos.orders.get(ctx.wallet, c.clientOrderId) as StoredOrder;
      this.#events.apply(now, { type: 'Cancelled', by: c.fate.by, quantity: c.fate.quantity });
    }
    ctx.repos.pendingFills.resolve(r.id);
    for (const a of ctx.repos.alerts.open({
      chain: ctx.chain,
      wallet: ctx.wallet,
      pairId: r.pairId,
      kind: 'ambiguous-fill',
    })) {
      ctx.repos.alerts.resolve(a.id, `decided by the candidates' cancellations: ${total} filled`);
    }
    ctx.logger.warn(
      { pairId: r.pairId, txHashes: r.txHashes, filled: total, matchesAnOption: option !== undefined },
      'parked maker fills decided',
    );
  }
}
