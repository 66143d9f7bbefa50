/**
 * The venue's pre-trade rules for one pair, derived from the REST TradingPair and the operator's per-pair
 * overrides. Each check returns the rule broken with the numbers involved; the bot refuses an order that
 * breaks any of them before it is signed.
 */
import { Decimal, formatDecimal, parseDecimalString } from './decimal.ts';
import { DltError } from './errors.ts';
import { checkOrderOptions, type OrderTerms } from './order-terms.ts';
import { chainKindOf, pairScales, type BlockChain, type ChainKind, type TradingPair } from './pair.ts';
import type { RuleViolation } from './rule-violation.ts';
import { tickRulesFor, type PairOverrides } from './tick-rules.ts';
import { checkTick, type TickRules } from './ticks.ts';
import type { PairScales } from './units.ts';

export type { PairOverrides } from './tick-rules.ts';

export const BPS = new Decimal(10_000);

export const DEFAULT_VALUE_MARGIN_BPS = 200;

export interface Commissions {
  readonly makerBps: number;
  readonly takerBps: number;
  readonly marketMakerBps: number;
}

export interface PairRules {
  readonly pairId: string;
  readonly blockChain: BlockChain;
  readonly chain: ChainKind;
  readonly scales: PairScales;
  readonly tick: TickRules;
  readonly minimumSize: Decimal;
  readonly sizeIncrement: Decimal;
  readonly minimumOrderValue: Decimal;
  readonly maximumOrderValue: Decimal;
  readonly valueMarginBps: number;
  /** Collar half-width in basis points around the static reference price; 0 disables the collar. */
  readonly priceCollarBps: bigint;
  readonly staticReferencePrice: Decimal | null;
  readonly staticThresholdBps: number;
  readonly dynamicThresholdBps: number;
  readonly maximumMatches: number;
  readonly commissions: Commissions;
  readonly orderBookVersion: string | null;
}

/** Derives the rules of a pair; every missing or unusable field is listed in one error. */
export function derivePairRules(pair: TradingPair, overrides: PairOverrides = {}): PairRules {
  const missing: string[] = [];
  const need = <K extends keyof TradingPair>(key: K): NonNullable<TradingPair[K]> | undefined => {
    const v = pair[key];
    if (v === undefined || v === null) missing.push(`${String(key)}: missing`);
    return v ?? undefined;
  };
  const blockChain = need('blockChain');
  const scales = pairScales(pair);
  const increment = need('minimumSizeIncrement');
  const minValue = need('minimumOrderValue');
  const maxValue = need('maximumOrderValue');
  const maker = need('makerCommission');
  const taker = need('takerCommission');
  const mm = need('marketMakerCommission');
  const tick = tickRulesFor(pair, overrides, scales, missing);
  const sizeIncrement = increment === undefined ? null : parseDecimalString(increment, 'minimumSizeIncrement');
  if (sizeIncrement !== null && sizeIncrement.lte(0)) missing.push('minimumSizeIncrement: must be positive');
  const minimumSize =
    overrides.minimumSize !== undefined ? parseDecimalString(overrides.minimumSize, 'minimumSize') : sizeIncrement;
  if (minimumSize !== null && minimumSize.lte(0)) missing.push('minimumSize: must be positive');
  if (
    missing.length > 0 ||
    blockChain === undefined ||
    tick === null ||
    sizeIncrement === null ||
    minimumSize === null
  ) {
    throw new DltError('E_PAIR_RULES_MISSING', `pair ${pair.id} cannot be traded:\n  ${missing.join('\n  ')}`, {
      details: { pairId: pair.id, missing },
    });
  }
  return {
    pairId: pair.id,
    blockChain,
    chain: chainKindOf(blockChain),
    scales,
    tick,
    minimumSize,
    sizeIncrement,
    minimumOrderValue: parseDecimalString(minValue, 'minimumOrderValue'),
    maximumOrderValue: parseDecimalString(maxValue, 'maximumOrderValue'),
    valueMarginBps: overrides.valueMarginBps ?? DEFAULT_VALUE_MARGIN_BPS,
    priceCollarBps: BigInt(pair.priceCollarFactor ?? 0),
    staticReferencePrice:
      pair.staticReferencePrice === undefined
        ? null
        : parseDecimalString(pair.staticReferencePrice, 'staticReferencePrice'),
    staticThresholdBps: pair.staticThreshold ?? 0,
    dynamicThresholdBps: pair.dynamicThreshold ?? 0,
    maximumMatches: pair.maximumMatches ?? 0,
    commissions: { makerBps: maker as number, takerBps: taker as number, marketMakerBps: mm as number },
    orderBookVersion: pair.orderBookVersion ?? null,
  };
}

const f = formatDecimal;

/** Size = minimum + k * increment, k >= 0. */
export function checkSize(
  quantity: Decimal,
  rules: Pick<PairRules, 'minimumSize' | 'sizeIncrement'>,
): RuleViolation | null {
  const extra = quantity.sub(rules.minimumSize);
  if (extra.gte(0) && extra.mod(rules.sizeIncrement).isZero()) return null;
  const k = extra.lt(0) ? new Decimal(0) : extra.div(rules.sizeIncrement).floor();
  const below = rules.minimumSize.add(k.mul(rules.sizeIncrement));
  return {
    rule: 'size',
    code: 'E_RULE_SIZE',
    message: `size ${f(quantity)} is not ${f(rules.minimumSize)} plus a whole multiple of ${f(rules.sizeIncrement)}`,
    numbers: {
      quantity: f(quantity),
      minimumSize: f(rules.minimumSize),
      increment: f(rules.sizeIncrement),
      nearestBelow: extra.lt(0) ? '' : f(below),
      nearestAbove: f(extra.lt(0) ? rules.minimumSize : below.add(rules.sizeIncrement)),
    },
  };
}

/** Each minimum's last value with a margin (asked for by every step and check of every quote). */
const withMargin = new WeakMap<Decimal, { readonly bps: number; readonly value: Decimal }>();

/** The smallest order value the bot will send: minimum plus the safety margin. */
export function minimumValueWithMargin(rules: Pick<PairRules, 'minimumOrderValue' | 'valueMarginBps'>): Decimal {
  const known = withMargin.get(rules.minimumOrderValue);
  if (known?.bps === rules.valueMarginBps) return known.value;
  const value = rules.minimumOrderValue.mul(BPS.add(rules.valueMarginBps)).div(BPS);
  withMargin.set(rules.minimumOrderValue, { bps: rules.valueMarginBps, value });
  return value;
}

export function checkValue(
  price: Decimal,
  quantity: Decimal,
  rules: Pick<PairRules, 'minimumOrderValue' | 'maximumOrderValue' | 'valueMarginBps'>,
): RuleViolation | null {
  const value = price.mul(quantity);
  const floor = minimumValueWithMargin(rules);
  if (value.lt(floor)) {
    return {
      rule: 'value-min',
      code: 'E_RULE_VALUE_MIN',
      message: `order value ${f(value)} is below ${f(floor)} (minimumOrderValue ${f(rules.minimumOrderValue)} + ${rules.valueMarginBps} bp margin)`,
      numbers: {
        value: f(value),
        minimumOrderValue: f(rules.minimumOrderValue),
        marginBps: String(rules.valueMarginBps),
        floor: f(floor),
      },
    };
  }
  if (value.gt(rules.maximumOrderValue)) {
    return {
      rule: 'value-max',
      code: 'E_RULE_VALUE_MAX',
      message: `order value ${f(value)} is above maximumOrderValue ${f(rules.maximumOrderValue)}`,
      numbers: { value: f(value), maximumOrderValue: f(rules.maximumOrderValue) },
    };
  }
  return null;
}

/** Bands already computed, by reference (Decimals are immutable, so one object always has one value) and width. */
const bands = new WeakMap<Decimal, Map<string, { lower: Decimal; upper: Decimal }>>();

/** [reference * (1 - bps/10000), reference * (1 + bps/10000)] */
export function bandAround(reference: Decimal, bps: Decimal | string | number): { lower: Decimal; upper: Decimal } {
  // The references (static reference price, last price) are the same objects round after round.
  const key = bps.toString();
  let byWidth = bands.get(reference);
  const known = byWidth?.get(key);
  if (known !== undefined) return known;
  const width = reference.mul(bps).div(BPS);
  const band = Object.freeze({ lower: reference.sub(width), upper: reference.add(width) });
  if (byWidth === undefined) bands.set(reference, (byWidth = new Map()));
  byWidth.set(key, band);
  return band;
}

function checkBand(
  price: Decimal,
  reference: Decimal | null,
  bps: Decimal | string | number,
  rule: string,
  code: RuleViolation['code'],
  label: string,
): RuleViolation | null {
  // Widths are whole basis points: a decimal string or number is zero exactly when its Number is.
  if (reference === null || Number(bps.toString()) === 0) return null;
  const { lower, upper } = bandAround(reference, bps);
  if (price.gte(lower) && price.lte(upper)) return null;
  return {
    rule,
    code,
    message: `price ${f(price)} is outside the ${label} [${f(lower)}, ${f(upper)}] (${bps} bp around ${f(reference)})`,
    numbers: { price: f(price), reference: f(reference), bps: String(bps), lower: f(lower), upper: f(upper) },
  };
}

export function checkCollar(
  price: Decimal,
  rules: Pick<PairRules, 'priceCollarBps' | 'staticReferencePrice'>,
): RuleViolation | null {
  return checkBand(
    price,
    rules.staticReferencePrice,
    rules.priceCollarBps.toString(),
    'collar',
    'E_RULE_COLLAR',
    'price collar',
  );
}

export function checkStaticThreshold(
  price: Decimal,
  rules: Pick<PairRules, 'staticThresholdBps' | 'staticReferencePrice'>,
): RuleViolation | null {
  return checkBand(
    price,
    rules.staticReferencePrice,
    rules.staticThresholdBps,
    'static-threshold',
    'E_RULE_STATIC_THRESHOLD',
    'static threshold',
  );
}

/** The dynamic reference is the last execution price; without one the check does not apply. */
export function checkDynamicThreshold(
  price: Decimal,
  lastPrice: Decimal | null,
  rules: Pick<PairRules, 'dynamicThresholdBps'>,
): RuleViolation | null {
  return checkBand(
    price,
    lastPrice,
    rules.dynamicThresholdBps,
    'dynamic-threshold',
    'E_RULE_DYNAMIC_THRESHOLD',
    'dynamic threshold',
  );
}

export interface RuleContext {
  /** Last execution price, the dynamic reference; null when none is known. */
  readonly lastPrice?: Decimal | null;
}

/** Every rule an order breaks (empty when it may be sent). */
export function checkOrder(terms: OrderTerms, rules: PairRules, context: RuleContext = {}): RuleViolation[] {
  const out: RuleViolation[] = [...checkOrderOptions(terms)];
  const size = checkSize(terms.quantity, rules);
  if (size) out.push(size);
  if (terms.type === 'limit' || terms.price.gt(0)) {
    if (terms.price.lte(0)) {
      out.push({
        rule: 'price',
        code: 'E_RULE_PRICE',
        message: `limit price ${f(terms.price)} must be positive`,
        numbers: { price: f(terms.price) },
      });
      return out;
    }
    for (const v of [
      checkTick(terms.price, rules.tick),
      checkValue(terms.price, terms.quantity, rules),
      checkCollar(terms.price, rules),
      checkStaticThreshold(terms.price, rules),
      checkDynamicThreshold(terms.price, context.lastPrice ?? null, rules),
    ]) {
      if (v) out.push(v);
    }
  }
  return out;
}

/** Throws one error carrying every violation. */
export function assertOrder(terms: OrderTerms, rules: PairRules, context: RuleContext = {}): void {
  const violations = checkOrder(terms, rules, context);
  if (violations.length > 0) throw rulesBroken(violations);
}

export function rulesBroken(violations: readonly RuleViolation[]): DltError {
  const first = violations[0];
  const code = violations.length === 1 && first ? first.code : 'E_RULES_BROKEN';
  return new DltError(code, violations.map((v) => `${v.rule}: ${v.message}`).join('; '), { details: { violations } });
}
