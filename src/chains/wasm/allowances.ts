/**
 * Approvals of the order book on the pair's tokens. A chain B approval carries an `expiration_ledger` that
 * the token never echoes back, so the adapter records it (StateStore approvals table) and renews ahead of
 * it. On the placement path the keeper keeps an estimate of the allowance left (read once, then lowered by
 * each order's need) so that an order costs no extra round trip; when the estimate falls short of the next
 * order, or the expiry is near, it re-reads the chain and approves a bounded budget, then waits for that
 * approval to be included before the order is simulated (the simulation would otherwise refuse it).
 */
import { DltError } from '../../core/errors.ts';
import type { ApprovalNeed } from '../../core/money.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { StateStore } from '../../store/state-store.ts';
import type { PairBinding, Submission, TokenRole } from '../types.ts';
import type { ApprovalOptions } from './options.ts';
import type { ChainReader } from './reads.ts';

export interface KeeperDeps {
  readonly reader: ChainReader;
  readonly state: StateStore;
  readonly wallet: string;
  readonly options: ApprovalOptions;
  readonly logger: Logger;
  /** The latest ledger the adapter knows of (asks the node when it knows none). */
  readonly latestLedger: () => Promise<number>;
  /** Sends `approve(wallet, orderBook, amount, expirationLedger)` on the token. */
  readonly approve: (pair: PairBinding, role: TokenRole, amount: bigint, expirationLedger: number) => Promise<Submission>;
}

interface Estimate {
  remaining: bigint;
  expiresAtLedger: number | null;
}

export class AllowanceKeeper {
  readonly #d: KeeperDeps;
  readonly #estimates = new Map<string, Estimate>();

  constructor(deps: KeeperDeps) {
    this.#d = deps;
  }

  #token(pair: PairBinding, role: TokenRole): string {
    return role === 'base' ? pair.baseToken : pair.quoteToken;
  }

  #key(pair: PairBinding, role: TokenRole): string {
    return `${this.#token(pair, role)}|${pair.orderBook}`;
  }

  /** The expiry the adapter recorded for this approval; null when it never approved it. */
  recordedExpiry(pair: PairBinding, role: TokenRole): number | null {
    return this.#d.state.approval('wasm', this.#d.wallet, this.#token(pair, role), pair.orderBook)?.expiresAtLedger ?? null;
  }

  #fresh(current: bigint, expiresAt: number | null, latest: number, amount: bigint): boolean {
    return current >= amount && expiresAt !== null && expiresAt - latest > this.#d.options.renewMarginLedgers;
  }

  #target(pair: PairBinding, role: TokenRole, amount: bigint, current: bigint): bigint {
    const budget = this.#d.options.budgets[pair.pairId]?.[role];
    const headroom = budget ?? amount * BigInt(this.#d.options.multiplier);
    return [amount, current, headroom].reduce((a, b) => (b > a ? b : a));
  }

  /**
   * The public path: reads the allowance from the chain; null when at least `amount` can be taken and the
   * recorded expiry is beyond the renewal margin, else the approval's submission (not awaited).
   */
  async ensure(pair: PairBinding, role: TokenRole, amount: bigint): Promise<Submission | null> {
    const current = await this.#d.reader.allowance(this.#token(pair, role), pair.orderBook);
    const expiresAt = this.recordedExpiry(pair, role);
    const latest = await this.#d.latestLedger();
    if (this.#fresh(current, expiresAt, latest, amount)) {
      this.#estimates.set(this.#key(pair, role), { remaining: current, expiresAtLedger: expiresAt });
      return null;
    }
    return this.#approve(pair, role, this.#target(pair, role, amount, current), latest);
  }

  async #approve(pair: PairBinding, role: TokenRole, amount: bigint, latest: number): Promise<Submission> {
    const expiration = latest + this.#d.options.lifetimeLedgers;
    const key = this.#key(pair, role);
    this.#estimates.delete(key);
    this.#d.logger.info({ pair: pair.pairId, tokenRole: role, amount: amount.toString(), expirationLedger: expiration }, 'approving the order book');
    const submission = await this.#d.approve(pair, role, amount, expiration);
    void submission.outcome.then((o) => {
      if (o.kind !== 'accepted') return;
      this.#d.state.setApproval({ chain: 'wasm', wallet: this.#d.wallet, token: this.#token(pair, role), spender: pair.orderBook, amount, expiresAtLedger: expiration, txHash: o.txHash });
      this.#estimates.set(key, { remaining: amount, expiresAtLedger: expiration });
    });
    return submission;
  }

  /**
   * The placement path: makes sure the order's need is approved, waiting for a top-up's inclusion when one
   * is needed. Resolves with null when the order may go ahead, or the error that stops it.
   */
  async prepare(pair: PairBinding, need: ApprovalNeed): Promise<DltError | null> {
    const role = need.token;
    const key = this.#key(pair, role);
    const latest = await this.#d.latestLedger();
    const est = this.#estimates.get(key);
    if (est !== undefined && this.#fresh(est.remaining, est.expiresAtLedger, latest, need.amount)) return null;
    const current = await this.#d.reader.allowance(this.#token(pair, role), pair.orderBook);
    const expiresAt = this.recordedExpiry(pair, role);
    if (this.#fresh(current, expiresAt, latest, need.amount)) {
      this.#estimates.set(key, { remaining: current, expiresAtLedger: expiresAt });
      return null;
    }
    const submission = await this.#approve(pair, role, this.#target(pair, role, need.amount, current), latest);
    const outcome = await submission.outcome;
    // The outcome handler registered in #approve has already recorded the approval and the new estimate.
    if (outcome.kind === 'accepted') return null;
    const why = outcome.kind === 'rejected' ? outcome.error.message : outcome.reason;
    return new DltError('E_VENUE_INSUFFICIENT_ALLOWANCE', `the ${role} approval this order needs did not go through: ${why}`, {
      details: { pair: pair.pairId, tokenRole: role, need: need.amount.toString() },
      cause: outcome.kind === 'rejected' ? outcome.error : undefined,
    });
  }

  /** An order was sent that may take `amount`: lower the estimate so the next top-up comes in time. */
  consumed(pair: PairBinding, role: TokenRole, amount: bigint): void {
    const est = this.#estimates.get(this.#key(pair, role));
    if (est !== undefined) est.remaining = est.remaining > amount ? est.remaining - amount : 0n;
  }

  /** The chain disagreed with the estimate (the simulation found the allowance short): re-read next time. */
  invalidate(pair: PairBinding, role: TokenRole): void {
    this.#estimates.delete(this.#key(pair, role));
  }
}
