/**
 * The risk gate's cut of the desired quotes: position, notional, order count and order value limits. It only
 * removes or shrinks quotes (never adds or moves them), so everything it returns still passed the venue rules.
 */
import { Decimal } from '../../core/decimal.ts';
import type { DesiredQuote, QuoteReason } from '../../strategy/types.ts';
import type { RiskLimits } from './limits.ts';
import { show } from '../../strategy/show.ts';

export interface GateInput {
  readonly quotes: readonly DesiredQuote[];
  /** Current base position of the pair. */
  readonly position: Decimal;
  /** Mark price for notional limits; null skips them. */
  readonly mark: Decimal | null;
  readonly limits: RiskLimits;
}

export interface GateCut {
  readonly side: 'buy' | 'sell';
  readonly level: number;
  readonly rule: 'maxInventory' | 'maxNotional' | 'maxOpenOrders' | 'maxOrderValue';
  readonly detail: string;
}

export interface GateResult {
  readonly quotes: DesiredQuote[];
  readonly cuts: GateCut[];
}

/** Each limits' last cap, with the mark it came from (both immutable; a pair's rounds repeat them). */
const lastCaps = new WeakMap<RiskLimits, { readonly mark: Decimal | null; readonly cap: Decimal | null }>();

/** Largest position the bids may build towards, from the inventory and notional limits. */
function positionCap(limits: RiskLimits, mark: Decimal | null): Decimal | null {
  const last = lastCaps.get(limits);
  if (last !== undefined && last.mark === mark) return last.cap;
  const cap = capOf(limits, mark);
  lastCaps.set(limits, { mark, cap });
  return cap;
}

function capOf(limits: RiskLimits, mark: Decimal | null): Decimal | null {
  const caps: Decimal[] = [];
  if (limits.maxInventory !== null) caps.push(limits.maxInventory);
  if (limits.maxNotional !== null && mark !== null && mark.gt(0)) caps.push(limits.maxNotional.div(mark));
  return caps.length === 0 ? null : Decimal.min(...caps);
}

export function gateQuotes(input: GateInput): GateResult {
  const { limits } = input;
  const cuts: GateCut[] = [];
  let quotes = [...input.quotes];

  if (limits.maxOrderValue !== null) {
    const max = limits.maxOrderValue;
    quotes = quotes.filter((q) => {
      const over = q.price.mul(q.quantity).gt(max);
      if (over)
        cuts.push({ side: q.side, level: q.level, rule: 'maxOrderValue', detail: `value above ${max.toFixed()}` });
      return !over;
    });
  }

  // Bids, nearest first, may together take the position at most to the cap; asks likewise down to -cap.
  const cap = positionCap(limits, input.mark);
  if (cap !== null) {
    for (const side of ['buy', 'sell'] as const) {
      let room = side === 'buy' ? cap.sub(input.position) : cap.add(input.position);
      const sideQuotes = quotes.filter((q) => q.side === side).toSorted((a, b) => a.level - b.level);
      const keep = new Set<DesiredQuote>();
      for (const q of sideQuotes) {
        if (q.quantity.lte(room)) {
          keep.add(q);
          room = room.sub(q.quantity);
        } else {
          cuts.push({
            side,
            level: q.level,
            rule: limits.maxInventory !== null ? 'maxInventory' : 'maxNotional',
            detail: `would pass the position cap ${show(cap)}`,
          });
        }
      }
      quotes = quotes.filter((q) => q.side !== side || keep.has(q));
    }
  }

  if (limits.maxOpenOrders !== null && quotes.length > limits.maxOpenOrders) {
    // Keep the nearest levels of both sides, alternating, so that neither side is emptied first.
    const ordered = quotes.toSorted((a, b) => a.level - b.level || (a.side === 'buy' ? -1 : 1));
    const kept = ordered.slice(0, limits.maxOpenOrders);
    for (const q of ordered.slice(limits.maxOpenOrders))
      cuts.push({
        side: q.side,
        level: q.level,
        rule: 'maxOpenOrders',
        detail: `more than ${limits.maxOpenOrders} orders`,
      });
    quotes = quotes.filter((q) => kept.includes(q));
  }
  return { quotes, cuts };
}

/** The gate as the strategy's registry takes it: the quotes kept, and each cut as a quote reason of rule `risk`. */
export function strategyGate(
  position: Decimal,
  mark: Decimal | null,
  limits: RiskLimits,
): (quotes: readonly DesiredQuote[]) => { quotes: readonly DesiredQuote[]; reasons: readonly QuoteReason[] } {
  return (quotes) => {
    const g = gateQuotes({ quotes, position, mark, limits });
    return {
      quotes: g.quotes,
      reasons: g.cuts.map((c) => ({
        side: c.side,
        level: c.level,
        rule: 'risk' as const,
        action: 'dropped' as const,
        detail: `${c.rule}: ${c.detail}`,
        limit: c.rule,
      })),
    };
  };
}
