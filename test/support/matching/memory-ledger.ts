/** An in-memory token ledger with ERC-20-like failures, for running the reference engine on its own. */
import { DltError } from '../../../src/core/errors.ts';
import type { Ledger, Token } from '../../../src/sandbox/matching/types.ts';

export class MemoryLedger implements Ledger {
  readonly balances = new Map<string, bigint>();
  readonly allowances = new Map<string, bigint>();

  balance(token: Token, account: string): bigint {
    return this.balances.get(`${token}:${account}`) ?? 0n;
  }

  allowance(token: Token, owner: string, spender: string): bigint {
    return this.allowances.get(`${token}:${owner}:${spender}`) ?? 0n;
  }

  mint(token: Token, account: string, amount: bigint): void {
    this.balances.set(`${token}:${account}`, this.balance(token, account) + amount);
  }

  approve(token: Token, owner: string, spender: string, amount: bigint): void {
    this.allowances.set(`${token}:${owner}:${spender}`, amount);
  }

  transfer(token: Token, from: string, to: string, amount: bigint): void {
    const have = this.balance(token, from);
    if (have < amount)
      throw new DltError('E_VENUE_INSUFFICIENT_BALANCE', `${from} has ${have} ${token}, needs ${amount}`);
    this.balances.set(`${token}:${from}`, have - amount);
    this.mint(token, to, amount);
  }

  transferFrom(token: Token, spender: string, from: string, to: string, amount: bigint): void {
    const allowed = this.allowance(token, from, spender);
    if (allowed < amount)
      throw new DltError(
        'E_VENUE_INSUFFICIENT_ALLOWANCE',
        `${spender} may take ${allowed} ${token} from ${from}, needs ${amount}`,
      );
    this.transfer(token, from, to, amount);
    this.approve(token, from, spender, allowed - amount);
  }

  snapshot(): { balances: Map<string, bigint>; allowances: Map<string, bigint> } {
    return { balances: new Map(this.balances), allowances: new Map(this.allowances) };
  }

  restore(s: { balances: Map<string, bigint>; allowances: Map<string, bigint> }): void {
    this.balances.clear();
    this.allowances.clear();
    for (const [k, v] of s.balances) this.balances.set(k, v);
    for (const [k, v] of s.allowances) this.allowances.set(k, v);
  }
}
