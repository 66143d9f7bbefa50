/**
 * What the simulated traders want, as pure functions of the value they act on, the pair's rules and the book:
 * the background maker's ladder of quotes around its (lagged) view of the value and the orders it should
 * cancel or add to get there, an uninformed taker's crossing order and an informed taker's order against a
 * mispriced level. Every price is on the pair's tick grid and inside the collar, every
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
 * Whether trading at `price` keeps clear of the volatility controls: within 80 % of the dynamic threshold
 * from the last price and of the static threshold from the reference price (a threshold of 0 is none).
 */
export function clearOfVolatilityControls(price: Decimal, last: Decimal | undefined, rules: PairRules): boolean {
  const within = (reference: Decimal | null | undefined, bps: number) =>
    reference === null ||
    reference === undefined ||
    bps === 0 ||
    price.sub(reference).abs().mul(BPS).lte(reference.mul(bps).mul(0.8));
  return within(last, rules.dynamicThresholdBps) && within(rules.staticReferencePrice, rules.staticThresholdBps);
}

/**
 * A taker's order against one level: a size worth 1.5 times the minimum value plus 0 to 3 increments, at
 * most the level's quantity, whole increments; undefined when that is below the minimum or too far from the
 * last price (or the reference) to trade without risking a volatility halt.
 */
function againstLevel(
  side: Side,
  level: { readonly price: Decimal; readonly quantity: Decimal },
  last: Decimal | undefined,
  rules: PairRules,
  random: SeededRandom,
): TakerOrder | undefined {
  if (!clearOfVolatilityControls(level.price, last, rules)) return undefined;
  const wanted = sizeFor(level.price, rules, random.int(0, 3));
  if (wanted === undefined) return undefined;
  let quantity = wanted.gt(level.quantity) ? level.quantity : wanted;
  const extra = quantity.sub(rules.minimumSize);
  if (extra.lt(0)) return undefined;
  quantity = rules.minimumSize.add(extra.div(rules.sizeIncrement).floor().mul(rules.sizeIncrement));
  if (quantity.mul(level.price).lt(minimumValueWithMargin(rules))) return undefined;
  return { side, quantity, price: level.price };
}

/**
 * An uninformed taker's crossing order against the best opposite level only (so the execution price stays
 * near the last one): buying is likelier when the last price is below the true value, selling when above.
 * Undefined when there is nothing to hit or the level is too far away (`againstLevel`).
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
  return level === undefined ? undefined : againstLevel(side, level, last, rules, random);
}

/**
 * An informed taker's order: it knows the true value and trades only against a mispriced best level, buying
 * the best ask when it is below true × (1 − edge) and selling to the best bid when it is above
 * true × (1 + edge) (the further off of the two when both are), at that level's price and up to its size, with
 * the uninformed taker's size rules and volatility precautions. Undefined when nothing is mispriced.
 */
export function informedOrder(
  top: BookTop,
  trueValue: Decimal,
  last: Decimal | undefined,
  rules: PairRules,
  edgeBps: number,
  random: SeededRandom,
): TakerOrder | undefined {
  const edge = new Decimal(edgeBps).div(BPS);
  const ask = top.bestAsk;
  const bid = top.bestBid;
  const buyGain =
    ask !== undefined && ask.price.lt(trueValue.mul(new Decimal(1).sub(edge))) ? trueValue.sub(ask.price) : null;
  const sellGain =
    bid !== undefined && bid.price.gt(trueValue.mul(new Decimal(1).add(edge))) ? bid.price.sub(trueValue) : null;
  if (buyGain === null && sellGain === null) return undefined;
  const buy = sellGain === null || (buyGain !== null && buyGain.gte(sellGain));
  const level = buy ? ask : bid;
  return level === undefined ? undefined : againstLevel(buy ? 'buy' : 'sell', level, last, rules, random);
}
