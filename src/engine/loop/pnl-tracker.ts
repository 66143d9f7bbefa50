/**
 * PnL of one pair from our recorded fills, each applied once: the store is read from the last fill applied on
 * (by its sequence in the record), so an update costs the same however many fills the day has had. Its gauges
 * (position, PnL) are read at every scrape (`derivePairGauges`), with every fill recorded by then: a round that
 * waits on the chain does not leave them behind the store.
 */
import { Decimal } from '../../core/decimal.ts';
import type { PairScales } from '../../core/units.ts';
import { priceFromRaw, quantityFromRaw, quoteFromNative } from '../../core/units.ts';
import type { SequencedFill } from '../../store/evaluation-store.ts';
import { applyFill, totalPnl, unrealised, ZERO_PNL, type PnlState } from '../risk/pnl.ts';

export class PnlTracker {
  /** The wallet's fills of the pair recorded after a sequence number. */
  readonly #fills: (afterSeq: number) => readonly SequencedFill[];
  readonly #scales: PairScales;
  readonly #dropped: () => number;
  #seq = 0;
  #count = 0;
  #droppedSeen = 0;
  #state: PnlState = ZERO_PNL;
  #mark: Decimal | null = null;

  /** `fills.dropped`: how many fills reorganisations withdrew so far; when it changes, the fills are applied anew. */
  constructor(fills: { after(seq: number): readonly SequencedFill[]; dropped(): number }, scales: PairScales) {
    this.#fills = (seq) => fills.after(seq);
    this.#scales = scales;
    this.#dropped = () => fills.dropped();
    this.#droppedSeen = fills.dropped();
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
    const dropped = this.#dropped();
    if (dropped !== this.#droppedSeen) {
      this.#droppedSeen = dropped;
      this.#state = ZERO_PNL;
      this.#seq = 0;
      this.#count = 0;
    }
    for (const { seq, fill: f } of this.#fills(this.#seq)) {
      this.#seq = seq;
      this.#count += 1;
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
    return this.#count;
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
