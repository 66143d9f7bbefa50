/**
 * Follows the wallet's order book and token events from the stored cursor. Each confirmed batch is applied
 * transaction by transaction and the cursor moves in the same SQLite transaction as the state changes the
 * batch caused, so a crash replays at most a batch whose effects were not kept (and the event log makes a
 * replay of one that was kept change nothing). Only confirmed events are applied; before a chain A batch is,
 * the outcomes applied from receipts that it decides are confirmed or withdrawn (provisional-outcomes.ts), and
 * a rollback of tentative events has the chain asked about the receipts they had confirmed. A retention gap
 * (or, on chain A, a reorganisation deeper than the confirmation depth) pauses the wallet and asks for a full
 * reconciliation.
 */
import type { ChainAdapter, ChainEvent, EventCursor, Follower, FollowerNotice } from '../../../chains/types.ts';
import type { WalletContext } from '../wallet-context.ts';
import { raiseAlert } from '../alerts.ts';
import { byTransaction } from './batches.ts';
import type { TxApplier } from './tx-applier.ts';

export function cursorFromJson(value: unknown): EventCursor | null {
  if (value === null || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  if (v.chain === 'evm' && typeof v.blockHash === 'string')
    return { chain: 'evm', height: BigInt(v.height as string), blockHash: v.blockHash };
  if (v.chain === 'wasm' && typeof v.cursor === 'string')
    return { chain: 'wasm', cursor: v.cursor, height: BigInt(v.height as string) };
  return null;
}

export class EventTracker {
  readonly #ctx: WalletContext;
  readonly #adapter: ChainAdapter;
  readonly #applier: TxApplier;
  #follower: Follower | null = null;
  #behind: bigint | null = null;
  /** Every event at or below this height has been applied (the follower's confirmed position); null: not known yet. */
  #covered: bigint | null = null;
  #notices = 0;
  #progress: Array<() => void> = [];
  #coverage: Array<() => void> = [];

  constructor(ctx: WalletContext, adapter: ChainAdapter, applier: TxApplier) {
    this.#ctx = ctx;
    this.#adapter = adapter;
    this.#applier = applier;
  }

  get running(): boolean {
    return this.#follower !== null;
  }

  cursor(): EventCursor | null {
    return cursorFromJson(this.#ctx.repos.state.cursor(this.#ctx.chain, this.#ctx.wallet));
  }

  /** The height through which every event of the wallet has been applied, as the follower last said. */
  get covered(): bigint | null {
    return this.#covered;
  }

  /**
   * Resolves true once every event at or below `height` has been applied (the follower said so), false at
   * the deadline. Asks the follower for a round now and waits on its own reports, not on a fixed pause.
   */
  async reached(height: bigint, timeoutMs: number): Promise<boolean> {
    if (this.#covered !== null && this.#covered >= height) return true;
    // Someone waits for the chain's latest events: the follower need not finish its pause first.
    this.#follower?.poll();
    const abort = new AbortController();
    const timedOut = this.#ctx.clock.sleep(timeoutMs, abort.signal).then(
      () => true,
      () => false,
    );
    for (;;) {
      const progressed = new Promise<false>((resolve) => this.#coverage.push(() => resolve(false)));
      const out = await Promise.race([progressed, timedOut]);
      if (this.#covered !== null && this.#covered >= height) {
        abort.abort();
        return true;
      }
      if (out) return false;
    }
  }

  start(): void {
    if (this.#follower !== null) return;
    // A new follower reports afresh: a lag heard from an earlier one says nothing about this one.
    this.#behind = null;
    const bindings = [...this.#ctx.pairs.values()].map((p) => p.binding);
    const from = this.cursor();
    this.#applier.provisional.start(from);
    this.#follower = this.#adapter.follow(bindings, from, (n) => this.#onNotice(n));
  }

  async stop(): Promise<void> {
    const f = this.#follower;
    this.#follower = null;
    if (f !== null) await f.stop();
  }

  /**
   * Resolves true once the follower reports it is at the head (`lag` 0), or, for a follower that reports lag
   * only when far behind, once it has been quiet for `quietMs` (longer than its poll interval: a round found
   * nothing more); false at the deadline.
   */
  async caughtUp(timeoutMs: number, quietMs = 5_000): Promise<boolean> {
    if (this.#behind === 0n) return true;
    const caught = await this.#waitCaughtUp(timeoutMs, quietMs);
    if (caught) this.#roundDone();
    return caught;
  }

  async #waitCaughtUp(timeoutMs: number, quietMs: number): Promise<boolean> {
    const reached = new Promise<'head'>((resolve) => this.#progress.push(() => resolve('head')));
    for (let waited = 0; waited < timeoutMs; waited += quietMs) {
      const before = this.#notices;
      const abort = new AbortController();
      const quiet = this.#ctx.clock.sleep(Math.min(quietMs, timeoutMs - waited), abort.signal).then(
        () => 'quiet' as const,
        () => 'quiet' as const,
      );
      const r = await Promise.race([reached, quiet]);
      abort.abort();
      if (r === 'head' || this.#notices === before) return true;
    }
    return false;
  }

  async #onNotice(n: FollowerNotice): Promise<void> {
    const ctx = this.#ctx;
    this.#notices++;
    switch (n.kind) {
      case 'events':
        if (!n.confirmed) {
          // Nothing is applied before it is final; what it shows keeps us from cancelling orders already gone.
          this.#applier.tentative.observe(n.events);
          return;
        }
        this.#apply(n.events, n.cursor);
        this.#applier.tentative.confirmedUpTo(n.cursor.height);
        return;
      case 'rollback':
        ctx.logger.info(
          { keys: n.keys.length },
          'tentative events withdrawn; receipts they had confirmed are checked with the chain',
        );
        this.#applier.tentative.clear();
        this.#applier.provisional.onRollback(n.keys);
        return;
      case 'gap':
        if (n.from?.chain === 'evm') {
          // A reorganisation deeper than the confirmation depth: the follower reads from there again.
          this.#applier.provisional.onDeepReorg(n.oldestAvailable);
          this.#behind = null;
        }
        raiseAlert(
          ctx,
          null,
          'event-gap',
          `events from ${String(n.from?.height ?? 'the start')} to ${n.oldestAvailable} are no longer available`,
          { from: n.from, oldestAvailable: n.oldestAvailable },
        );
        this.#ctx.signals.gap.emit();
        return;
      case 'lag':
        this.#behind = n.behind;
        if (n.covered !== undefined && (this.#covered === null || n.covered > this.#covered)) this.#covered = n.covered;
        for (const p of this.#coverage.splice(0)) p();
        ctx.metrics.followerLag.set({ chain: ctx.chain }, Number(n.behind));
        if (n.behind === 0n) {
          for (const p of this.#progress.splice(0)) p();
          this.#roundDone();
        }
        return;
    }
  }

  /** The follower completed a round at the head: what waited for it (parked fills) may proceed. */
  #roundDone(): void {
    this.#ctx.repos.atomically(() => this.#applier.parked.onBatch());
    this.#applier.events.flush();
  }

  #apply(events: readonly ChainEvent[], cursor: EventCursor): void {
    const ctx = this.#ctx;
    const provisional = this.#applier.provisional;
    let work;
    try {
      work = ctx.repos.atomically(() => {
        const w = provisional.beforeBatch(events, cursor);
        for (const tx of byTransaction(events)) {
          this.#applier.applyFollowed(tx);
          provisional.followed(tx);
        }
        ctx.repos.state.setCursor(ctx.chain, ctx.wallet, cursor);
        this.#applier.parked.onBatch();
        return w;
      });
    } catch (e) {
      this.#applier.events.discard();
      ctx.logger.error({ err: e, cursor }, 'applying a batch of events failed; the cursor stays where it was');
      throw e;
    }
    this.#applier.events.flush();
    provisional.afterBatch(work);
  }
}
