/**
 * PnL of one pair from our recorded fills (applied once each, by fill id). Its gauges (position, PnL) are read
 * at every scrape (`derivePairGauges`), with every fill recorded by then: a round that waits on the chain does
 * not leave them behind the store.
 */
import { Decimal } from '../../core/decimal.ts';
import type { PairScales } from '../../core/units.ts';
import { priceFromRaw, quantityFromRaw, quoteFromNative } from '../../core/units.ts';
import type { FillRecord } from '../../store/order-store.ts';
import { applyFill, totalPnl, unrealised, ZERO_PNL, type PnlState } from '../risk/pnl.ts';

export class PnlTracker {
  /** The wallet's recorded fills of the pair. */
  readonly #fills: () => readonly FillRecord[];
  readonly #scales: PairScales;
  readonly #seen = new Set<string>();
  #state: PnlState = ZERO_PNL;
  #mark: Decimal | null = null;

  constructor(fills: () => readonly FillRecord[], scales: PairScales) {
    this.#fills = fills;
    this.#scales = scales;
  }

  /** Applies fills recorded since the last call; `mark` values the position from now on. */
  update(mark: Decimal | null): void {
    this.#mark = mark;
    this.#catchUp();
  }

  /** The PnL with every fill recorded now, at the last mark (what the gauges show). */
  now(): { readonly state: PnlState; readonly mark: Decimal | null } {
    this.#catchUp();
    return { state: this.#state, mark: this.#mark };
  }

  #catchUp(): void {
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

  /** Mark, position and PnL parts at the last update (what the obligations' samples record). */
  snapshot(): { mark: Decimal | null; position: Decimal; realised: Decimal; fees: Decimal; unrealised: Decimal } {
    const s = this.#state;
    const mark = this.#mark;
    return {
      mark,
      position: s.position,
      realised: s.realised,
      fees: s.fees,
      unrealised: mark === null ? new Decimal(0) : unrealised(s, mark),
    };
  }
}
