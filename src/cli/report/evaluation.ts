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
import type { SequencedFill } from '../../store/evaluation-store.ts';
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
  for (let index = samples.length - 1; index >= 0; index--)
    if (samples[index]!.value !== null) return samples[index]!.value;
  return null;
}

type Pair = { readonly pairId: string; readonly wallet: string; readonly chain: 'evm' | 'wasm' };
type Frame = { readonly from: number; readonly to: number };
/** Each fill's recorded values by horizon (0: at the fill). */
type Marks = Map<string, Map<number, string>>;

function marksOf(store: Store, pairId: string): Marks {
  const marks: Marks = new Map();
  for (const mark of store.evaluation.marks(pairId)) {
    const byHorizon = marks.get(mark.fillId) ?? new Map<number, string>();
    byHorizon.set(mark.horizonMs, mark.value);
    marks.set(mark.fillId, byHorizon);
  }
  return marks;
}

interface AttributionInput {
  readonly store: Store;
  readonly pair: Pair;
  readonly scales: PairScales;
  readonly frame: Frame;
  readonly samples: readonly PairSample[];
  readonly chainFeeRate: ChainFeeRate;
  /** Every fill of the pair's wallet, those before the day among them. */
  readonly all: readonly SequencedFill[];
  readonly day: readonly SequencedFill[];
  readonly marks: Marks;
}

/** The day's PnL in parts, the position held at its start valued at the first value of the day. */
function attributionOf({ store, pair, scales, frame, samples, chainFeeRate, all, day, marks }: AttributionInput) {
  const attribution = new Attribution();
  const before = all.filter((sequenced) => sequenced.fill.atMs < frame.from);
  const opening = before.reduce(
    (position, sequenced) => position.add(baseFromNative(sequenced.fill.baseDelta, scales)),
    new Decimal(0),
  );
  const firstValue = samples.find((sample) => sample.value !== null)?.value ?? null;
  const openingValue = opening.isZero() ? null : (firstValue ?? null);
  if (openingValue !== null) attribution.addOpening(opening, new Decimal(openingValue));
  let unvalued = 0;
  for (const { fill } of day) {
    const atFill = marks.get(fill.fillId)?.get(0);
    if (atFill === undefined) unvalued += 1;
    attribution.addFill({
      baseDelta: baseFromNative(fill.baseDelta, scales),
      quoteDelta: quoteFromNative(fill.quoteDelta, scales),
      commission: quoteFromNative(fill.fee, scales),
      valueAtFill: atFill === undefined ? priceFromRaw(fill.price, scales) : new Decimal(atFill),
    });
  }
  for (const charge of store.evaluation.chargedSince(pair.pairId, pair.wallet, frame.from)) {
    if (charge.updatedMs >= frame.to) continue;
    attribution.addChainFee(nativeFromRaw(charge.fee, charge.chain).mul(chainFeeRate[charge.chain]));
  }
  const closingValue = lastValue(samples);
  // Without a value of the day the position counts at its fills' values (an inventory result of 0).
  const parts = attribution.at(closingValue === null ? null : new Decimal(closingValue));
  const result: AttributionDay = {
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
  };
  return result;
}

/** The markouts of the day's fills at one horizon: by side, by level, and each fill's (at the longest). */
function markoutsAt(
  horizonMs: number,
  longest: boolean,
  day: readonly SequencedFill[],
  marks: Marks,
  scales: PairScales,
): { markouts: MarkoutRow[]; levels: LevelRow[]; worst: WorstFill[] } {
  const sums = { buy: new MarkoutSum(), sell: new MarkoutSum(), all: new MarkoutSum() };
  const byLevel = new Map<number, MarkoutSum>();
  const worst: WorstFill[] = [];
  for (const sequenced of day) {
    const after = marks.get(sequenced.fill.fillId)?.get(horizonMs);
    if (after === undefined) continue;
    const fill = {
      side: sequenced.fill.side,
      quantity: quantityFromRaw(sequenced.fill.quantity, scales),
      price: priceFromRaw(sequenced.fill.price, scales),
    };
    const value = new Decimal(after);
    sums[fill.side].add(fill, value);
    sums.all.add(fill, value);
    if (sequenced.level !== null) {
      const levelSum = byLevel.get(sequenced.level) ?? new MarkoutSum();
      levelSum.add(fill, value);
      byLevel.set(sequenced.level, levelSum);
    }
    if (longest) {
      const markout = markoutOf(fill, value);
      worst.push({
        atMs: sequenced.fill.atMs,
        side: fill.side,
        level: sequenced.level,
        quantity: fill.quantity.toFixed(),
        price: fill.price.toFixed(),
        valueAtFill: marks.get(sequenced.fill.fillId)?.get(0) ?? fill.price.toFixed(),
        horizonMs,
        valueAfter: after,
        markout: markout.quote.toFixed(),
        markoutBps: markout.bps.toFixed(),
      });
    }
  }
  const markouts = (['buy', 'sell', 'all'] as const).map((side) => ({
    horizonMs,
    side,
    fills: sums[side].fills,
    quote: sums[side].quote.toFixed(),
    bps: sums[side].bps?.toFixed() ?? null,
  }));
  const levels = [...byLevel]
    .toSorted((a, b) => a[0] - b[0])
    .map(([level, sum]) => ({ horizonMs, level, fills: sum.fills, bps: sum.bps?.toFixed() ?? null }));
  return { markouts, levels, worst };
}

export function evaluationDay(
  store: Store,
  pair: Pair,
  scales: PairScales,
  frame: Frame,
  samples: readonly PairSample[],
  chainFeeRate: ChainFeeRate,
): EvaluationDay {
  const all = store.evaluation.fillsAfter(pair.pairId, pair.wallet, 0);
  const marks = marksOf(store, pair.pairId);
  const day = all.filter((sequenced) => sequenced.fill.atMs >= frame.from && sequenced.fill.atMs < frame.to);
  const attribution = attributionOf({ store, pair, scales, frame, samples, chainFeeRate, all, day, marks });
  const horizons = new Set<number>();
  for (const { fill } of day)
    for (const horizonMs of marks.get(fill.fillId)?.keys() ?? []) if (horizonMs !== 0) horizons.add(horizonMs);
  const sorted = [...horizons].toSorted((a, b) => a - b);
  const longest = sorted.at(-1);
  const atHorizons = sorted.map((horizonMs) => markoutsAt(horizonMs, horizonMs === longest, day, marks, scales));
  return {
    attribution,
    markouts: atHorizons.flatMap((at) => at.markouts),
    levels: atHorizons.flatMap((at) => at.levels),
    worst: atHorizons
      .flatMap((at) => at.worst)
      .toSorted((a, b) => new Decimal(a.markout).cmp(new Decimal(b.markout)))
      .slice(0, WORST),
  };
}
