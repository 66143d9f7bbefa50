/**
 * Pure computations over the soak's record: order counts, approvals nobody drew on, second cancels, quote
 * presence and how fast new quotes reached the chain after a book change. No I/O; the definitions are
 * those of test/soak/README.md.
 */
import type { Chain, ChainTx, Draw, OrderTruth } from './model.ts';

export type Published = ReadonlyMap<number, number>;

export interface OrderCounts {
  readonly placed: number;
  readonly rested: number;
  readonly cancelledByUs: number;
  readonly filledInFull: number;
  readonly filledInPart: number;
  readonly rejectedAtMatching: number;
  readonly cancelledByContract: number;
  /** Orders of ours that traded on arrival (taker): each crossed the book. */
  readonly tradedOnArrival: number;
}

export function orderCounts(orders: readonly OrderTruth[]): OrderCounts {
  return {
    placed: orders.length,
    rested: orders.filter((o) => o.restedHeight !== null).length,
    cancelledByUs: orders.filter((o) => o.closedBy === 'cancelled by us').length,
    filledInFull: orders.filter((o) => o.filled === o.quantity).length,
    filledInPart: orders.filter((o) => o.filled > 0n && o.filled < o.quantity).length,
    rejectedAtMatching: orders.filter((o) => o.closedBy === 'rejected').length,
    cancelledByContract: orders.filter((o) => o.closedBy === 'cancelled by the contract').length,
    tradedOnArrival: orders.filter((o) => o.tradedOnArrival > 0n).length,
  };
}

const allowanceKey = (chain: Chain, token: string, spender: string) =>
  `${chain}|${token.toLowerCase()}|${spender.toLowerCase()}`;
const before = (a: { height: number; index: number }, b: { height: number; index: number }) =>
  a.height < b.height || (a.height === b.height && a.index < b.index);

/**
 * Approvals of ours that nothing used: the next thing that touched the same token and spender was another
 * approval of ours, or nothing until the end of the run. A use is a movement of the token out of our wallet
 * inside a transaction that called the spender (a pre-funded placement, a no-prefund match), or a placement
 * of ours on that book that needs the token (a no-prefund order relies on the allowance until it matches).
 */
export function unusedApprovals(txs: readonly ChainTx[], draws: readonly Draw[]): ChainTx[] {
  const approvals = txs
    .filter((t) => t.call === 'approve' && t.success && t.approval !== null)
    .toSorted((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  const unused: ChainTx[] = [];
  approvals.forEach((a, i) => {
    const k = allowanceKey(a.chain, a.approval?.token ?? '', a.approval?.spender ?? '');
    const next = approvals
      .slice(i + 1)
      .find((b) => allowanceKey(b.chain, b.approval?.token ?? '', b.approval?.spender ?? '') === k);
    const drawn = draws.some(
      (d) => allowanceKey(d.chain, d.token, d.spender) === k && before(a, d) && (next === undefined || before(d, next)),
    );
    if (!drawn) unused.push(a);
  });
  return unused;
}

export interface SecondCancel {
  readonly chain: Chain;
  readonly pairId: string | null;
  readonly orderId: string;
  /** The later attempt: a transaction that reached the chain, or a refusal before it. */
  readonly txHash: string | null;
  readonly atMs: number;
  readonly reachedChain: boolean;
  /** The earlier cancel that had reached the chain. */
  readonly first: string;
}

export interface CancelAttempt {
  readonly chain: Chain;
  readonly pairId: string | null;
  readonly orderId: string;
  readonly txHash: string | null;
  /** When it left the bot. */
  readonly atMs: number;
  /** Where it was included, when it was. */
  readonly at: { readonly height: number; readonly index: number } | null;
}

/**
 * Cancel attempts of an order made after an earlier cancel of the same order had left the bot and reached the
 * chain (whatever its outcome there).
 */
export function secondCancels(attempts: readonly CancelAttempt[]): SecondCancel[] {
  const byOrder = new Map<string, CancelAttempt[]>();
  for (const a of attempts) {
    const k = `${a.chain}|${a.pairId ?? ''}|${a.orderId}`;
    byOrder.set(k, [...(byOrder.get(k) ?? []), a]);
  }
  const out: SecondCancel[] = [];
  for (const list of byOrder.values()) {
    const included = list.filter((a) => a.at !== null).toSorted((a, b) => a.atMs - b.atMs);
    const first = included[0];
    if (first === undefined) continue;
    for (const a of list) {
      if (a === first || a.atMs < first.atMs) continue;
      out.push({
        chain: a.chain,
        pairId: a.pairId,
        orderId: a.orderId,
        txHash: a.txHash,
        atMs: a.atMs,
        reachedChain: a.at !== null,
        first: first.txHash ?? '',
      });
    }
  }
  return out.toSorted((a, b) => a.atMs - b.atMs);
}

/** Time in [from, to) covered by the union of the intervals. */
function covered(intervals: readonly (readonly [number, number])[], from: number, to: number): number {
  const clipped = intervals
    .map(([a, b]) => [Math.max(a, from), Math.min(b, to)] as const)
    .filter(([a, b]) => b > a)
    .toSorted((x, y) => x[0] - y[0]);
  let total = 0;
  let end = from;
  for (const [a, b] of clipped) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

export interface Presence {
  readonly chain: Chain;
  readonly pairId: string;
  readonly side: 'buy' | 'sell';
  /** Share of the window with at least one of our orders of that side resting on the chain. */
  readonly share: number;
}

/**
 * Time-weighted presence per pair and side over [from, to): an order rests from the publication of the block or
 * ledger that rested it to the publication of the one that removed it (or the end).
 */
export function presence(
  orders: readonly OrderTruth[],
  pairs: readonly { chain: Chain; pairId: string }[],
  published: Readonly<Record<Chain, Published>>,
  from: number,
  to: number,
): Presence[] {
  const out: Presence[] = [];
  for (const p of pairs) {
    for (const side of ['buy', 'sell'] as const) {
      const intervals: [number, number][] = [];
      for (const o of orders) {
        if (o.chain !== p.chain || o.pairId !== p.pairId || o.side !== side || o.restedHeight === null) continue;
        const start = published[o.chain].get(o.restedHeight);
        if (start === undefined) continue;
        const end = o.closedHeight === null ? to : (published[o.chain].get(o.closedHeight) ?? to);
        intervals.push([start, end]);
      }
      out.push({
        chain: p.chain,
        pairId: p.pairId,
        side,
        share: to > from ? covered(intervals, from, to) / (to - from) : 0,
      });
    }
  }
  return out;
}

export interface Placement {
  readonly chain: Chain;
  readonly pairId: string;
  /** When the bot decided it (its state file records the order before signing). */
  readonly decidedMs: number;
  /** Block or ledger that included it. */
  readonly height: number;
}

/**
 * Our placements that reached the chain, each with the time the bot decided it (its state file's order of that
 * cross identifier, `decided` keyed by chain and client order id); orders the bot has no record of are left out.
 */
export function placementsOf(
  orders: readonly OrderTruth[],
  decided: ReadonlyMap<string, { readonly createdMs: number }>,
): Placement[] {
  return orders.flatMap((x) => {
    const d = decided.get(`${x.chain}|${x.crossId}`);
    return d === undefined
      ? []
      : [{ chain: x.chain, pairId: x.pairId, decidedMs: d.createdMs, height: x.receivedHeight }];
  });
}

export interface Responses {
  readonly chain: Chain;
  /** Book changes that new quotes of ours answered. */
  readonly answered: number;
  /** Of those, the ones whose every new quote was included in the next block or ledger. */
  readonly inNext: number;
  /** Blocks or ledgers late beyond the next, for the ones that were late. */
  readonly late: readonly number[];
}

/**
 * How fast new quotes reached the chain after a book change. A book change is a block or ledger in which
 * others' orders changed the pair's book; a placement answers the latest change published before the bot decided
 * it; a change counts as answered in the next block or ledger when every placement answering it was included at
 * the change's height + 1. Decisions taken inside `excluded` windows (the market paused for a quiet moment) and
 * placements with no earlier change are left out.
 */
export function responses(
  placements: readonly Placement[],
  changes: ReadonlyMap<string, readonly number[]>,
  published: Readonly<Record<Chain, Published>>,
  excluded: readonly (readonly [number, number])[],
): Responses[] {
  const groups = new Map<string, { chain: Chain; change: number; heights: number[] }>();
  for (const p of placements) {
    if (excluded.some(([a, b]) => p.decidedMs >= a && p.decidedMs < b)) continue;
    const heights = changes.get(p.pairId) ?? [];
    let change: number | undefined;
    for (const h of heights) {
      const t = published[p.chain].get(h);
      if (t !== undefined && t <= p.decidedMs && (change === undefined || h > change)) change = h;
    }
    if (change === undefined) continue;
    const k = `${p.pairId}|${change}`;
    const g = groups.get(k) ?? { chain: p.chain, change, heights: [] };
    g.heights.push(p.height);
    groups.set(k, g);
  }
  return (['evm', 'wasm'] as const).map((chain) => {
    const mine = [...groups.values()].filter((g) => g.chain === chain);
    const late = mine.map((g) => Math.max(...g.heights) - g.change - 1).filter((n) => n > 0);
    return { chain, answered: mine.length, inNext: mine.length - late.length, late };
  });
}

/**
 * Our placements that reached the chain as uses of an allowance: the token the order needs (a buy the quote
 * token, a sell the base token) and its order book as the spender.
 */
export function placementUses(
  txs: readonly ChainTx[],
  books: ReadonlyMap<string, { readonly orderBook: string; readonly base: string; readonly quote: string }>,
): Draw[] {
  const out: Draw[] = [];
  for (const t of txs) {
    const book = t.pairId === null ? undefined : books.get(t.pairId);
    if (t.call !== 'place' || !t.success || book === undefined) continue;
    out.push({
      chain: t.chain,
      token: /buy/i.test(t.fn) ? book.quote : book.base,
      spender: book.orderBook,
      height: t.height,
      index: t.index,
    });
  }
  return out;
}
