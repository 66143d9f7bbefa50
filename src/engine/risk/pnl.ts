/**
 * Profit and loss of one pair by average cost: realised on every fill that reduces the position, unrealised at
 * the mark, fees apart. Pure: state in, state out, all in Decimal (base units and quote units).
 */
import { Decimal } from '../../core/decimal.ts';
import type { Side } from '../../core/order-terms.ts';

export interface PnlState {
  /** Base units held by the strategy (negative only if the wallet was short to start with). */
  readonly position: Decimal;
  /** Average cost of the position, quote per base. */
  readonly averageCost: Decimal;
  /** Realised profit in quote units, before fees. */
  readonly realised: Decimal;
  /** Commissions paid, quote units. */
  readonly fees: Decimal;
}

export const ZERO_PNL: PnlState = {
  position: new Decimal(0),
  averageCost: new Decimal(0),
  realised: new Decimal(0),
  fees: new Decimal(0),
};

export interface PnlFill {
  readonly side: Side;
  readonly quantity: Decimal;
  readonly price: Decimal;
  readonly fee: Decimal;
}

export function applyFill(s: PnlState, f: PnlFill): PnlState {
  const signed = f.side === 'buy' ? f.quantity : f.quantity.neg();
  const fees = s.fees.add(f.fee);
  const position = s.position.add(signed);
  // Same direction (or from flat): the average cost moves; opposite direction: realise against it.
  if (s.position.isZero() || s.position.isPositive() === signed.isPositive()) {
    const cost = s.position.abs().mul(s.averageCost).add(f.quantity.mul(f.price));
    return {
      position,
      averageCost: position.isZero() ? new Decimal(0) : cost.div(position.abs()),
      realised: s.realised,
      fees,
    };
  }
  const closing = Decimal.min(f.quantity, s.position.abs());
  const perUnit = s.position.isPositive() ? f.price.sub(s.averageCost) : s.averageCost.sub(f.price);
  const realised = s.realised.add(closing.mul(perUnit));
  // A fill larger than the position flips it: the rest opens a new position at the fill price.
  const averageCost = position.isZero() ? new Decimal(0) : f.quantity.gt(s.position.abs()) ? f.price : s.averageCost;
  return { position, averageCost, realised, fees };
}

export function unrealised(s: PnlState, mark: Decimal): Decimal {
  return s.position.mul(mark.sub(s.averageCost));
}

/** Realised plus unrealised at the mark, less fees. */
export function totalPnl(s: PnlState, mark: Decimal | null): Decimal {
  return s.realised.add(mark === null ? new Decimal(0) : unrealised(s, mark)).sub(s.fees);
}
