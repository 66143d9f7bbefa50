/**
 * What the simulated traders want, as pure functions of the fair value, the pair's rules and the book: the
 * background maker's ladder of quotes around the fair value and the orders it should cancel or add to get
 * there, and a taker's crossing order. Every price is on the pair's tick grid and inside the collar, every
 * size is the minimum plus whole increments, every value above the minimum with a margin: the simulated
 * traders obey the same rules as the bot (`src/core/rules.ts`).
 */
import { Decimal } from '../../core/decimal.ts';
import type { Side } from '../../core/order-terms.ts';
import { checkCollar, checkStaticThreshold, minimumValueWithMargin, type PairRules } from '../../core/rules.ts';
import { snapToTick, tickDown, tickUp } from '../../core/ticks.ts';
import type { SeededRandom } from './random.ts';

export interface MakerSettings {
  /** Orders per side. */
  readonly levels: number;
  /** Distance between the best bid and the best ask, in basis points of the fair value. */
  readonly spreadBps: number;
  /** Distance between levels, in basis points. */
  readonly stepBps: number;
}

export interface Quote {
  readonly side: Side;
  readonly price: Decimal;
  readonly quantity: Decimal;
}

export interface OwnOrder {
  readonly orderId: bigint;
  readonly price: Decimal;
}

const BPS = new Decimal(10_000);

/** A valid size worth at least 1.5 times the minimum order value (plus margin), `extraSteps` increments more. */
export function sizeFor(price: Decimal, rules: PairRules, extraSteps: number): Decimal | undefined {
  if (price.lte(0)) return undefined;
  const floor = minimumValueWithMargin(rules).mul(1.5);
  const needed = floor.div(price).sub(rules.minimumSize);
  const k = needed.lte(0) ? new Decimal(0) : needed.div(rules.sizeIncrement).ceil();
  const size = rules.minimumSize.add(k.add(extraSteps).mul(rules.sizeIncrement));
  return size.mul(price).gt(rules.maximumOrderValue) ? undefined : size;
}

/** The rules with the current static reference price (it moves at every close). */
export function withReference(rules: PairRules, reference: Decimal): PairRules {
  return { ...rules, staticReferencePrice: reference };
}

/** The maker's ladder: `levels` distinct prices per side around `fair`, inside the collar and the static threshold. */
export function makerLadder(fair: Decimal, rules: PairRules, s: MakerSettings, random: SeededRandom): Quote[] {
  const out: Quote[] = [];
  for (const side of ['buy', 'sell'] as const) {
    let previous: Decimal | undefined;
    for (let i = 0; i < s.levels; i++) {
      const offset = new Decimal(s.spreadBps)
        .div(2)
        .add(s.stepBps * i)
        .div(BPS);
      let price = snapToTick(
        side === 'buy' ? fair.mul(new Decimal(1).sub(offset)) : fair.mul(new Decimal(1).add(offset)),
        side,
        rules.tick,
      );
      if (previous !== undefined && (side === 'buy' ? price.gte(previous) : price.lte(previous))) {
        price = side === 'buy' ? tickDown(previous, rules.tick) : tickUp(previous, rules.tick);
      }
      previous = price;
      if (price.lte(0) || checkCollar(price, rules) !== null || checkStaticThreshold(price, rules) !== null) continue;
      const quantity = sizeFor(price, rules, random.int(0, 6));
      if (quantity !== undefined) out.push({ side, price, quantity });
    }
  }
  return out;
}

/**
 * Which own orders of one side to cancel and which quotes to add: orders inside the side's window are kept
 * (not nearer the fair value than a quarter of the spread, not further than the ladder's far end plus half a
 * spread), the rest cancelled; free places are filled with ladder prices not yet taken.
 */
export function reconcileSide(
  side: Side,
  own: readonly OwnOrder[],
  ladder: readonly Quote[],
  fair: Decimal,
  s: MakerSettings,
): { cancel: bigint[]; place: Quote[] } {
  const near = new Decimal(s.spreadBps).div(4).div(BPS);
  const far = new Decimal(s.spreadBps).add(s.stepBps * Math.max(0, s.levels - 1)).div(BPS);
  const [lo, hi] =
    side === 'buy'
      ? [fair.mul(new Decimal(1).sub(far)), fair.mul(new Decimal(1).sub(near))]
      : [fair.mul(new Decimal(1).add(near)), fair.mul(new Decimal(1).add(far))];
  const better = (a: OwnOrder, b: OwnOrder) => (side === 'buy' ? b.price.cmp(a.price) : a.price.cmp(b.price));
  const inside = own.filter((o) => o.price.gte(lo) && o.price.lte(hi)).toSorted(better);
  const keep = inside.slice(0, s.levels);
  const cancel = own.filter((o) => !keep.includes(o)).map((o) => o.orderId);
  const taken = new Set(keep.map((o) => o.price.toFixed()));
  const place = ladder
    .filter((q) => q.side === side && !taken.has(q.price.toFixed()))
    .slice(0, Math.max(0, s.levels - keep.length));
  return { cancel, place };
}

export interface BookTop {
  /** Best opposite level for each side a taker could hit: asks for a buy, bids for a sell. */
  readonly bestAsk?: { readonly price: Decimal; readonly quantity: Decimal };
  readonly bestBid?: { readonly price: Decimal; readonly quantity: Decimal };
}

export interface TakerOrder {
  readonly side: Side;
  readonly quantity: Decimal;
  /** The level's price: the limit of a crossing limit or IOC order (a market order carries none). */
  readonly price: Decimal;
}

/**
 * A crossing order against the best opposite level only (so the execution price stays near the last one):
 * buying is likelier when the last price is below the fair value, selling when above. Undefined when there
 * is nothing to hit, or when the level is so far from the last price (or the reference) that the trade would
 * risk a volatility halt.
 */
export function takerOrder(
  top: BookTop,
  fair: Decimal,
  last: Decimal | undefined,
  rules: PairRules,
  random: SeededRandom,
): TakerOrder | undefined {
  const lean = last === undefined ? 0 : Math.max(-0.35, Math.min(0.35, fair.sub(last).div(fair).mul(20).toNumber()));
  const side: Side = random.next() < 0.5 + lean ? 'buy' : 'sell';
  const level = side === 'buy' ? top.bestAsk : top.bestBid;
  if (level === undefined) return undefined;
  const within = (reference: Decimal | null | undefined, bps: number) =>
    reference === null ||
    reference === undefined ||
    bps === 0 ||
    level.price.sub(reference).abs().mul(BPS).lte(reference.mul(bps).mul(0.8));
  if (!within(last, rules.dynamicThresholdBps) || !within(rules.staticReferencePrice, rules.staticThresholdBps))
    return undefined;
  const wanted = sizeFor(level.price, rules, random.int(0, 3));
  if (wanted === undefined) return undefined;
  let quantity = wanted.gt(level.quantity) ? level.quantity : wanted;
  const extra = quantity.sub(rules.minimumSize);
  if (extra.lt(0)) return undefined;
  quantity = rules.minimumSize.add(extra.div(rules.sizeIncrement).floor().mul(rules.sizeIncrement));
  if (quantity.mul(level.price).lt(minimumValueWithMargin(rules))) return undefined;
  return { side, quantity, price: level.price };
}
