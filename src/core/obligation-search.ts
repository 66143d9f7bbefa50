/**
 * The search behind `assessQuotes` (obligations.ts): the best bid and ask of our quotes that together meet the
 * obligations, else the ones that come closest and why they fall short. Integers only; the figures an
 * assessment reports are worked out by its caller, so a check that needs only the verdict skips them.
 */
import type { BookQuote, ObligationRules, Shortfall } from './obligation-rules.ts';

/** The bid and ask the assessment reports, and why they fall short (null: they meet the obligations). */
export interface Found {
  readonly bid: BookQuote | null;
  readonly ask: BookQuote | null;
  readonly shortfall: Shortfall | null;
}

const byPriceDown = (x: BookQuote, y: BookQuote) => (x.price > y.price ? -1 : x.price < y.price ? 1 : 0);
const byPriceUp = (x: BookQuote, y: BookQuote) => (x.price < y.price ? -1 : x.price > y.price ? 1 : 0);

export function findQuotes(quotes: readonly BookQuote[], rules: ObligationRules, stressed: boolean): Found {
  const bids = quotes.filter((q) => q.side === 'buy' && q.quantity > 0n).toSorted(byPriceDown);
  const asks = quotes.filter((q) => q.side === 'sell' && q.quantity > 0n).toSorted(byPriceUp);
  const sizedBids = bids.filter((q) => rules.sizeOk(q));
  const sizedAsks = asks.filter((q) => rules.sizeOk(q));
  for (const b of sizedBids) {
    for (const a of sizedAsks) {
      if (a.price <= b.price) continue;
      if (!rules.spreadOk(b.price, a.price, stressed)) break; // asks further out only widen it
      if (rules.comparable(b, a)) return { bid: b, ask: a, shortfall: null };
    }
  }
  if (bids.length === 0) return { bid: null, ask: asks[0] ?? null, shortfall: 'no-bid' };
  if (asks.length === 0) return { bid: bids[0] ?? null, ask: null, shortfall: 'no-ask' };
  if (sizedBids.length === 0 || sizedAsks.length === 0)
    return { bid: sizedBids[0] ?? bids[0] ?? null, ask: sizedAsks[0] ?? asks[0] ?? null, shortfall: 'size' };
  const b = sizedBids[0] as BookQuote;
  const a = sizedAsks[0] as BookQuote;
  return { bid: b, ask: a, shortfall: rules.spreadOk(b.price, a.price, stressed) ? 'ratio' : 'spread' };
}

/** `assessQuotes(...).compliant` without working out the figures an assessment reports. */
export function quotesComply(quotes: readonly BookQuote[], rules: ObligationRules, stressed: boolean): boolean {
  return findQuotes(quotes, rules, stressed).shortfall === null;
}
