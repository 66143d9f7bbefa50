/**
 * The token movements of one transaction between our wallet and each pair's order book, netted per pair and
 * token (positive: the book paid the wallet). A transfer names its token by role and by one pair that uses
 * it (a quote token shared by several pairs is named under one of them), so the pair is found from the order
 * book on the other side of the transfer. Movements with anyone else are external: fills never explain them.
 */
import type { ChainEvent } from '../../../chains/types.ts';
import type { PairRuntime } from '../pair-runtime.ts';

export interface PairFlows {
  baseIn: bigint;
  quoteIn: bigint;
}

export interface ExternalFlow {
  readonly token: string;
  /** Positive: the wallet received it. */
  readonly amount: bigint;
  readonly counterparty: string;
}

export interface TxFlows {
  readonly byPair: Map<string, PairFlows>;
  readonly external: ExternalFlow[];
  /** Keys of the transfer events that were counted. */
  readonly keys: string[];
}

/** Addresses compare case-insensitively on chain A (checksums), exactly on chain B (strkeys). */
export function sameAddress(a: string, b: string): boolean {
  return a.startsWith('0x') || a.startsWith('0X') ? a.toLowerCase() === b.toLowerCase() : a === b;
}

export function flowsOf(
  events: readonly ChainEvent[],
  wallet: string,
  pairs: ReadonlyMap<string, PairRuntime>,
): TxFlows {
  const byPair = new Map<string, PairFlows>();
  const external: ExternalFlow[] = [];
  const keys: string[] = [];
  for (const e of events) {
    if (e.type !== 'Transfer') continue;
    const incoming = sameAddress(e.to, wallet);
    if (!incoming && !sameAddress(e.from, wallet)) continue;
    const named = pairs.get(e.pairId)?.binding;
    if (named === undefined) continue;
    const token = e.token === 'base' ? named.baseToken : named.quoteToken;
    const other = incoming ? e.from : e.to;
    const signed = incoming ? e.amount : -e.amount;
    keys.push(e.key);
    const book = [...pairs.values()].find((p) => sameAddress(p.binding.orderBook, other));
    const role =
      book === undefined
        ? null
        : sameAddress(book.binding.baseToken, token)
          ? 'base'
          : sameAddress(book.binding.quoteToken, token)
            ? 'quote'
            : null;
    if (book === undefined || role === null) {
      external.push({ token, amount: signed, counterparty: other });
      continue;
    }
    const f = byPair.get(book.binding.pairId) ?? { baseIn: 0n, quoteIn: 0n };
    if (role === 'base') f.baseIn += signed;
    else f.quoteIn += signed;
    byPair.set(book.binding.pairId, f);
  }
  return { byPair, external, keys };
}
