/**
 * The venue's list of a wallet's trades against the fills the engine attributed from the chain, as a pure
 * function. A venue trade and a fill are the same trade when they name the same transaction (hashes compare
 * without case and without `0x`) and the same on-chain order; then quantity and price must agree. What is
 * left over is a mismatch once it is due: a venue trade when the venue calls it final and the grace has
 * passed since; a fill of ours when the grace has passed since it was first compared (the venue may list a
 * trade some time after the chain had it, and a chain's fill some time after the venue).
 */
import type { Decimal } from '../../../core/decimal.ts';

export interface VenueTradeView {
  readonly id: string;
  readonly orderId: bigint;
  readonly txHash: string;
  /** Human base quantity and price. */
  readonly quantity: Decimal;
  readonly price: Decimal;
  /** When the venue called the trade final (epoch ms); null while it is not. */
  readonly finalAtMs: number | null;
}

export interface FillView {
  readonly fillId: string;
  /** The on-chain id of our order; null when the store does not know it. */
  readonly orderId: bigint | null;
  readonly txHash: string;
  readonly quantity: Decimal;
  readonly price: Decimal;
  /** From when the grace of this fill counts (epoch ms): when it was first compared. */
  readonly sinceMs: number;
}

/**
 * `venue-only`: the venue lists a trade the chain attribution did not find; `chain-only`: a fill of ours the
 * venue does not list; `differs`: both have the trade, with another quantity or price.
 */
export type MismatchKind = 'venue-only' | 'chain-only' | 'differs';

export interface Mismatch {
  readonly kind: MismatchKind;
  /** Names the trade for once-only reporting: `venue:<id>` or `fill:<fillId>`. */
  readonly key: string;
  readonly venue?: VenueTradeView;
  readonly fill?: FillView;
}

export function normalTxHash(hash: string): string {
  const h = hash.toLowerCase();
  return h.startsWith('0x') ? h.slice(2) : h;
}

function sameAmounts(v: VenueTradeView, f: FillView): boolean {
  return v.quantity.eq(f.quantity) && v.price.eq(f.price);
}

/** Every mismatch that is due at `nowMs`; what is not due yet is left for a later comparison. */
export function compareTrades(
  venue: readonly VenueTradeView[],
  fills: readonly FillView[],
  nowMs: number,
  graceMs: number,
): Mismatch[] {
  const byKey = new Map<string, FillView[]>();
  for (const f of fills) {
    const key = `${normalTxHash(f.txHash)}#${f.orderId ?? '?'}`;
    byKey.set(key, [...(byKey.get(key) ?? []), f]);
  }
  const matched = new Set<FillView>();
  const unmatchedVenue: VenueTradeView[] = [];
  const out: Mismatch[] = [];
  const venueDue = (v: VenueTradeView) => v.finalAtMs !== null && v.finalAtMs + graceMs <= nowMs;
  for (const v of venue) {
    const candidates = (byKey.get(`${normalTxHash(v.txHash)}#${v.orderId}`) ?? []).filter((f) => !matched.has(f));
    const fill = candidates.find((f) => sameAmounts(v, f)) ?? candidates[0];
    if (fill === undefined) {
      unmatchedVenue.push(v);
      continue;
    }
    matched.add(fill);
    if (!sameAmounts(v, fill) && venueDue(v)) out.push({ kind: 'differs', key: `venue:${v.id}`, venue: v, fill });
  }
  // A fill whose order id the store does not know matches by transaction, quantity and price alone.
  const orphans = fills.filter((f) => f.orderId === null && !matched.has(f));
  for (const v of unmatchedVenue) {
    const fill = orphans.find(
      (f) => !matched.has(f) && normalTxHash(f.txHash) === normalTxHash(v.txHash) && sameAmounts(v, f),
    );
    if (fill !== undefined) matched.add(fill);
    else if (venueDue(v)) out.push({ kind: 'venue-only', key: `venue:${v.id}`, venue: v });
  }
  for (const f of fills) {
    if (!matched.has(f) && f.sinceMs + graceMs <= nowMs)
      out.push({ kind: 'chain-only', key: `fill:${f.fillId}`, fill: f });
  }
  return out;
}
