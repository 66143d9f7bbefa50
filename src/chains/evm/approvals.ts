/**
 * Approvals ahead of the placements that need them, in the same sending lane: the allowance budget's
 * projection (`allowance-budget.ts`) says when a placement is not covered and by how much to top up; with
 * nothing in flight the chain's allowance is read afresh. An accepted approval is recorded in the store; a
 * placement sent takes its need from the projection, and gives it back if it never applied.
 */
import { MaxUint256 } from 'ethers';
import type { ApprovalStore } from '../ports.ts';
import type { PairBinding, PlaceCommand, Submission, TokenRole } from '../types.ts';
import { AllowanceBudget } from './allowance-budget.ts';
import { approveCalldata } from './commands.ts';
import type { GasLimits } from './gas-limits.ts';
import type { ApprovalOptions } from './options.ts';
import { readTokenAllowance } from './pair-reads.ts';
import type { EvmRpc } from './rpc-client.ts';
import { wasRefused, type TxSender } from './tx-sender.ts';
import type { TxWatcher } from './tx-watcher.ts';

export interface ApprovalsDeps {
  readonly rpc: EvmRpc;
  readonly sender: TxSender;
  readonly watcher: TxWatcher;
  readonly gas: GasLimits;
  readonly wallet: string;
  readonly state: ApprovalStore | null;
  readonly options: ApprovalOptions;
}

export class Approvals {
  readonly #deps: ApprovalsDeps;
  readonly #budget: AllowanceBudget;

  constructor(deps: ApprovalsDeps) {
    this.#deps = deps;
    this.#budget = new AllowanceBudget(deps.options);
  }

  /** The chain's allowance of the wallet's `token` for the pair's order book. */
  readAllowance(pair: PairBinding, token: TokenRole): Promise<bigint> {
    return readTokenAllowance(
      this.#deps.rpc,
      this.#deps.wallet,
      token === 'base' ? pair.baseToken : pair.quoteToken,
      this.#deps.wallet,
      pair.orderBook,
    );
  }

  /** The projection is no longer to be trusted (an allowance error): the chain's figure is read next time. */
  invalidate(pair: PairBinding, token: TokenRole): void {
    this.#budget.invalidate(pair, token);
  }

  /** Approves ahead of a placement when the projection does not cover it; null when nothing was needed. */
  async topUp(
    pair: PairBinding,
    token: TokenRole,
    need: bigint,
    startedAt: number,
    prefetched: Promise<bigint> | null,
  ): Promise<Submission | null> {
    const address = token === 'base' ? pair.baseToken : pair.quoteToken;
    // With nothing in flight the chain's allowance is exact; under pipelining the projection is.
    if (this.#budget.projected(pair, token) === null || this.#deps.watcher.size === 0) {
      const onChain = prefetched === null ? null : await prefetched.catch(() => null);
      this.#budget.load(pair, token, onChain ?? (await this.readAllowance(pair, token)));
    }
    const amount = this.#budget.topUp(pair, token, need);
    if (amount === null) return null;
    const context = {
      pairId: pair.pairId,
      symbol: pair.symbol,
      tokenRole: token,
      spender: pair.orderBook,
      amount: amount === MaxUint256 ? 'unlimited' : amount.toString(),
    };
    const call = { from: this.#deps.wallet, to: address, data: approveCalldata(pair.orderBook, amount) };
    const submission = await this.#deps.sender.send({
      kind: 'approve',
      clientOrderId: null,
      context,
      payload: { ...call, value: 0n, gasLimit: await this.#deps.gas.limit('approve', call) },
      startedAt,
    });
    if (wasRefused(submission)) return submission;
    this.#budget.approved(pair, token, amount);
    void submission.outcome.then((o) => {
      if (o.kind === 'accepted') {
        this.#deps.state?.setApproval({
          chain: 'evm',
          wallet: this.#deps.wallet,
          token: address,
          spender: pair.orderBook,
          amount,
          expiresAtLedger: null,
          txHash: o.txHash,
        });
      } else if (o.kind === 'rejected') {
        this.#budget.invalidate(pair, token);
      }
    });
    return submission;
  }

  /** A sent placement takes allowance; one that never applied gives it back, an allowance error forgets the projection. */
  account(c: PlaceCommand, submission: Submission): void {
    if (wasRefused(submission)) return;
    const used = this.#budget.consume(c.pair, c.approval.token, c.approval.amount);
    void submission.outcome.then((o) => {
      if (o.kind !== 'rejected') return;
      // A revert takes nothing (the transfer is undone with it), and a transaction never mined takes nothing.
      if (o.error.code === 'E_VENUE_INSUFFICIENT_ALLOWANCE') this.#budget.invalidate(c.pair, c.approval.token);
      else this.#budget.giveBack(used);
    });
  }
}
