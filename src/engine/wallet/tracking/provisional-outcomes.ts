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
import type { ChainApplication } from '../../../store/chain-applications.ts';
import { type WalletContext } from '../wallet-context.ts';
import type { OrderEvents } from './order-events.ts';
import { withdrawApplication } from './withdrawal.ts';
import { sourceOfEvents, sourceOfOutcome } from './sources.ts';

/** How far below the confirmed cursor applications are kept (deeper than any reorganisation re-read). */
export const KEEP_BLOCKS = 1024n;

/** The chain's answer for one of our transactions now (`ChainAdapter.settle`). */
export type SettleTx = (txHash: string, pairId: string) => Promise<Outcome>;

/** Work a batch leaves for after its transaction committed. */
export interface BatchWork {
  readonly verify: readonly ChainApplication[];
  readonly resettle: readonly bigint[];
}

const NOTHING: BatchWork = { verify: [], resettle: [] };

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
    for (const application of ctx.repos.applications.unconfirmed(ctx.chain, ctx.wallet)) {
      if (ctx.repos.events.countFrom(ctx.chain, ctx.wallet, application.txHash, application.blockHash) > 0)
        this.#verify(application);
    }
  }

  /** An outcome read from a receipt of an earlier block than one the follower has confirmed the transaction in. */
  stale(outcome: Outcome): boolean {
    const source = sourceOfOutcome(outcome);
    if (source === null) return false;
    const ctx = this.#ctx;
    return ctx.repos.applications
      .ofTx(ctx.chain, ctx.wallet, source.txHash)
      .some((application) => application.blockHash !== source.blockHash && application.confirmed);
  }

  /** The settler applied a receipt's outcome for an order (call inside its transaction). */
  outcomeApplied(clientOrderId: bigint, kind: 'place' | 'cancel', outcome: Outcome): void {
    const source = sourceOfOutcome(outcome);
    if (source === null) return;
    const ctx = this.#ctx;
    const changed =
      ctx.repos.orders.sourcedBy(ctx.wallet, source.txHash, source.blockHash).length > 0 ||
      ctx.repos.events.countFrom(ctx.chain, ctx.wallet, source.txHash, source.blockHash) > 0;
    if (!changed) return;
    ctx.repos.applications.record({
      chain: ctx.chain,
      wallet: ctx.wallet,
      txHash: source.txHash,
      blockHash: source.blockHash,
      height: source.height,
      clientOrderId,
      kind,
      confirmed: false,
    });
  }

  /** The follower applied one confirmed transaction (call inside the batch's transaction). */
  followed(events: readonly ChainEvent[]): void {
    const source = sourceOfEvents(events);
    if (source === null) return;
    const ctx = this.#ctx;
    ctx.repos.applications.record({
      chain: ctx.chain,
      wallet: ctx.wallet,
      txHash: source.txHash,
      blockHash: source.blockHash,
      height: source.height,
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
    for (const event of events) {
      if (event.blockHash === null) continue;
      const blocks = seen.get(event.txHash) ?? new Set<string>();
      blocks.add(event.blockHash);
      seen.set(event.txHash, blocks);
    }
    const verify: ChainApplication[] = [];
    const resettle = new Set<bigint>();
    // A transaction applied from one block and now delivered from another was mined again elsewhere.
    for (const [txHash, blocks] of seen) {
      for (const application of ctx.repos.applications.ofTx(ctx.chain, ctx.wallet, txHash)) {
        if (!blocks.has(application.blockHash))
          withdrawApplication(
            this.#ctx,
            this.#events,
            application,
            `mined again in block ${[...blocks].join(', ')}`,
            resettle,
          );
      }
    }
    for (const application of ctx.repos.applications.unconfirmed(ctx.chain, ctx.wallet)) {
      const blocks = seen.get(application.txHash);
      if (blocks !== undefined) {
        if (blocks.has(application.blockHash)) ctx.repos.applications.confirm(application);
        continue;
      }
      if (application.height > cursor.height) continue;
      // Without events (application revert, application nonce taken by application self-transfer) the batch has nothing to check: it
      // stands, and is still withdrawn if its transaction shows up in another block later.
      if (ctx.repos.events.countFrom(ctx.chain, ctx.wallet, application.txHash, application.blockHash) === 0)
        ctx.repos.applications.confirm(application);
      else if (this.#coverFrom !== null && application.height >= this.#coverFrom)
        withdrawApplication(
          this.#ctx,
          this.#events,
          application,
          `block ${application.height} is no longer on the chain`,
          resettle,
        );
      else verify.push(application);
    }
    this.#coverFrom = cursor.height + 1n;
    this.#confirmedHeight = cursor.height;
    if (cursor.height > KEEP_BLOCKS) ctx.repos.applications.prune(ctx.chain, ctx.wallet, cursor.height - KEEP_BLOCKS);
    return verify.length === 0 && resettle.size === 0 ? NOTHING : { verify, resettle: [...resettle] };
  }

  /** After the batch committed: the orders whose outcome was withdrawn are settled again, the rest asked. */
  afterBatch(work: BatchWork): void {
    for (const cid of work.resettle) this.#ctx.signals.settleAgain.emit(cid);
    for (const application of work.verify) this.#verify(application);
  }

  /** Tentative events withdrawn by the follower: the chain is asked about the receipts they confirmed. */
  onRollback(keys: readonly string[]): void {
    const ctx = this.#ctx;
    for (const source of ctx.repos.events.sourcesOf(ctx.chain, ctx.wallet, keys)) {
      const application = ctx.repos.applications.get({ chain: ctx.chain, wallet: ctx.wallet, ...source });
      if (application !== undefined && !application.confirmed) this.#verify(application);
    }
  }

  /** A reorganisation deeper than the confirmation depth: the follower delivers everything from `height` again. */
  onDeepReorg(height: bigint): void {
    const ctx = this.#ctx;
    const count = ctx.repos.applications.unconfirmFrom(ctx.chain, ctx.wallet, height);
    this.#coverFrom = height;
    ctx.logger.error(
      { from: height.toString(), transactions: count },
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

  #verify(application: ChainApplication): void {
    const ctx = this.#ctx;
    const id = `${application.txHash}@${application.blockHash}`;
    if (this.#verifying.has(id) || application.clientOrderId === null) return;
    const order = ctx.repos.orders.get(ctx.wallet, application.clientOrderId);
    if (order === undefined) return;
    const run = (async () => {
      try {
        const outcome = await this.#settleTx(application.txHash, order.pairId);
        if (!this.#stopped) this.#answered(application, outcome);
      } catch (err) {
        if (this.#stopped) return;
        ctx.logger.warn(
          { err, txHash: application.txHash, block: application.blockHash },
          'could not ask the chain about application provisional outcome; the next confirmed batch asks again',
        );
      } finally {
        this.#verifying.delete(id);
      }
    })();
    this.#verifying.set(id, run);
  }

  /** The chain's answer about an unconfirmed application. */
  #answered(application: ChainApplication, outcome: Outcome): void {
    const ctx = this.#ctx;
    const now = ctx.repos.applications.get(application);
    if (now === undefined || now.confirmed || application.clientOrderId === null) return;
    // Not decided (application node that cannot tell, an adapter closing): nothing is withdrawn on that; asked again later.
    if (outcome.kind === 'unknown') return;
    const source = sourceOfOutcome(outcome);
    if (source !== null && source.txHash === application.txHash && source.blockHash === application.blockHash) {
      // Still in its block: final once the follower's cursor has passed it.
      if (this.#confirmedHeight !== null && application.height <= this.#confirmedHeight)
        ctx.repos.applications.confirm(application);
      return;
    }
    const others = new Set<bigint>();
    this.#run(() =>
      withdrawApplication(
        this.#ctx,
        this.#events,
        application,
        `the chain now says ${outcome.kind}${source === null ? '' : ` in block ${source.height}`}`,
        others,
      ),
    );
    others.delete(application.clientOrderId);
    ctx.signals.outcomeAnswered.emit({
      clientOrderId: application.clientOrderId,
      kind: application.kind === 'cancel' ? 'cancel' : 'place',
      outcome: outcome,
    });
    for (const cid of others) ctx.signals.settleAgain.emit(cid);
  }

  #run(fn: () => void): void {
    try {
      this.#ctx.repos.atomically(fn);
    } catch (err) {
      this.#events.discard();
      throw err;
    }
    this.#events.flush();
  }
}
