/**
 * The tick regime of a pair: the operator's per-pair override first, then liquidity band 7 (the granular tick
 * mode of seven-decimal prices, whatever `tickSizeMode` says), then the pair's `tickSizeMode` (REGULATORY by
 * liquidity band 1..6, GRANULAR at the quote internal scale). Whatever is unusable is added to `missing`.
 */
import { Decimal, parseDecimalString } from './decimal.ts';
import type { TradingPair } from './pair.ts';
import {
  GRANULAR_BAND,
  granularBandTick,
  isLiquidityBand,
  regulatoryTable,
  type TickRow,
  type TickRules,
} from './ticks.ts';
import type { PairScales } from './units.ts';

/** Operator overrides for one pair (all optional). */
export interface PairOverrides {
  /** A fixed tick, or a table of `{from, tick}` rows replacing the venue's tick regime. */
  readonly tick?:
    { readonly fixed: string } | { readonly table: ReadonlyArray<{ readonly from: string; readonly tick: string }> };
  /** Minimum order size; the specification's "minimum trade volume" is not a published field. Default: one increment. */
  readonly minimumSize?: string;
  /** Safety margin above `minimumOrderValue`, in basis points. */
  readonly valueMarginBps?: number;
}

export function tickRulesFor(
  pair: TradingPair,
  overrides: PairOverrides,
  scales: PairScales,
  missing: string[],
): TickRules | null {
  const o = overrides.tick;
  if (o !== undefined) {
    if ('fixed' in o)
      return { kind: 'fixed', source: 'per-pair fixed tick', tick: parseDecimalString(o.fixed, 'tick.fixed') };
    const rows: TickRow[] = o.table.map((r, i) => ({
      from: parseDecimalString(r.from, `tick.table[${i}].from`),
      tick: parseDecimalString(r.tick, `tick.table[${i}].tick`),
    }));
    return { kind: 'table', source: 'per-pair tick table', rows };
  }
  if (pair.liquidityBand === GRANULAR_BAND) {
    // Band 7 is the granular tick mode whatever tickSizeMode says (the venue's integration material pairs them).
    const granular = granularBandTick(scales.quoteInternal);
    return { kind: 'fixed', ...granular };
  }
  const mode = pair.tickSizeMode ?? 'REGULATORY';
  if (mode === 'GRANULAR') {
    return {
      kind: 'fixed',
      source: 'GRANULAR (one unit of the quote internal scale)',
      tick: new Decimal(1).div(scales.quoteInternal.toString()),
    };
  }
  if (mode === 'REGULATORY') {
    if (!isLiquidityBand(pair.liquidityBand)) {
      missing.push(
        `liquidityBand: REGULATORY tick sizes need a band 1..6 (band ${GRANULAR_BAND} is the granular tick mode), got ${JSON.stringify(pair.liquidityBand)}`,
      );
      return null;
    }
    return {
      kind: 'table',
      source: `REGULATORY band ${pair.liquidityBand}`,
      rows: regulatoryTable(pair.liquidityBand),
    };
  }
  missing.push(`tickSizeMode: ${JSON.stringify(mode)} is unknown; configure a per-pair tick override`);
  return null;
}
