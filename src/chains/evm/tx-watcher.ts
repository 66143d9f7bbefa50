/**
 * Follows every nonce of the wallet in flight until the chain settles it. Each poll reads the wallet's mined
 * nonce count once; a nonce below it is settled by whichever of its transactions has a receipt (the others are
 * `replaced`), or, when none of ours is mined, as taken by a transaction this bot did not send. A nonce not
 * mined in time is re-signed at the same nonce with higher fees and the same payload, up to a limit, then
 * cancelled with a zero-value self-transfer (`nonce-replacer.ts`; every replacement is journalled before it is
 * sent). The journal's records of a nonce become a slot again in `journal-groups.ts`.
 *
 * A reorganisation can drop a transaction that was mined: the wallet's mined count then falls below what it
 * was. Such an orphaned nonce is taken back, as a stuck one is, with a zero-value self-transfer at a higher
 * fee: the placement or cancellation it carried was decided against a book that has since changed, so it is
 * not revived (if the network mines the original first, its receipt decides); an approval is sent again as it
 * was. The nonces up to the highest mined count seen stay taken, so none of them is handed out again.
 */
import { WOKEN } from '../../core/clock.ts';
import { CHAIN_NODE, incidentsOf, reportedRound } from '../../telemetry/incidents.ts';
import type { HeadSightings } from '../head-sightings.ts';
import type { TxRecord } from '../ports.ts';
import type { Outcome } from '../types.ts';
import { minedGroup, orphanedSlot, restoredSlot, wasMined } from './journal-groups.ts';
import { isTakenBack, NonceReplacer, type ReplacerDeps } from './nonce-replacer.ts';
import {
  minedAttempt,
  NonceSlot,
  reportSettled,
  supersededOutcome,
  type Attempt,
  type Mined,
  type SlotCommand,
} from './nonce-slot.ts';
import type { ReceiptOptions, Sleep } from './options.ts';
import type { Receipt } from './rpc-client.ts';
import { broadcast } from './send-verdict.ts';
import type { SignedTx } from './tx-signer.ts';

export interface WatcherDeps extends ReplacerDeps {
  readonly sleep: Sleep;
  readonly options: ReceiptOptions;
  /** The outcome of a mined transaction of a slot (decoding needs the adapter's pairs). */
  readonly outcomeOf: (receipt: Receipt, slot: NonceSlot, mined: Attempt) => Promise<Outcome>;
  /** Where each poll reports the block number it asked for in the same batch (the follower waits on it). */
  readonly heads?: HeadSightings;
}

const SETTLE_BATCH = 8;

export class TxWatcher {
  readonly #deps: WatcherDeps;
  readonly #slots = new Map<bigint, NonceSlot>();
  #wake = new AbortController();
  #wakeRequested = false;
  #closed = false;
  #loop: Promise<void> | null = null;
  #idleWaiters: (() => void)[] = [];
  readonly #replacer: NonceReplacer;
  /** The highest mined nonce count seen: a lower count later means a reorganisation dropped nonces below it. */
  #highWater = 0n;

  constructor(deps: WatcherDeps) {
    this.#deps = deps;
    this.#replacer = new NonceReplacer(deps);
  }

  get size(): number {
    return this.#slots.size;
  }

  /** Resolves once no nonce is in flight (the chain state then is the state the next transaction meets). */
  idle(): Promise<void> {
    if (this.#slots.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  inFlightNonces(): bigint[] {
    return [...this.#slots.keys()];
  }

  /** Nonces that must not be handed out again: those in flight and every one below the highest mined count seen. */
  takenNonces(): bigint[] {
    const taken = this.inFlightNonces();
    if (this.#highWater > 0n) taken.push(this.#highWater - 1n);
    return taken;
  }

  slotOf(txHash: string): NonceSlot | undefined {
    const h = txHash.toLowerCase();
    for (const s of this.#slots.values()) if (s.hashes.includes(h)) return s;
    return undefined;
  }

  slotAt(nonce: bigint): NonceSlot | undefined {
    return this.#slots.get(nonce);
  }

  /** Starts following a nonce whose first transaction was sent (or whose broadcast is in doubt). */
  track(signed: SignedTx, command: SlotCommand, uncertain: boolean): NonceSlot {
    const now = this.#deps.clock.now();
    const slot = new NonceSlot(signed.nonce, command, now + this.#deps.options.outcomeTimeoutMs);
    slot.attempts.push({ signed, role: 'original', sentAtMs: now });
    slot.uncertain = uncertain;
    this.#slots.set(signed.nonce, slot);
    this.#deps.metrics?.inFlight.set(this.#slots.size);
    this.wake();
    return slot;
  }

  /** Takes back the journal's unsettled transactions after a restart, grouped by nonce. */
  restore(records: readonly TxRecord[]): void {
    const now = this.#deps.clock.now();
    const byNonce = Map.groupBy(records, (r) => r.sequence);
    for (const [nonce, group] of byNonce) {
      const slot = restoredSlot(nonce, group, now + this.#deps.options.outcomeTimeoutMs);
      this.#slots.set(nonce, slot);
    }
    this.#deps.metrics?.inFlight.set(this.#slots.size);
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  wake(): void {
    this.#wakeRequested = true;
    this.#wake.abort(WOKEN);
  }

  async close(reason: string): Promise<void> {
    this.#closed = true;
    this.wake();
    await this.#loop;
    for (const s of this.#slots.values()) s.abandon(reason);
    for (const w of this.#idleWaiters.splice(0)) w();
  }

  async #run(): Promise<void> {
    while (!this.#closed) {
      await reportedRound(this.#deps.logger, this.#deps.clock, CHAIN_NODE.evm, 'receipt poll', () => this.poll());
      if (this.#closed) break;
      if (this.#wakeRequested) {
        this.#wakeRequested = false;
        continue;
      }
      this.#wake = new AbortController();
      try {
        await this.#deps.sleep(this.#deps.options.pollIntervalMs, this.#wake.signal);
      } catch {
        // Woken early: a new transaction or the adapter closing.
      }
      this.#wakeRequested = false;
    }
  }

  /** One round over every nonce in flight (the loop calls it; tests may too). */
  async poll(): Promise<void> {
    if (this.#slots.size === 0) return;
    const heads = this.#deps.heads;
    const [mined, head] = await Promise.all([
      this.#deps.rpc.transactionCount(this.#deps.signer.address, 'latest'),
      heads === undefined ? null : this.#deps.rpc.blockNumber().catch(() => null),
    ]);
    if (heads !== undefined && head !== null) heads.see(Number(head), this.#deps.clock.now());
    if (mined < this.#highWater) await this.reclaimOrphans();
    else this.#highWater = mined;
    const slots = [...this.#slots.values()].toSorted((a, b) => (a.nonce < b.nonce ? -1 : 1));
    // A few at a time: a block with hundreds of our transactions must not stall the sending lane's event loop.
    const done = slots.filter((s) => s.nonce < mined);
    // Receipts are read side by side; nonces settle in nonce order, as the chain applied them.
    for (let i = 0; i < done.length; i += SETTLE_BATCH) {
      const batch = done.slice(i, i + SETTLE_BATCH);
      const found = await Promise.all(
        batch.map((s) => minedAttempt(s, this.#deps).catch((e: unknown) => (this.#failed(s, e), undefined))),
      );
      batch.forEach((s, k) => this.#settleMined(s, found[k]));
    }
    for (const s of slots.filter((x) => x.nonce >= mined))
      await this.#checkPending(s).catch((e: unknown) => this.#failed(s, e));
    const now = this.#deps.clock.now();
    for (const s of this.#slots.values()) {
      if (!s.expire(now)) continue;
      this.#deps.metrics?.submissions.inc({ kind: s.command.kind, outcome: 'unknown' });
      this.#deps.logger.warn(
        { ...s.command.context, nonce: s.nonce.toString(), txHash: s.latest.signed.hash },
        `chain A ${s.command.kind} outcome unknown at the deadline; still followed`,
      );
    }
    this.#deps.metrics?.inFlight.set(this.#slots.size);
  }

  /** One nonce's trouble (an unreadable receipt, a node error) waits for the next poll without holding up the others. */
  #failed(slot: NonceSlot, e: unknown): void {
    const fields = { ...slot.command.context, nonce: slot.nonce.toString() };
    incidentsOf(this.#deps.logger).failed(CHAIN_NODE.evm, this.#deps.clock.now(), 'receipt check', e, fields);
  }

  /** `mined`: what `minedAttempt` found; undefined when reading it failed (the next poll tries again). */
  #settleMined(slot: NonceSlot, mined: Mined | null | undefined): void {
    if (mined === undefined) return;
    if (mined !== null) {
      this.#finish(slot, mined.outcome, mined.hash, mined.status, mined.fee);
      return;
    }
    // A node behind a load balancer may count the nonce before it serves the receipt: wait a few polls.
    slot.missingPolls += 1;
    if (slot.missingPolls < this.#deps.options.supersededAfterPolls) return;
    this.#deps.metrics?.nonceResyncs.inc({ reason: 'superseded' });
    this.#finish(slot, supersededOutcome(slot), null, 'dropped');
  }

  #finish(
    slot: NonceSlot,
    outcome: Outcome,
    minedHash: string | null,
    status: 'included' | 'failed' | 'dropped',
    fee: bigint | null = null,
  ): void {
    if (slot.nonce + 1n > this.#highWater) this.#highWater = slot.nonce + 1n;
    for (const a of slot.attempts) {
      if (a.signed.hash === minedHash) this.#deps.journal.mark(a.signed.hash, status, null, fee);
      else if (minedHash !== null) this.#deps.journal.mark(a.signed.hash, 'replaced', minedHash);
      else this.#deps.journal.mark(a.signed.hash, 'dropped');
    }
    this.#slots.delete(slot.nonce);
    if (this.#slots.size === 0) for (const w of this.#idleWaiters.splice(0)) w();
    reportSettled(this.#deps, slot, outcome);
    slot.settle(outcome);
  }

  async #checkPending(slot: NonceSlot): Promise<void> {
    if (isTakenBack(slot)) {
      // It may carry a stale price or decision: its nonce is cancelled, the command never revived.
      await this.#replacer.replace(slot, 'cancel');
      return;
    }
    if (slot.uncertain) {
      const r = await broadcast(this.#deps.rpc, slot.latest.signed.raw);
      if (r.kind === 'sent' || r.kind === 'known') {
        slot.uncertain = false;
        this.#deps.journal.mark(slot.latest.signed.hash, 'sent');
      }
    }
    if (this.#deps.clock.now() - slot.latest.sentAtMs < this.#deps.options.stuckAfterMs) return;
    const cancel = slot.cancelling || slot.bumps >= this.#deps.options.maxReplacements;
    await this.#replacer.replace(slot, cancel ? 'cancel' : 'bump');
  }

  /**
   * Sends again every nonce in flight from `pending` up (the node lost them), in nonce order, after taking back
   * the nonces a reorganisation dropped.
   */
  async rebroadcastFrom(pending: bigint): Promise<void> {
    await this.reclaimOrphans();
    const slots = [...this.#slots.values()]
      .filter((s) => s.nonce >= pending)
      .toSorted((a, b) => (a.nonce < b.nonce ? -1 : 1));
    for (const s of slots) {
      if (isTakenBack(s)) await this.#replacer.replace(s, 'cancel');
      else await broadcast(this.#deps.rpc, s.latest.signed.raw);
    }
  }

  /**
   * Follows again, as orphaned, every nonce of ours that was mined and is no longer: from the node's pending
   * count up to the highest mined count seen (or `upTo`, when the caller knows of a higher one). A nonce with
   * no transaction of ours mined in the journal, or whose transaction still has a receipt (a node serving an
   * older block counts fewer), is left alone. Returns the nonces taken back; the poll sends their replacements.
   */
  async reclaimOrphans(upTo: bigint = this.#highWater): Promise<bigint[]> {
    if (upTo > this.#highWater) this.#highWater = upTo;
    const address = this.#deps.signer.address;
    const pending = await this.#deps.rpc.transactionCount(address, 'pending');
    const taken: bigint[] = [];
    for (let n = pending; n < this.#highWater; n++) {
      if (this.#slots.has(n)) continue;
      const group = minedGroup(this.#deps.journal.atSequence('evm', address, n));
      if (group === null) continue;
      let stillMined = false;
      for (const r of group) if ((await this.#deps.rpc.receipt(r.txHash)) !== null) stillMined = true;
      if (stillMined || this.#slots.has(n)) continue;
      const mined = group.find(wasMined) as TxRecord;
      const slot = orphanedSlot(n, group, mined, this.#deps.clock.now() + this.#deps.options.outcomeTimeoutMs);
      const kind = slot.command.kind;
      this.#deps.journal.mark(mined.txHash, 'sent');
      this.#slots.set(n, slot);
      taken.push(n);
      this.#deps.metrics?.nonceResyncs.inc({ reason: 'reorg' });
      this.#deps.logger.warn(
        { ...slot.command.context, kind, nonce: n.toString(), txHash: mined.txHash },
        `chain A ${kind} mined, then dropped by a reorganisation: ${kind === 'approve' ? 'sending it again' : 'taking its nonce back'}`,
      );
    }
    if (taken.length > 0) {
      this.#deps.metrics?.inFlight.set(this.#slots.size);
      this.wake();
    }
    return taken;
  }
}
