/**
 * The report's markouts and PnL attribution of one pair over one day, from the state file alone: the day's
 * fills with the value the bot recorded at each and at each horizon (`fill_marks`), the pair's samples (the
 * value marked to), the chain fees of its transactions. The same `Attribution` and `MarkoutSum` the running
 * bot keeps, so the day's parts add up exactly: total = spread capture + inventory result - commissions -
 * chain fees, with the position held at the start of the day valued at the first value of the day.
 */
import { Attribution } from '../../core/evaluation/attribution.ts';
import { markoutOf, MarkoutSum } from '../../core/evaluation/markouts.ts';
import { Decimal } from '../../core/decimal.ts';
import {
  baseFromNative,
  nativeFromRaw,
  priceFromRaw,
  quantityFromRaw,
  quoteFromNative,
  type PairScales,
} from '../../core/units.ts';
import type { PairSample } from '../../store/obligation-store.ts';
import type { Store } from '../../store/store.ts';

export interface ChainFeeRate {
  readonly evm: Decimal;
  readonly wasm: Decimal;
}

export interface AttributionDay {
  /** Exact decimal strings, quote units. */
  readonly total: string;
  readonly spreadCapture: string;
  readonly inventory: string;
  readonly commissions: string;
  readonly chainFees: string;
  readonly openingPosition: string;
  readonly openingValue: string | null;
  readonly closingPosition: string;
  readonly closingValue: string | null;
  /** Fills of the day without a recorded value at the fill (valued at their own price: no spread capture). */
  readonly unvalued: number;
}

export interface MarkoutRow {
  readonly horizonMs: number;
  readonly side: 'buy' | 'sell' | 'all';
  readonly fills: number;
  readonly quote: string;
  /** Volume-weighted, bp of the traded value; null without fills. */
  readonly bps: string | null;
}

export interface LevelRow {
  readonly horizonMs: number;
  readonly level: number;
  readonly fills: number;
  readonly bps: string | null;
}

export interface WorstFill {
  readonly atMs: number;
  readonly side: 'buy' | 'sell';
  readonly level: number | null;
  readonly quantity: string;
  readonly price: string;
  readonly valueAtFill: string;
  readonly horizonMs: number;
  readonly valueAfter: string;
  readonly markout: string;
  readonly markoutBps: string;
}

export interface EvaluationDay {
  readonly attribution: AttributionDay;
  readonly markouts: readonly MarkoutRow[];
  readonly levels: readonly LevelRow[];
  /** The ten fills that lost most at the longest horizon recorded. */
  readonly worst: readonly WorstFill[];
}

const WORST = 10;

function lastValue(samples: readonly PairSample[]): string | null {
  for (let i = samples.length - 1; i >= 0; i--) if (samples[i]!.value !== null) return samples[i]!.value;
  return null;
}

export function evaluationDay(
  store: Store,
  pair: { readonly pairId: string; readonly wallet: string; readonly chain: 'evm' | 'wasm' },
  scales: PairScales,
  frame: { readonly from: number; readonly to: number },
  samples: readonly PairSample[],
  chainFeeRate: ChainFeeRate,
): EvaluationDay {
  const all = store.evaluation.fillsAfter(pair.pairId, pair.wallet, 0);
  const marks = new Map<string, Map<number, string>>();
  for (const m of store.evaluation.marks(pair.pairId)) {
    const byHorizon = marks.get(m.fillId) ?? new Map<number, string>();
    byHorizon.set(m.horizonMs, m.value);
    marks.set(m.fillId, byHorizon);
  }
  const attribution = new Attribution();
  const before = all.filter((s) => s.fill.atMs < frame.from);
  const day = all.filter((s) => s.fill.atMs >= frame.from && s.fill.atMs < frame.to);
  const opening = before.reduce((n, s) => n.add(baseFromNative(s.fill.baseDelta, scales)), new Decimal(0));
  const firstValue = samples.find((s) => s.value !== null)?.value ?? null;
  const openingValue = opening.isZero() ? null : (firstValue ?? null);
  if (openingValue !== null) attribution.addOpening(opening, new Decimal(openingValue));
  const horizons = new Set<number>();
  let unvalued = 0;
  for (const s of day) {
    const f = s.fill;
    const atFill = marks.get(f.fillId)?.get(0);
    if (atFill === undefined) unvalued += 1;
    attribution.addFill({
      baseDelta: baseFromNative(f.baseDelta, scales),
      quoteDelta: quoteFromNative(f.quoteDelta, scales),
      commission: quoteFromNative(f.fee, scales),
      valueAtFill: atFill === undefined ? priceFromRaw(f.price, scales) : new Decimal(atFill),
    });
    for (const h of marks.get(f.fillId)?.keys() ?? []) if (h !== 0) horizons.add(h);
  }
  const rate = chainFeeRate;
  for (const c of store.evaluation.chargedSince(pair.pairId, pair.wallet, frame.from)) {
    if (c.updatedMs >= frame.to) continue;
    attribution.addChainFee(nativeFromRaw(c.fee, c.chain).mul(rate[c.chain]));
  }
  const closingValue = lastValue(samples);
  // Without a value of the day the position counts at its fills' values (an inventory result of 0).
  const parts = attribution.at(closingValue === null ? null : new Decimal(closingValue));

  const sorted = [...horizons].toSorted((a, b) => a - b);
  const markouts: MarkoutRow[] = [];
  const levels: LevelRow[] = [];
  const worst: WorstFill[] = [];
  const longest = sorted.at(-1);
  for (const h of sorted) {
    const sums = { buy: new MarkoutSum(), sell: new MarkoutSum(), all: new MarkoutSum() };
    const byLevel = new Map<number, MarkoutSum>();
    for (const s of day) {
      const v = marks.get(s.fill.fillId)?.get(h);
      if (v === undefined) continue;
      const f = {
        side: s.fill.side,
        quantity: quantityFromRaw(s.fill.quantity, scales),
        price: priceFromRaw(s.fill.price, scales),
      };
      const value = new Decimal(v);
      sums[f.side].add(f, value);
      sums.all.add(f, value);
      if (s.level !== null) {
        const l = byLevel.get(s.level) ?? new MarkoutSum();
        l.add(f, value);
        byLevel.set(s.level, l);
      }
      if (h === longest) {
        const m = markoutOf(f, value);
        worst.push({
          atMs: s.fill.atMs,
          side: f.side,
          level: s.level,
          quantity: f.quantity.toFixed(),
          price: f.price.toFixed(),
          valueAtFill: marks.get(s.fill.fillId)?.get(0) ?? f.price.toFixed(),
          horizonMs: h,
          valueAfter: v,
          markout: m.quote.toFixed(),
          markoutBps: m.bps.toFixed(),
        });
      }
    }
    for (const side of ['buy', 'sell', 'all'] as const) {
      const sum = sums[side];
      markouts.push({
        horizonMs: h,
        side,
        fills: sum.fills,
        quote: sum.quote.toFixed(),
        bps: sum.bps?.toFixed() ?? null,
      });
    }
    for (const [level, sum] of [...byLevel].toSorted((a, b) => a[0] - b[0]))
      levels.push({ horizonMs: h, level, fills: sum.fills, bps: sum.bps?.toFixed() ?? null });
  }
  return {
    attribution: {
      total: parts.total.toFixed(),
      spreadCapture: parts.spreadCapture.toFixed(),
      inventory: parts.inventory.toFixed(),
      commissions: parts.commissions.toFixed(),
      chainFees: parts.chainFees.toFixed(),
      openingPosition: opening.toFixed(),
      openingValue,
      closingPosition: parts.position.toFixed(),
      closingValue,
      unvalued,
    },
    markouts,
    levels,
    worst: worst.toSorted((a, b) => new Decimal(a.markout).cmp(new Decimal(b.markout))).slice(0, WORST),
  };
}
