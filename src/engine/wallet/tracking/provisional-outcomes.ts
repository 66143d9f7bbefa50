/**
 * Chain A outcomes are applied from receipts at once (zero confirmations), and chain A blocks can be
 * reorganised away. Every change the engine derives from a chain A transaction is recorded with the
 * transaction and its block (order transitions, fills, event keys); the transactions applied from receipts
 * are listed as unconfirmed until the event follower's confirmed batches decide them:
 *
 * - the batch carries the transaction in the same block: the outcome stands (confirmed);
 * - the batch carries it in another block (mined again elsewhere), or the confirmed cursor passed its block
 *   and the batch, which covers that block, does not carry it: its changes are withdrawn before the batch is
 *   applied, so the batch applies the transaction as it now stands (a new order id, a cancel that never
 *   happened), and the order's open transaction is settled again from the chain;
 * - a `rollback` notice withdrawing its tentative events, or a batch that cannot tell (the block is older
 *   than what the batch covers): the chain is asked (`settle`); the same block stands, another decided answer
 *   (mined elsewhere, or its nonce taken by a self-transfer) is applied after the withdrawal, and an answer
 *   that decides nothing changes nothing (the next batch asks again).
 *
 * A withdrawal never edits an order by hand: the transitions derived from the transaction are marked
 * withdrawn and the order is derived again, through the core transition table, from the transitions that
 * still stand (a later one that no longer applies is withdrawn too, with its fill). The fills go with their
 * inventory change, the event keys are unmarked, alerts the transaction raised are resolved, and the order's
 * history gets a `rollback` entry that says why. Parked maker fills (decided by several transactions) are not
 * taken apart: a movement of theirs that is withdrawn raises an alert that pauses the pair.
 *
 * A reorganisation deeper than the follower's confirmation depth (its `gap` notice on chain A) makes every
 * transaction applied from that height on unconfirmed again, whoever applied it: the follower reads the range
 * again, and a maker fill whose transaction is gone is withdrawn the same way (re-applied if mined again).
 * Outcomes without events (a revert, a nonce taken by a self-transfer) stand once the cursor passes their
 * block: a transaction that never applied is right whether or not that block survives; one that shows up
 * later in another block is withdrawn first, like any application of a transaction seen in another block.
 *
 * Chain B ledgers are final: its events and outcomes name no block, and nothing here applies to them.
 */
import type { ChainEvent, EventCursor, Outcome } from '../../../chains/types.ts';
import { applyOrderEvent, newOrder, type OrderRecord } from '../../../core/order-state.ts';
import type { ChainApplication } from '../../../store/chain-applications.ts';
import type { FillRecord } from '../../../store/order-store.ts';
import { pairOf, type WalletContext } from '../wallet-context.ts';
import { isPaused, raiseAlert } from '../alerts.ts';
import type { OrderEvents } from './order-events.ts';
import { sourceOfEvents, sourceOfOutcome } from './sources.ts';

/** How far below the confirmed cursor applications are kept (deeper than any reorganisation re-read). */
export const KEEP_BLOCKS = 1024n;

/** What the engine does with a transaction's fate once its earlier application was withdrawn. */
/** The chain's answer for one of our transactions now (`ChainAdapter.settle`). */
export type SettleTx = (txHash: string, pairId: string) => Promise<Outcome>;

/** Work a batch leaves for after its transaction committed. */
export interface BatchWork {
  readonly verify: readonly ChainApplication[];
  readonly resettle: readonly bigint[];
}

const NOTHING: BatchWork = { verify: [], resettle: [] };

/** Alerts that one transaction raises on its own, and that go with it when it is withdrawn. */
const FROM_ONE_TRANSACTION: ReadonlySet<string> = new Set([
  'duplicate-placement',
  'order-resurrected',
  'terms-mismatch',
  'unexplained-fill',
  'unexplained-movement',
  'unexplained-cancel',
  'foreign-order',
]);

export class ProvisionalOutcomes {
  readonly #ctx: WalletContext;
  readonly #events: OrderEvents;
  readonly #settleTx: SettleTx;
  /** The lowest height the next confirmed batch covers (null: not known, the chain is asked instead). */
  #coverFrom: bigint | null = null;
  #confirmedHeight: bigint | null = null;
  readonly #verifying = new Map<string, Promise<void>>();
  #stopped = false;

  constructor(ctx: WalletContext, events: OrderEvents, settleTx: SettleTx) {
    this.#ctx = ctx;
    this.#events = events;
    this.#settleTx = settleTx;
  }

  /**
   * The follower starts from `cursor`: its first batch covers what lies above it. Outcomes still unconfirmed
   * from before (a restart) are asked about once, which also has the follower report their blocks' confirmation.
   */
  start(cursor: EventCursor | null): void {
    const ctx = this.#ctx;
    if (cursor?.chain !== 'evm') {
      this.#coverFrom = null;
    } else {
      this.#coverFrom = cursor.height + 1n;
      this.#confirmedHeight = cursor.height;
    }
    for (const a of ctx.repos.applications.unconfirmed(ctx.chain, ctx.wallet)) {
      if (ctx.repos.events.countFrom(ctx.chain, ctx.wallet, a.txHash, a.blockHash) > 0) this.#verify(a);
    }
  }

  /** An outcome read from a receipt of an earlier block than one the follower has confirmed the transaction in. */
  stale(o: Outcome): boolean {
    const src = sourceOfOutcome(o);
    if (src === null) return false;
    const ctx = this.#ctx;
    return ctx.repos.applications
      .ofTx(ctx.chain, ctx.wallet, src.txHash)
      .some((a) => a.blockHash !== src.blockHash && a.confirmed);
  }

  /** The settler applied a receipt's outcome for an order (call inside its transaction). */
  outcomeApplied(clientOrderId: bigint, kind: 'place' | 'cancel', o: Outcome): void {
    const src = sourceOfOutcome(o);
    if (src === null) return;
    const ctx = this.#ctx;
    const changed =
      ctx.repos.orders.sourcedBy(ctx.wallet, src.txHash, src.blockHash).length > 0 ||
      ctx.repos.events.countFrom(ctx.chain, ctx.wallet, src.txHash, src.blockHash) > 0;
    if (!changed) return;
    ctx.repos.applications.record({
      chain: ctx.chain,
      wallet: ctx.wallet,
      txHash: src.txHash,
      blockHash: src.blockHash,
      height: src.height,
      clientOrderId,
      kind,
      confirmed: false,
    });
  }

  /** The follower applied one confirmed transaction (call inside the batch's transaction). */
  followed(events: readonly ChainEvent[]): void {
    const src = sourceOfEvents(events);
    if (src === null) return;
    const ctx = this.#ctx;
    ctx.repos.applications.record({
      chain: ctx.chain,
      wallet: ctx.wallet,
      txHash: src.txHash,
      blockHash: src.blockHash,
      height: src.height,
      clientOrderId: null,
      kind: 'events',
      confirmed: true,
    });
  }

  /**
   * Decides the unconfirmed applications a confirmed batch can decide, before the batch is applied (call
   * inside the batch's transaction); what it leaves to ask the chain, and the orders to settle again, are
   * for `afterBatch` once the transaction committed.
   */
  beforeBatch(events: readonly ChainEvent[], cursor: EventCursor): BatchWork {
    if (cursor.chain !== 'evm') return NOTHING;
    const ctx = this.#ctx;
    const seen = new Map<string, Set<string>>();
    for (const e of events) {
      if (e.blockHash === null) continue;
      const blocks = seen.get(e.txHash) ?? new Set<string>();
      blocks.add(e.blockHash);
      seen.set(e.txHash, blocks);
    }
    const verify: ChainApplication[] = [];
    const resettle = new Set<bigint>();
    // A transaction applied from one block and now delivered from another was mined again elsewhere.
    for (const [txHash, blocks] of seen) {
      for (const a of ctx.repos.applications.ofTx(ctx.chain, ctx.wallet, txHash)) {
        if (!blocks.has(a.blockHash)) this.#withdraw(a, `mined again in block ${[...blocks].join(', ')}`, resettle);
      }
    }
    for (const a of ctx.repos.applications.unconfirmed(ctx.chain, ctx.wallet)) {
      const blocks = seen.get(a.txHash);
      if (blocks !== undefined) {
        if (blocks.has(a.blockHash)) ctx.repos.applications.confirm(a);
        continue;
      }
      if (a.height > cursor.height) continue;
      // Without events (a revert, a nonce taken by a self-transfer) the batch has nothing to check: it
      // stands, and is still withdrawn if its transaction shows up in another block later.
      if (ctx.repos.events.countFrom(ctx.chain, ctx.wallet, a.txHash, a.blockHash) === 0)
        ctx.repos.applications.confirm(a);
      else if (this.#coverFrom !== null && a.height >= this.#coverFrom)
        this.#withdraw(a, `block ${a.height} is no longer on the chain`, resettle);
      else verify.push(a);
    }
    this.#coverFrom = cursor.height + 1n;
    this.#confirmedHeight = cursor.height;
    if (cursor.height > KEEP_BLOCKS) ctx.repos.applications.prune(ctx.chain, ctx.wallet, cursor.height - KEEP_BLOCKS);
    return verify.length === 0 && resettle.size === 0 ? NOTHING : { verify, resettle: [...resettle] };
  }

  /** After the batch committed: the orders whose outcome was withdrawn are settled again, the rest asked. */
  afterBatch(work: BatchWork): void {
    for (const cid of work.resettle) this.#ctx.signals.settleAgain.emit(cid);
    for (const a of work.verify) this.#verify(a);
  }

  /** Tentative events withdrawn by the follower: the chain is asked about the receipts they confirmed. */
  onRollback(keys: readonly string[]): void {
    const ctx = this.#ctx;
    for (const s of ctx.repos.events.sourcesOf(ctx.chain, ctx.wallet, keys)) {
      const a = ctx.repos.applications.get({ chain: ctx.chain, wallet: ctx.wallet, ...s });
      if (a !== undefined && !a.confirmed) this.#verify(a);
    }
  }

  /** A reorganisation deeper than the confirmation depth: the follower delivers everything from `height` again. */
  onDeepReorg(height: bigint): void {
    const ctx = this.#ctx;
    const n = ctx.repos.applications.unconfirmFrom(ctx.chain, ctx.wallet, height);
    this.#coverFrom = height;
    ctx.logger.error(
      { from: height.toString(), transactions: n },
      'chain A reorganisation deeper than the confirmation depth: what was applied from that height on is checked again',
    );
  }

  /** The engine stops: answers still to come change nothing. */
  stop(): void {
    this.#stopped = true;
  }

  /** Resolves once every question to the chain that is under way has been answered and applied. */
  async idle(): Promise<void> {
    while (this.#verifying.size > 0) await Promise.allSettled([...this.#verifying.values()]);
  }

  #verify(a: ChainApplication): void {
    const ctx = this.#ctx;
    const id = `${a.txHash}@${a.blockHash}`;
    if (this.#verifying.has(id) || a.clientOrderId === null) return;
    const order = ctx.repos.orders.get(ctx.wallet, a.clientOrderId);
    if (order === undefined) return;
    const run = (async () => {
      try {
        const o = await this.#settleTx(a.txHash, order.pairId);
        if (!this.#stopped) this.#answered(a, o);
      } catch (e) {
        if (this.#stopped) return;
        ctx.logger.warn(
          { err: e, txHash: a.txHash, block: a.blockHash },
          'could not ask the chain about a provisional outcome; the next confirmed batch asks again',
        );
      } finally {
        this.#verifying.delete(id);
      }
    })();
    this.#verifying.set(id, run);
  }

  /** The chain's answer about an unconfirmed application. */
  #answered(a: ChainApplication, o: Outcome): void {
    const ctx = this.#ctx;
    const now = ctx.repos.applications.get(a);
    if (now === undefined || now.confirmed || a.clientOrderId === null) return;
    // Not decided (a node that cannot tell, an adapter closing): nothing is withdrawn on that; asked again later.
    if (o.kind === 'unknown') return;
    const src = sourceOfOutcome(o);
    if (src !== null && src.txHash === a.txHash && src.blockHash === a.blockHash) {
      // Still in its block: final once the follower's cursor has passed it.
      if (this.#confirmedHeight !== null && a.height <= this.#confirmedHeight) ctx.repos.applications.confirm(a);
      return;
    }
    const others = new Set<bigint>();
    this.#run(() =>
      this.#withdraw(a, `the chain now says ${o.kind}${src === null ? '' : ` in block ${src.height}`}`, others),
    );
    others.delete(a.clientOrderId);
    ctx.signals.outcomeAnswered.emit({
      clientOrderId: a.clientOrderId,
      kind: a.kind === 'cancel' ? 'cancel' : 'place',
      outcome: o,
    });
    for (const cid of others) ctx.signals.settleAgain.emit(cid);
  }

  #run(fn: () => void): void {
    try {
      this.#ctx.repos.atomically(fn);
    } catch (e) {
      this.#events.discard();
      throw e;
    }
    this.#events.flush();
  }

  /** Withdraws every change derived from one transaction in one block (call inside a transaction). */
  #withdraw(a: ChainApplication, reason: string, resettle: Set<bigint>): void {
    const ctx = this.#ctx;
    const { txHash, blockHash } = a;
    for (const f of ctx.repos.orders.fillsFrom(ctx.wallet, txHash, blockHash)) this.#dropFill(f);
    const orders = ctx.repos.orders.sourcedBy(ctx.wallet, txHash, blockHash);
    ctx.repos.orders.withdrawSource(ctx.wallet, txHash, blockHash);
    const why = { type: 'Withdrawn', txHash, blockHash, height: a.height, reason };
    for (const cid of orders) {
      this.#rederive(cid, why);
      resettle.add(cid);
    }
    const keys = ctx.repos.events.unmarkFrom(ctx.chain, ctx.wallet, txHash, blockHash);
    for (const alert of ctx.repos.alerts.open({ chain: ctx.chain, wallet: ctx.wallet })) {
      if (!FROM_ONE_TRANSACTION.has(alert.kind) || (alert.details as { txHash?: unknown } | null)?.txHash !== txHash)
        continue;
      ctx.repos.alerts.resolve(
        alert.id,
        `raised from transaction ${txHash} in block ${blockHash}, which a reorganisation removed`,
      );
      if (alert.pairId !== null) isPaused(ctx, alert.pairId);
    }
    // Parked maker fills are decided by several transactions; one of their movements may now be gone.
    for (const parked of ctx.repos.pendingFills.open(ctx.chain, ctx.wallet)) {
      if (!parked.txHashes.includes(txHash)) continue;
      raiseAlert(
        ctx,
        parked.pairId,
        'reorganised-parked-fill',
        `parked maker fills of ${parked.pairId} include a movement of ${txHash}, whose block a reorganisation removed; check them against the chain`,
        { txHash, blockHash, parked: parked.id },
      );
    }
    ctx.repos.applications.remove(a);
    ctx.metrics.withdrawn.inc({ chain: ctx.chain, kind: a.kind });
    ctx.logger.warn(
      { txHash, block: blockHash, height: a.height.toString(), kind: a.kind, orders, keys, reason },
      'chain A transaction withdrawn: its block was reorganised away',
    );
  }

  /** Derives an order again, through the transition table, from the transitions that still stand. */
  #rederive(clientOrderId: bigint, why: unknown): void {
    const ctx = this.#ctx;
    const order = ctx.repos.orders.get(ctx.wallet, clientOrderId);
    if (order === undefined) return;
    let record: OrderRecord = newOrder(order);
    for (const t of ctx.repos.orders.standing(ctx.wallet, clientOrderId)) {
      const r = applyOrderEvent(record, t.event);
      if (r.ok) {
        record = r.order;
        continue;
      }
      // It followed what was withdrawn and no longer applies (a cancel request of an order that is not placed).
      ctx.repos.orders.withdrawTransition(t.id);
      if (t.event.type === 'Filled') {
        const f = ctx.repos.orders.fill(t.event.fillId);
        if (f !== undefined) this.#dropFill(f);
      }
      ctx.logger.warn(
        { clientOrderId, event: t.event, reason: r.reason },
        'a later transition no longer applies once the reorganised transaction is withdrawn; withdrawn too',
      );
    }
    ctx.repos.orders.rederive(ctx.wallet, clientOrderId, record, why);
    this.#events.touched(clientOrderId);
  }

  #dropFill(f: FillRecord): void {
    const ctx = this.#ctx;
    const b = pairOf(ctx, f.pairId).binding;
    ctx.repos.inventory.add(ctx.chain, ctx.wallet, b.baseToken, -f.baseDelta);
    ctx.repos.inventory.add(ctx.chain, ctx.wallet, b.quoteToken, -f.quoteDelta);
    ctx.repos.orders.deleteFill(f.fillId);
  }
}
