/**
 * What an inventory comparison reports, and its arithmetic: per token of the wallet's pairs, the on-chain
 * balance read and what our resting orders lock, and the quote of parked maker fills by token.
 */
import type { BalancesAt } from '../../../chains/types.ts';
import { isOnBook, remainingOf } from '../../../core/order-state.ts';
import type { StoredOrder } from '../../../store/order-store.ts';
import { lockOf } from '../fills/amounts.ts';
import { makerRateOf, type PairRuntime } from '../pair-runtime.ts';

export interface TokenInventory {
  readonly token: string;
  readonly pairs: readonly string[];
  readonly onChain: bigint;
  readonly total: bigint;
  readonly locked: bigint;
  /** On-chain minus derived free balance. */
  readonly difference: bigint;
}

export type InventoryReport =
  | { readonly comparable: false; readonly reason: string }
  | {
      readonly comparable: true;
      readonly tokens: readonly TokenInventory[];
      readonly mismatched: readonly TokenInventory[];
      /** The block or ledger the balances are of. */
      readonly height?: bigint;
      /**
       * No look could be decided: each raced events the confirmation depth still explained (a busy book, or a
       * follower that did not catch up in time). Nothing was raised or resolved; the next check decides.
       */
      readonly inconclusive?: boolean;
    };

export type Comparable = Extract<InventoryReport, { comparable: true }>;

/** Per token address: the pairs it is part of, its on-chain balance as read, and what our resting orders lock. */
export function tokenAmounts(
  pairs: ReadonlyMap<string, PairRuntime>,
  reads: readonly BalancesAt[],
  live: readonly StoredOrder[],
  marketMaker: boolean,
): Map<string, { pairs: string[]; onChain: bigint; locked: bigint }> {
  const tokens = new Map<string, { pairs: string[]; onChain: bigint; locked: bigint }>();
  [...pairs.values()].forEach((p, i) => {
    const b = p.binding;
    const read = reads[i] as BalancesAt;
    for (const [address, amount] of [
      [b.baseToken, read.base],
      [b.quoteToken, read.quote],
    ] as const) {
      const t = tokens.get(address) ?? { pairs: [], onChain: amount, locked: 0n };
      t.pairs.push(b.pairId);
      t.onChain = amount;
      tokens.set(address, t);
    }
  });
  for (const o of live.filter((x) => isOnBook(x.status))) {
    const p = pairs.get(o.pairId);
    if (p === undefined) continue;
    const lock = lockOf(
      {
        side: o.side,
        price: o.price,
        remaining: remainingOf(o),
        lockRateBps: o.lockRateBps ?? makerRateOf(p, marketMaker),
      },
      p.binding.rules.scales,
      o.prefunded ?? p.prefunded,
    );
    const base = tokens.get(p.binding.baseToken);
    const quote = tokens.get(p.binding.quoteToken);
    if (base !== undefined) base.locked += lock.base;
    if (quote !== undefined) quote.locked += lock.quote;
  }
  return tokens;
}

/** The quote of parked maker fills (by pair) summed by quote token. */
export function parkedByToken(
  pairs: ReadonlyMap<string, PairRuntime>,
  byPair: ReadonlyMap<string, bigint>,
): Map<string, bigint> {
  const parked = new Map<string, bigint>();
  for (const [pairId, q] of byPair) {
    const token = pairs.get(pairId)?.binding.quoteToken;
    if (token !== undefined) parked.set(token, (parked.get(token) ?? 0n) + q);
  }
  return parked;
}
