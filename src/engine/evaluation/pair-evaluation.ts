/**
 * One pair's markouts and PnL attribution, kept incrementally as the pair loop runs. At every recomputation the
 * loop hands over the value it marks to (the fair value, else the mid of others' book): it goes on a timeline,
 * new fills (read from the store after the last one seen, never the whole day) are valued at it, and every
 * markout horizon that has passed is valued at the timeline's value at that moment, recorded in the state file
 * (`fill_marks`) and added to the per-side and per-level sums. The fill's moment is when the bot learnt of it on
 * its own clock (the chain's block time may run on another clock, the accelerated sandbox's say).
 *
 * After a restart, fills with a recorded value at the fill are attributed with it and their recorded markouts
 * counted; a horizon still open is valued if it falls due once values are known again, and a fill recorded while
 * the bot was stopped is valued at the first value seen and gets no markouts (both counted as `missed`).
 * A fill a reorganisation withdraws starts the figures over from the fills kept and their recorded marks.
 */
import { Attribution, type AttributionParts } from '../../core/evaluation/attribution.ts';
import { MarkoutSum, ValueTimeline } from '../../core/evaluation/markouts.ts';
import type { Clock } from '../../core/clock.ts';
import { Decimal } from '../../core/decimal.ts';
import type { Side } from '../../core/order-terms.ts';
import {
  baseFromNative,
  nativeFromRaw,
  priceFromRaw,
  quantityFromRaw,
  quoteFromNative,
  type PairScales,
} from '../../core/units.ts';
import type { EvaluationStore, FillMark, SequencedFill } from '../../store/evaluation-store.ts';

export interface PairEvaluationOptions {
  readonly pairId: string;
  readonly wallet: string;
  readonly scales: PairScales;
  readonly store: EvaluationStore;
  readonly horizonsMs: readonly number[];
  /** Quote units per native unit, per chain (0: chain fees left out). */
  readonly chainFeeRate: { readonly evm: Decimal; readonly wasm: Decimal };
  readonly clock: Pick<Clock, 'now'>;
}

interface Pending {
  readonly fillId: string;
  readonly side: Side;
  readonly quantity: Decimal;
  readonly price: Decimal;
  readonly level: number | null;
  readonly seenMs: number;
  /** Horizons still to value, ascending. */
  readonly open: number[];
}

/** Volume-weighted markouts at one horizon. */
export interface MarkoutFigures {
  readonly horizonMs: number;
  readonly bySide: Readonly<Record<Side, MarkoutSum>>;
  readonly byLevel: ReadonlyMap<number, MarkoutSum>;
  readonly all: MarkoutSum;
}

export class PairEvaluation {
  readonly #options: PairEvaluationOptions;
  readonly #timeline = new ValueTimeline();
  #attribution = new Attribution();
  readonly #markouts: Map<number, MarkoutFigures & { readonly byLevel: Map<number, MarkoutSum> }>;
  #pending: Pending[] = [];
  /** Fills recorded but not yet valued (no value known yet). */
  #unvalued: SequencedFill[] = [];
  #seq = 0;
  #chargedMs = 0;
  #chargedAtEdge = new Set<string>();
  #value: Decimal | null = null;
  /** Marks recorded before this start, by fill id and horizon (consumed as the fills are read). */
  #recorded: Map<string, Map<number, FillMark>>;
  #missed = 0;
  /** Fills withdrawn by reorganisations when last looked: a change starts the figures over. */
  #dropped: number;
  readonly #horizons: readonly number[];
  /** The last fill recorded before this start: fills up to it were recorded while the bot was not watching. */
  readonly #startSeq: number;

  constructor(o: PairEvaluationOptions) {
    this.#options = o;
    this.#horizons = [...o.horizonsMs].toSorted((a, b) => a - b);
    this.#startSeq = o.store.lastSeq(o.wallet, o.pairId);
    this.#dropped = o.store.droppedFills();
    this.#markouts = new Map();
    this.#recorded = new Map();
    this.#begin();
  }

  /** Figures from nothing: every fill is read again, with the marks recorded for it. */
  #begin(): void {
    this.#attribution = new Attribution();
    this.#pending = [];
    this.#unvalued = [];
    this.#seq = 0;
    this.#missed = 0;
    this.#chargedMs = 0;
    this.#chargedAtEdge = new Set();
    for (const h of this.#options.horizonsMs)
      this.#markouts.set(h, {
        horizonMs: h,
        bySide: { buy: new MarkoutSum(), sell: new MarkoutSum() },
        byLevel: new Map(),
        all: new MarkoutSum(),
      });
    this.#recorded = new Map();
    for (const m of this.#options.store.marks(this.#options.pairId)) {
      const byHorizon = this.#recorded.get(m.fillId) ?? new Map<number, FillMark>();
      byHorizon.set(m.horizonMs, m);
      this.#recorded.set(m.fillId, byHorizon);
    }
  }

  /** The value the pair is marked to now (null: none); called at every recomputation. */
  observe(value: Decimal | null): void {
    const now = this.#options.clock.now();
    if (value !== null) {
      this.#timeline.push(now, value);
      this.#value = value;
    }
    const dropped = this.#options.store.droppedFills();
    if (dropped !== this.#dropped) {
      this.#dropped = dropped;
      this.#begin();
    }
    this.#readFills(now);
    this.#readCharges();
    this.#resolve(now);
    this.#timeline.forgetBefore(now - this.#horizons.at(-1)! - 1);
  }

  /** The value marked to now (the last one handed over); null: none yet. */
  get value(): Decimal | null {
    return this.#value;
  }

  /** The attribution at the last value. */
  attribution(): AttributionParts {
    return this.#attribution.at(this.#value);
  }

  markouts(horizonMs: number): MarkoutFigures | undefined {
    return this.#markouts.get(horizonMs);
  }

  get horizonsMs(): readonly number[] {
    return this.#options.horizonsMs;
  }

  /**
   * Markouts that could not be taken: a fill recorded while the bot was stopped (its moment unknown), or a
   * horizon that fell due while no value was known (before the first value, or while the bot was stopped).
   */
  get missed(): number {
    return this.#missed;
  }

  /** Fills waiting for a horizon to pass. */
  get pending(): number {
    return this.#pending.length;
  }

  #readFills(now: number): void {
    const fresh = this.#options.store.fillsAfter(this.#options.pairId, this.#options.wallet, this.#seq);
    if (fresh.length > 0) this.#seq = fresh.at(-1)!.seq;
    const waiting = this.#unvalued.concat(fresh);
    this.#unvalued = [];
    for (const s of waiting) {
      const f = s.fill;
      const recorded = this.#recorded.get(f.fillId);
      this.#recorded.delete(f.fillId);
      const atFill = recorded?.get(0);
      const value = atFill === undefined ? this.#value : new Decimal(atFill.value);
      if (value === null) {
        this.#unvalued.push(s);
        continue;
      }
      const scales = this.#options.scales;
      this.#attribution.addFill({
        baseDelta: baseFromNative(f.baseDelta, scales),
        quoteDelta: quoteFromNative(f.quoteDelta, scales),
        commission: quoteFromNative(f.fee, scales),
        valueAtFill: value,
      });
      const marked = {
        fillId: f.fillId,
        side: f.side,
        quantity: quantityFromRaw(f.quantity, scales),
        price: priceFromRaw(f.price, scales),
        level: s.level,
      };
      const open: number[] = [];
      for (const h of this.#horizons) {
        const v = recorded?.get(h);
        if (v !== undefined) this.#add(marked, h, new Decimal(v.value));
        else open.push(h);
      }
      if (atFill !== undefined) {
        // Recorded before this start: the horizons still open are valued if the timeline knows their moment.
        if (open.length > 0) this.#pending.push({ ...marked, seenMs: atFill.atMs, open });
      } else if (s.seq <= this.#startSeq) {
        // Recorded while the bot was stopped: its moment is not known, so it gets no markouts.
        this.#missed += open.length;
      } else {
        this.#options.store.addMark({
          fillId: f.fillId,
          pairId: this.#options.pairId,
          horizonMs: 0,
          value: value.toFixed(),
          atMs: now,
        });
        this.#pending.push({ ...marked, seenMs: now, open });
      }
    }
  }

  #readCharges(): void {
    const rate = this.#options.chainFeeRate;
    if (rate.evm.isZero() && rate.wasm.isZero()) return;
    const charges = this.#options.store.chargedSince(this.#options.pairId, this.#options.wallet, this.#chargedMs);
    for (const c of charges) {
      if (c.updatedMs === this.#chargedMs && this.#chargedAtEdge.has(c.txHash)) continue;
      if (c.updatedMs > this.#chargedMs) {
        this.#chargedMs = c.updatedMs;
        this.#chargedAtEdge = new Set();
      }
      this.#chargedAtEdge.add(c.txHash);
      this.#attribution.addChainFee(nativeFromRaw(c.fee, c.chain).mul(rate[c.chain]));
    }
  }

  #resolve(now: number): void {
    if (this.#pending.length === 0) return;
    const still: Pending[] = [];
    for (const p of this.#pending) {
      while (p.open.length > 0 && p.seenMs + p.open[0]! <= now) {
        const h = p.open.shift()!;
        const at = p.seenMs + h;
        const value = this.#timeline.at(at);
        if (value === null) {
          this.#missed += 1;
          continue;
        }
        this.#options.store.addMark({
          fillId: p.fillId,
          pairId: this.#options.pairId,
          horizonMs: h,
          value: value.toFixed(),
          atMs: at,
        });
        this.#add(p, h, value);
      }
      if (p.open.length > 0) still.push(p);
    }
    this.#pending = still;
  }

  #add(f: { side: Side; quantity: Decimal; price: Decimal; level: number | null }, h: number, value: Decimal): void {
    const m = this.#markouts.get(h);
    if (m === undefined) return;
    m.all.add(f, value);
    m.bySide[f.side].add(f, value);
    if (f.level !== null) {
      let level = m.byLevel.get(f.level);
      if (level === undefined) m.byLevel.set(f.level, (level = new MarkoutSum()));
      level.add(f, value);
    }
  }
}
