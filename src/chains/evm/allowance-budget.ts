/**
 * The allowance each order book can still take, projected along the wallet's nonce order. On chain A a
 * placement consumes allowance (pre-funded) and a cancellation never gives it back, and `approve` sets the
 * allowance rather than adding to it. So the projection is: the chain's allowance when nothing is in flight,
 * minus what every placement sent since may take, and an approve resets it to its amount. A top-up approves the
 * need at hand plus a bounded budget (never unlimited unless configured), ahead of the order in the same
 * pipeline. A placement that never applied gives its amount back only if no approve reset the count meanwhile.
 */
import { MaxUint256 } from 'ethers';
import type { PairBinding, TokenRole } from '../types.ts';
import type { ApprovalOptions } from './options.ts';

interface Entry {
  amount: bigint;
  /** Bumped by every approve: an amount handed back from before it no longer counts. */
  epoch: number;
}

export interface Consumption {
  readonly key: string;
  readonly epoch: number;
  readonly amount: bigint;
}

export function allowanceKey(pair: PairBinding, token: TokenRole): string {
  return `${pair.orderBook.toLowerCase()}:${token}`;
}

export class AllowanceBudget {
  readonly #options: ApprovalOptions;
  readonly #entries = new Map<string, Entry>();

  constructor(options: ApprovalOptions) {
    this.#options = options;
  }

  /** What the projection holds, or null when it must be read from the chain first. */
  projected(pair: PairBinding, token: TokenRole): bigint | null {
    return this.#entries.get(allowanceKey(pair, token))?.amount ?? null;
  }

  /** The chain's allowance, read while nothing of the wallet is in flight. */
  load(pair: PairBinding, token: TokenRole, onChain: bigint): void {
    const e = this.#entries.get(allowanceKey(pair, token));
    if (e === undefined) this.#entries.set(allowanceKey(pair, token), { amount: onChain, epoch: 0 });
    else e.amount = onChain;
  }

  /** Forget the projection (an approve failed, or a placement met an allowance error): read it again. */
  invalidate(pair: PairBinding, token: TokenRole): void {
    this.#entries.delete(allowanceKey(pair, token));
  }

  /** The approve amount that covers `need` now and the budget after it; null when the projection already covers it. */
  topUp(pair: PairBinding, token: TokenRole, need: bigint): bigint | null {
    const have = this.projected(pair, token) ?? 0n;
    if (have >= need) return null;
    if (this.#options.unlimited) return MaxUint256;
    const budget = this.#options.budgets[pair.pairId]?.[token] ?? need * (this.#options.multiplier - 1n);
    return need + budget;
  }

  /** An approve of `amount` was sent: it sets the allowance at its place in the nonce order. */
  approved(pair: PairBinding, token: TokenRole, amount: bigint): void {
    const key = allowanceKey(pair, token);
    const e = this.#entries.get(key);
    this.#entries.set(key, { amount, epoch: (e?.epoch ?? 0) + 1 });
  }

  /** A placement that may take up to `amount` was sent. */
  consume(pair: PairBinding, token: TokenRole, amount: bigint): Consumption {
    const key = allowanceKey(pair, token);
    const e = this.#entries.get(key) ?? { amount: 0n, epoch: 0 };
    e.amount = e.amount > amount ? e.amount - amount : 0n;
    this.#entries.set(key, e);
    return { key, epoch: e.epoch, amount };
  }

  /** The placement never applied: its amount is available again, unless an approve has reset the count since. */
  giveBack(c: Consumption): void {
    const e = this.#entries.get(c.key);
    if (e !== undefined && e.epoch === c.epoch) e.amount += c.amount;
  }
}
