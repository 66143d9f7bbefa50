/**
 * A spread ladder around a centre price: `levels` quotes per side, the first at its side's spread from the
 * centre, each further one `spacingBps` further out, sizes per level with the last one repeating. Raw
 * quotes: conformance snaps, rounds and checks them afterwards.
 */
import { Decimal, quotientDown } from '../core/decimal.ts';
import { BPS } from '../core/rules.ts';
import type { DesiredQuote, Side } from './types.ts';

export interface LadderParams {
  readonly levels: number;
  readonly spacingBps: number;
  /** Per level; the last one repeats for deeper levels. */
  readonly sizes: readonly Decimal[];
  /** `base`: sizes are base quantities; `quote`: sizes are order values, divided by each quote's price. */
  readonly sizeUnit: 'base' | 'quote';
  readonly bidSpreadBps: number;
  readonly askSpreadBps: number;
}

function sizeAt(level: number, sizes: readonly Decimal[]): Decimal {
  const size = sizes[Math.min(level, sizes.length - 1)];
  if (size === undefined) throw new RangeError('a ladder needs at least one size');
  return size;
}

function quoteAt(side: Side, level: number, centre: Decimal, params: LadderParams): DesiredQuote {
  const spreadBps = (side === 'buy' ? params.bidSpreadBps : params.askSpreadBps) + level * params.spacingBps;
  const offset = centre.mul(spreadBps).div(BPS);
  const price = side === 'buy' ? centre.sub(offset) : centre.add(offset);
  const size = sizeAt(level, params.sizes);
  // A value-sized level at a non-positive price has no quantity; conformance drops it for its price. Its
  // quantity is only ever rounded down to the size grid, so the quotient needs no more than quotientDown's digits.
  const quantity = params.sizeUnit === 'base' ? size : price.gt(0) ? quotientDown(size, price) : new Decimal(0);
  return { side, price, quantity, level };
}

/** Bids then asks, each side from level 0 (nearest the centre) outwards. */
export function ladderQuotes(centre: Decimal, params: LadderParams): DesiredQuote[] {
  const out: DesiredQuote[] = [];
  for (const side of ['buy', 'sell'] as const) {
    for (let level = 0; level < params.levels; level++) out.push(quoteAt(side, level, centre, params));
  }
  return out;
}
