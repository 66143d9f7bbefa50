/**
 * Approvals of the order book on the pair's tokens. A chain B approval carries an `expiration_ledger` that
 * the token never echoes back, so the adapter records it (the approvals the store keeps) and renews ahead of it.
 *
 * Pre-funded books take an order's tokens when its transaction applies. Several orders of one ledger go out
 * on different source accounts at once, so the chain's allowance does not yet show the orders in flight:
 * each order therefore reserves its need when it is sent, and the reservation is released when its outcome
 * settles (given back if it never applied, kept if it applied). The allowance left for the next order is the
 * chain's figure, read while nothing is reserved, less every reservation since; an approval overwrites the
 * allowance (Soroban `approve` sets, it does not add), so it is sized to cover the orders still in flight
 * too, and counted from its amount less what they reserved. An order that needs more waits for the approval's
 * inclusion before it is simulated (the simulation would otherwise refuse it). A top-up also covers the
 * placements waiting behind it for their turn (a round's ladder): one approval, not one per order, each
 * replacing the last before the orders it was for could use it.
 *
 * No-prefund books take nothing at placement: matching draws each resting order's tokens when it trades, so
 * the allowance must cover every live order of the wallet on the book together. The engine says what the
 * others may still draw (`committed`); the chain's figure is read for every order (fills lower it).
 */
import { DltError } from '../../core/errors.ts';
import type { ApprovalNeed } from '../../core/money.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { ApprovalStore } from '../ports.ts';
import type { Outcome, PairBinding, Submission, TokenRole } from '../types.ts';
import type { ApprovalOptions } from './options.ts';
import type { WasmReader } from './reads.ts';

export interface KeeperDeps {
  readonly reader: Pick<WasmReader, 'allowance'>;
  readonly state: ApprovalStore;
  readonly wallet: string;
  readonly options: ApprovalOptions;
  readonly logger: Logger;
  /** The latest ledger the adapter knows of (asks the node when it knows none). */
  readonly latestLedger: () => Promise<number>;
  /** Sends `approve(wallet, orderBook, amount, expirationLedger)` on the token. */
  readonly approve: (
    pair: PairBinding,
    role: TokenRole,
    amount: bigint,
    expirationLedger: number,
  ) => Promise<Submission>;
}

interface Entry {
  /** What new orders may still take: the chain's figure (or an approval's amount) less the reservations since. */
  available: bigint;
  expiresAtLedger: number | null;
  /** Orders sent and not settled, by reservation id. */
  readonly reserved: Map<number, bigint>;
  /** An order that applied may have taken less than it reserved: read the chain again once nothing is reserved. */
  stale: boolean;
}

/** An order's claim on the allowance, from its send until its outcome settles. */
export interface Reservation {
  readonly key: string;
  readonly id: number;
  readonly amount: bigint;
}

export class AllowanceKeeper {
  readonly #deps: KeeperDeps;
  readonly #entries = new Map<string, Entry>();
  /** Needs of placements waiting for their allowance step, by allowance: a top-up made meanwhile covers them. */
  readonly #waiting = new Map<string, Map<number, bigint>>();
  #nextId = 1;

  constructor(deps: KeeperDeps) {
    this.#deps = deps;
  }

  #token(pair: PairBinding, role: TokenRole): string {
    return role === 'base' ? pair.baseToken : pair.quoteToken;
  }

  #key(pair: PairBinding, role: TokenRole): string {
    return `${this.#token(pair, role)}|${pair.orderBook}`;
  }

  /** The expiry the adapter recorded for this approval; null when it never approved it. */
  recordedExpiry(pair: PairBinding, role: TokenRole): number | null {
    return (
      this.#deps.state.approval('wasm', this.#deps.wallet, this.#token(pair, role), pair.orderBook)?.expiresAtLedger ??
      null
    );
  }

  /**
   * A placement waits for its allowance step (the steps of one allowance run one at a time): until the returned
   * function is called, its need is added to a top-up another placement's step makes, so that the placements of
   * a round waiting together take one approval, not one each.
   */
  waiting(pair: PairBinding, role: TokenRole, amount: bigint): () => void {
    const key = this.#key(pair, role);
    const id = this.#nextId++;
    const queue = this.#waiting.get(key) ?? new Map<number, bigint>();
    this.#waiting.set(key, queue.set(id, amount));
    return () => {
      if (queue.delete(id) && queue.size === 0 && this.#waiting.get(key) === queue) this.#waiting.delete(key);
    };
  }

  #waitingFor(pair: PairBinding, role: TokenRole): bigint {
    let sum = 0n;
    for (const a of this.#waiting.get(this.#key(pair, role))?.values() ?? []) sum += a;
    return sum;
  }

  /** Reserved by orders in flight on this allowance. */
  reservedFor(pair: PairBinding, role: TokenRole): bigint {
    let sum = 0n;
    for (const a of this.#entries.get(this.#key(pair, role))?.reserved.values() ?? []) sum += a;
    return sum;
  }

  #expiryFresh(expiresAt: number | null, latest: number): boolean {
    return expiresAt !== null && expiresAt - latest > this.#deps.options.renewMarginLedgers;
  }

  #target(pair: PairBinding, role: TokenRole, required: bigint): bigint {
    const budget = this.#deps.options.budgets[pair.pairId]?.[role];
    const headroom = budget ?? required * BigInt(this.#deps.options.multiplier);
    return headroom > required ? headroom : required;
  }

  /** The entry, with the chain's figure read again when nothing is reserved and it may be out of date. */
  async #entry(pair: PairBinding, role: TokenRole, forceRead: boolean): Promise<Entry> {
    const key = this.#key(pair, role);
    let e = this.#entries.get(key);
    if (e === undefined || (e.reserved.size === 0 && (e.stale || forceRead))) {
      const onChain = await this.#deps.reader.allowance(this.#token(pair, role), pair.orderBook);
      const reserved = e?.reserved ?? new Map<number, bigint>();
      // Reservations made while the read was in flight are not in the chain's figure either.
      let held = 0n;
      for (const a of reserved.values()) held += a;
      e = { available: onChain - held, expiresAtLedger: this.recordedExpiry(pair, role), reserved, stale: false };
      this.#entries.set(key, e);
    }
    return e;
  }

  /**
   * The public path: null when at least `amount` can be taken and the recorded expiry is beyond the renewal
   * margin, else the approval's submission (not awaited).
   */
  async ensure(pair: PairBinding, role: TokenRole, amount: bigint): Promise<Submission | null> {
    const e = await this.#entry(pair, role, true);
    const latest = await this.#deps.latestLedger();
    if (e.available >= amount && this.#expiryFresh(e.expiresAtLedger, latest)) return null;
    return this.#approve(pair, role, this.#target(pair, role, amount) + this.reservedFor(pair, role), latest);
  }

  async #approve(pair: PairBinding, role: TokenRole, amount: bigint, latest: number): Promise<Submission> {
    const expiration = latest + this.#deps.options.lifetimeLedgers;
    const key = this.#key(pair, role);
    this.#deps.logger.info(
      {
        pair: pair.pairId,
        tokenRole: role,
        amount: amount.toString(),
        expirationLedger: expiration,
        inFlight: this.reservedFor(pair, role).toString(),
      },
      'approving the order book',
    );
    const submission = await this.#deps.approve(pair, role, amount, expiration);
    void submission.outcome.then((o) => {
      if (o.kind !== 'accepted') return;
      this.#deps.state.setApproval({
        chain: 'wasm',
        wallet: this.#deps.wallet,
        token: this.#token(pair, role),
        spender: pair.orderBook,
        amount,
        expiresAtLedger: expiration,
        txHash: o.txHash,
      });
      // The approval set the allowance; orders still in flight may land after it and take from it.
      const e = this.#entries.get(key) ?? {
        available: 0n,
        expiresAtLedger: null,
        reserved: new Map<number, bigint>(),
        stale: false,
      };
      e.available = amount - this.reservedFor(pair, role);
      e.expiresAtLedger = expiration;
      // Orders that landed before it took from the old allowance: the figure is low, read it again when idle.
      e.stale = e.reserved.size > 0;
      this.#entries.set(key, e);
    });
    return submission;
  }

  /**
   * The placement path: makes sure the order's need is approved, waiting for an approval's inclusion when one
   * is needed. Resolves with null when the order may go ahead, or the error that stops it. `prefunded`: the
   * book takes the tokens at placement; otherwise `committed` is what the wallet's other live orders on the
   * book may still draw.
   */
  async prepare(pair: PairBinding, need: ApprovalNeed, prefunded: boolean, committed = 0n): Promise<DltError | null> {
    const role = need.token;
    const latest = await this.#deps.latestLedger();
    const e = await this.#entry(pair, role, !prefunded);
    const required = prefunded ? need.amount : need.amount + committed;
    if (e.available >= required && this.#expiryFresh(e.expiresAtLedger, latest)) return null;
    const inFlight = prefunded ? this.reservedFor(pair, role) : 0n;
    const covered = required + this.#waitingFor(pair, role);
    const submission = await this.#approve(pair, role, this.#target(pair, role, covered) + inFlight, latest);
    const outcome = await submission.outcome;
    // The outcome handler registered in #approve has already recorded the approval and the new figure.
    if (outcome.kind === 'accepted') return null;
    const why = outcome.kind === 'rejected' ? outcome.error.message : outcome.reason;
    return new DltError(
      'E_VENUE_INSUFFICIENT_ALLOWANCE',
      `the ${role} approval this order needs did not go through: ${why}`,
      {
        details: { pair: pair.pairId, tokenRole: role, need: need.amount.toString() },
        cause: outcome.kind === 'rejected' ? outcome.error : undefined,
      },
    );
  }

  /**
   * An order was sent that may take `amount` when it applies (pre-funded books): reserved until its outcome
   * settles. On a no-prefund book nothing is taken at placement, and nothing is reserved.
   */
  reserve(pair: PairBinding, role: TokenRole, amount: bigint, prefunded: boolean): Reservation | null {
    if (!prefunded) return null;
    const key = this.#key(pair, role);
    const e = this.#entries.get(key) ?? {
      available: 0n,
      expiresAtLedger: this.recordedExpiry(pair, role),
      reserved: new Map<number, bigint>(),
      stale: true,
    };
    this.#entries.set(key, e);
    const id = this.#nextId++;
    e.reserved.set(id, amount);
    e.available -= amount;
    return { key, id, amount };
  }

  /** The order's outcome settled: one that never applied gives its reservation back; one that applied took it. */
  settle(r: Reservation, outcome: Outcome): void {
    const e = this.#entries.get(r.key);
    if (e === undefined || !e.reserved.delete(r.id)) return;
    if (outcome.kind === 'accepted') e.stale = true;
    else if (outcome.kind === 'rejected') e.available += r.amount;
    // Unknown: it may still apply; what it reserved stays taken, and the chain is read again when idle.
    else e.stale = true;
  }

  /**
   * The chain disagreed with the figure (a simulation found the allowance short, without even the orders in
   * flight): read it again, or, while orders are in flight, count nothing left so that the next order approves.
   */
  invalidate(pair: PairBinding, role: TokenRole): void {
    const e = this.#entries.get(this.#key(pair, role));
    if (e === undefined) return;
    if (e.reserved.size === 0) this.#entries.delete(this.#key(pair, role));
    else {
      e.available = 0n;
      e.stale = true;
    }
  }
}
