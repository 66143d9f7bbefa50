/**
 * On-chain order enums and the order terms shared by both chains' encodings. The combination rules live
 * here once, so the bot's encoder, its decoder and the sandbox's contracts refuse the same things.
 */
import { Decimal, formatDecimal } from './decimal.ts';
import type { RuleViolation } from './rule-violation.ts';

export type Side = 'buy' | 'sell';
export type OrderType = 'limit' | 'market';
export type ExecutionCondition = 'standard' | 'ioc' | 'boc' | 'fok';
export type Validity = 'gfd' | 'gtd';
export type CancellationType = 'ByParticipant' | 'ByAdmin' | 'ByContract';

export const SIDE_CODE = { buy: 1, sell: 2 } as const satisfies Record<Side, number>;
export const ORDER_TYPE_CODE = { limit: 0, market: 1 } as const satisfies Record<OrderType, number>;
export const EXECUTION_CONDITION_CODE = { standard: 0, ioc: 1, boc: 2, fok: 3 } as const satisfies Record<
  ExecutionCondition,
  number
>;
export const VALIDITY_CODE = { gfd: 0, gtd: 1 } as const satisfies Record<Validity, number>;
export const CANCELLATION_TYPES: readonly CancellationType[] = ['ByParticipant', 'ByAdmin', 'ByContract'];

export const MAX_LIFETIME_DAYS = 90;

function invert<K extends string>(table: Record<K, number>): Map<number, K> {
  return new Map(Object.entries(table).map(([k, v]) => [v as number, k as K]));
}
export const SIDE_BY_CODE = invert(SIDE_CODE);
export const ORDER_TYPE_BY_CODE = invert(ORDER_TYPE_CODE);
export const EXECUTION_CONDITION_BY_CODE = invert(EXECUTION_CONDITION_CODE);
export const VALIDITY_BY_CODE = invert(VALIDITY_CODE);

export function cancellationTypeOf(code: number): CancellationType | undefined {
  return CANCELLATION_TYPES[code];
}

/** Order options beyond quantity and price. */
export interface OrderOptions {
  readonly type: OrderType;
  readonly condition: ExecutionCondition;
  readonly validity: Validity;
  /** Days, 0..90; 0 means the venue default. Only with GTD. */
  readonly lifetimeDays: number;
}

export const DEFAULT_ORDER_OPTIONS: OrderOptions = {
  type: 'limit',
  condition: 'standard',
  validity: 'gfd',
  lifetimeDays: 0,
};

/** Human order terms. */
export interface OrderTerms extends OrderOptions {
  readonly side: Side;
  readonly quantity: Decimal;
  /** Limit price; for market orders an optional protection price (zero when none). */
  readonly price: Decimal;
}

/** Scaled order terms as they travel on chain. */
export interface RawOrder extends OrderOptions {
  readonly quantity: bigint;
  readonly price: bigint;
}

export function isDefaultOptions(options: OrderOptions): boolean {
  return (
    options.type === 'limit' &&
    options.condition === 'standard' &&
    options.validity === 'gfd' &&
    options.lifetimeDays === 0
  );
}

/** Every combination rule of order options; an empty list means valid. */
export function checkOrderOptions(options: OrderOptions): RuleViolation[] {
  const out: RuleViolation[] = [];
  if (!Number.isInteger(options.lifetimeDays) || options.lifetimeDays < 0 || options.lifetimeDays > MAX_LIFETIME_DAYS) {
    out.push({
      rule: 'lifetime',
      code: 'E_RULE_LIFETIME',
      message: `lifetime ${options.lifetimeDays} days is outside 0..${MAX_LIFETIME_DAYS}`,
      numbers: { lifetimeDays: String(options.lifetimeDays), max: String(MAX_LIFETIME_DAYS) },
    });
  } else if (options.lifetimeDays !== 0 && options.validity !== 'gtd') {
    out.push({
      rule: 'lifetime',
      code: 'E_RULE_LIFETIME',
      message: `a lifetime (${options.lifetimeDays} days) is only valid with GTD validity`,
      numbers: { lifetimeDays: String(options.lifetimeDays) },
    });
  }
  if (options.type === 'market' && options.condition === 'boc') {
    out.push({
      rule: 'order-terms',
      code: 'E_RULE_ORDER_TERMS',
      message: 'a market order cannot be book-or-cancel',
      numbers: {},
    });
  }
  if (
    options.validity === 'gtd' &&
    (options.type === 'market' || options.condition === 'ioc' || options.condition === 'fok')
  ) {
    out.push({
      rule: 'order-terms',
      code: 'E_RULE_ORDER_TERMS',
      message: `GTD applies only to limit orders that can rest (not ${options.type === 'market' ? 'market' : options.condition.toUpperCase()})`,
      numbers: {},
    });
  }
  return out;
}

/** Checks quantity and price of scaled terms (positive quantity; a limit order needs a positive price). */
export function checkRawAmounts(quantity: bigint, price: bigint, type: OrderType): RuleViolation[] {
  const out: RuleViolation[] = [];
  if (quantity <= 0n) {
    out.push({
      rule: 'size',
      code: 'E_RULE_SIZE',
      message: `quantity ${quantity} must be positive`,
      numbers: { quantity: String(quantity) },
    });
  }
  if (type === 'limit' && price <= 0n) {
    out.push({
      rule: 'price',
      code: 'E_RULE_PRICE',
      message: `limit price ${price} must be positive`,
      numbers: { price: String(price) },
    });
  }
  return out;
}

export function describeTerms(t: OrderTerms): string {
  const extras = isDefaultOptions(t)
    ? ''
    : ` ${t.type} ${t.condition} ${t.validity}${t.validity === 'gtd' ? ` ${t.lifetimeDays}d` : ''}`;
  return `${t.side} ${formatDecimal(t.quantity)} @ ${formatDecimal(t.price)}${extras}`;
}
