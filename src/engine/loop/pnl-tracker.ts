/** PnL of one pair from our recorded fills (applied once each, by fill id), with gauges for position and PnL. */
import { Decimal } from '../../core/decimal.ts';
import type { PairScales } from '../../core/units.ts';
import { priceFromRaw, quantityFromRaw, quoteFromNative } from '../../core/units.ts';
import type { FillRecord } from '../../store/order-store.ts';
import { applyFill, totalPnl, unrealised, ZERO_PNL, type PnlState } from '../risk/pnl.ts';
import type { LoopMetrics } from './loop-metrics.ts';

export class PnlTracker {
  /** The wallet's recorded fills of the pair. */
  readonly #fills: () => readonly FillRecord[];
  readonly #pairId: string;
  readonly #scales: PairScales;
  readonly #metrics: LoopMetrics;
  readonly #seen = new Set<string>();
  #state: PnlState = ZERO_PNL;
  #mark: Decimal | null = null;

  constructor(fills: () => readonly FillRecord[], pairId: string, scales: PairScales, metrics: LoopMetrics) {
    this.#fills = fills;
    this.#pairId = pairId;
    this.#scales = scales;
    this.#metrics = metrics;
  }

  /** Applies fills recorded since the last call and publishes the gauges at the mark. */
  update(mark: Decimal | null): void {
    this.#mark = mark;
    for (const f of this.#fills()) {
      if (this.#seen.has(f.fillId)) continue;
      this.#seen.add(f.fillId);
      this.#state = applyFill(this.#state, {
        side: f.side,
        quantity: quantityFromRaw(f.quantity, this.#scales),
        price: priceFromRaw(f.price, this.#scales),
        fee: quoteFromNative(f.fee, this.#scales),
      });
    }
    const s = this.#state;
    const pair = this.#pairId;
    this.#metrics.position.set({ pair }, s.position.toNumber());
    this.#metrics.pnl.set({ pair, kind: 'realised' }, s.realised.toNumber());
    this.#metrics.pnl.set({ pair, kind: 'fees' }, s.fees.toNumber());
    this.#metrics.pnl.set({ pair, kind: 'unrealised' }, mark === null ? 0 : unrealised(s, mark).toNumber());
    this.#metrics.pnl.set({ pair, kind: 'total' }, totalPnl(s, mark).toNumber());
  }

  /** The mark of the last update. */
  get mark(): Decimal | null {
    return this.#mark;
  }

  get position(): Decimal {
    return this.#state.position;
  }

  get state(): PnlState {
    return this.#state;
  }

  total(mark: Decimal | null): Decimal {
    return totalPnl(this.#state, mark);
  }

  get fills(): number {
    return this.#seen.size;
  }
}
