/**
 * Orders of a participant or a wallet (open ones, or with `only_open=false` the filled, cancelled and rejected
 * ones too). The specification names only `externalOrderId` (the uint64 used to cancel); the venue SDK's model
 * gives the rest: `id`, `externalOrderId`, `tradingPairId`, `orderKind` (`BUY`/`SELL`), `orderType` (`LIMIT`),
 * `initialQuantity`, `remainingQuantity`, `priceLimit` (decimal strings), `status`, `statusReason`,
 * `finalityStatus`, `creationDate`, `modificationDate`, `statusChangeTime`, `ownerReportingData` (the two
 * reporting values), `crossIdentifier`, `validUntil`, `executionCondition`, `address`, in `{items: [...],
 * next_cursor?, total_count?}`. Those fields are read and checked when present (a side also from `side`, a
 * price also from `price`, as other venues name them; a cross identifier as a number, a decimal or 0x string,
 * empty as none; reporting ids as numbers or decimal strings); every field stays in `raw`. A status or reason
 * this bot does not know is data (`unknownOrderValues` names them for the caller to log and count). `externalOrderId` is required and becomes a bigint; it may arrive as a JSON number only while
 * that number is a safe integer: a larger one has already lost digits in any JSON parser but ours, so it is
 * refused rather than trusted. An item with a malformed known field is set aside (a wrong quantity would
 * mislead reconciliation), the others kept.
 */
import type { Decimal } from '../../core/decimal.ts';
import { UINT32_MAX, UINT64_MAX } from '../../core/units.ts';
import { findArray } from './containers.ts';
import { toDecimal } from './decimal-value.ts';
import { JsonNumberText } from './json.ts';
import { fieldError, parseEach, type Lenient } from './problems.ts';

export interface VenueOrder {
  readonly externalOrderId: bigint;
  /** The venue's record id. */
  readonly id?: string;
  readonly tradingPairId?: string;
  readonly side?: 'buy' | 'sell';
  readonly orderType?: string;
  readonly initialQuantity?: Decimal;
  readonly remainingQuantity?: Decimal;
  readonly priceLimit?: Decimal;
  readonly status?: string;
  readonly statusReason?: string;
  readonly finalityStatus?: string;
  readonly creationDate?: string;
  readonly modificationDate?: string;
  readonly statusChangeTime?: string;
  /** The order's two reporting values, as sent on chain. */
  readonly ownerReportingData?: OwnerReportingData;
  /** The order's cross identifier (uint32), as sent on chain. */
  readonly crossIdentifier?: bigint;
  readonly validUntil?: string;
  /** `NONE` for a standard order. */
  readonly executionCondition?: string;
  /** The wallet. */
  readonly address?: string;
  /** Every field as sent. */
  readonly raw: Readonly<Record<string, unknown>>;
}

export interface OwnerReportingData {
  readonly ownerReportingId: number;
  readonly decisionReportingId: number;
}

/** Order statuses this bot knows: the venue SDK's `OPEN` and the ends `only_open=false` lists. */
const ORDER_STATUSES: ReadonlySet<string> = new Set([
  'OPEN',
  'PARTIALLY_FILLED',
  'FILLED',
  'COMPLETED',
  'CANCELLED',
  'REJECTED',
]);
const CLOSED_STATUSES: ReadonlySet<string> = new Set(['FILLED', 'COMPLETED', 'CANCELLED', 'REJECTED']);

/** Status reasons this bot knows: none, who cancelled, and the contract's rejection reasons. */
const ORDER_STATUS_REASONS: ReadonlySet<string> = new Set([
  'N_A',
  'BY_PARTICIPANT',
  'BY_ADMIN',
  'BY_CONTRACT',
  'SELF_TRADE',
  'MAX_MATCHES',
  'CIRCUIT_BREAKER_PRICE_OUT_OF_MAXIMUM_STATIC_RANGE',
  'CIRCUIT_BREAKER_PRICE_OUT_OF_MINIMUM_STATIC_RANGE',
  'CIRCUIT_BREAKER_PRICE_OUT_OF_MAXIMUM_DYNAMIC_RANGE',
  'CIRCUIT_BREAKER_PRICE_OUT_OF_MINIMUM_DYNAMIC_RANGE',
  'PARTIAL_REJECTED',
  'FULLY_REJECTED',
]);

/** Whether the record says the order has ended (filled, cancelled, rejected); an unknown status says nothing. */
export function isClosedStatus(status: string | undefined): boolean {
  return status !== undefined && CLOSED_STATUSES.has(status);
}

/** The fields whose value this bot does not know: data, never a failure. */
export function unknownOrderValues(o: VenueOrder): { readonly field: string; readonly value: string }[] {
  const out: { field: string; value: string }[] = [];
  if (o.status !== undefined && !ORDER_STATUSES.has(o.status)) out.push({ field: 'order.status', value: o.status });
  if (o.statusReason !== undefined && !ORDER_STATUS_REASONS.has(o.statusReason))
    out.push({ field: 'order.statusReason', value: o.statusReason });
  return out;
}

export interface VenueOrderPage extends Lenient<VenueOrder> {
  /** Items the page held, valid or not. */
  readonly received: number;
  readonly nextCursor?: string;
  readonly totalCount?: number;
}

export function parseOrderId(value: unknown, source: string, field: string): bigint {
  let id: bigint;
  if (value instanceof JsonNumberText) {
    throw fieldError(source, field, value.source, 'not a safe integer: a 64-bit id must be sent as a string');
  } else if (typeof value === 'number') {
    if (!Number.isSafeInteger(value))
      throw fieldError(source, field, value, 'not a safe integer: a 64-bit id must be sent as a string');
    id = BigInt(value);
  } else if (typeof value === 'string' && /^[0-9]{1,20}$/.test(value)) {
    id = BigInt(value);
  } else {
    throw fieldError(source, field, value, 'expected a 64-bit unsigned integer (number or string)');
  }
  if (id < 0n || id > UINT64_MAX) throw fieldError(source, field, value, 'outside uint64');
  return id;
}

function optionalText(order: Record<string, unknown>, name: string, source: string, at: string): string | undefined {
  const v = order[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length > 255) throw fieldError(source, `${at}.${name}`, v, 'expected a string');
  return v;
}

function optionalAmount(
  order: Record<string, unknown>,
  names: readonly string[],
  source: string,
  at: string,
): Decimal | undefined {
  const name = names.find((n) => order[n] !== undefined && order[n] !== null);
  if (name === undefined) return undefined;
  const d = toDecimal(order[name]);
  if (d === undefined || d.isNegative())
    throw fieldError(source, `${at}.${name}`, order[name], 'expected a non-negative decimal string');
  return d;
}

function optionalSide(order: Record<string, unknown>, source: string, at: string): 'buy' | 'sell' | undefined {
  const name = ['orderKind', 'side'].find((n) => order[n] !== undefined && order[n] !== null);
  if (name === undefined) return undefined;
  const v = order[name];
  const s = typeof v === 'string' ? v.toLowerCase() : v;
  if (s === 'buy' || s === 1 || s === '1') return 'buy';
  if (s === 'sell' || s === 2 || s === '2') return 'sell';
  throw fieldError(source, `${at}.${name}`, v, 'expected BUY or SELL');
}

function optionalDate(order: Record<string, unknown>, name: string, source: string, at: string): string | undefined {
  const v = optionalText(order, name, source, at);
  if (v !== undefined && Number.isNaN(Date.parse(v)))
    throw fieldError(source, `${at}.${name}`, v, 'expected an ISO 8601 date-time');
  return v;
}

function optionalUint32(value: unknown, source: string, field: string): bigint | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let v: bigint | undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) v = BigInt(value);
  else if (typeof value === 'string' && /^(?:[0-9]{1,10}|0x[0-9a-fA-F]{1,8})$/.test(value)) v = BigInt(value);
  if (v === undefined || v < 0n || v > UINT32_MAX) throw fieldError(source, field, value, 'expected a uint32');
  return v;
}

function optionalReporting(order: Record<string, unknown>, source: string, at: string): OwnerReportingData | undefined {
  const v = order.ownerReportingData;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v))
    throw fieldError(source, `${at}.ownerReportingData`, v, 'expected {ownerReportingId, decisionReportingId}');
  const r = v as Record<string, unknown>;
  const id = (name: string) => optionalUint32(r[name], source, `${at}.ownerReportingData.${name}`);
  const owner = id('ownerReportingId');
  const decision = id('decisionReportingId');
  return { ownerReportingId: Number(owner ?? 0n), decisionReportingId: Number(decision ?? 0n) };
}

function parseOrder(raw: unknown, source: string, at: string): VenueOrder {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw fieldError(source, at, raw, 'expected an order object');
  const o = raw as Record<string, unknown>;
  const fields: Record<string, unknown> = {
    id: typeof o.id === 'number' ? String(o.id) : optionalText(o, 'id', source, at),
    tradingPairId: optionalText(o, 'tradingPairId', source, at),
    side: optionalSide(o, source, at),
    orderType: optionalText(o, 'orderType', source, at),
    initialQuantity: optionalAmount(o, ['initialQuantity', 'quantity'], source, at),
    remainingQuantity: optionalAmount(o, ['remainingQuantity'], source, at),
    priceLimit: optionalAmount(o, ['priceLimit', 'price'], source, at),
    status: optionalText(o, 'status', source, at),
    statusReason: optionalText(o, 'statusReason', source, at),
    finalityStatus: optionalText(o, 'finalityStatus', source, at),
    creationDate: optionalDate(o, 'creationDate', source, at),
    modificationDate: optionalDate(o, 'modificationDate', source, at),
    statusChangeTime: optionalDate(o, 'statusChangeTime', source, at),
    ownerReportingData: optionalReporting(o, source, at),
    crossIdentifier: optionalUint32(o.crossIdentifier, source, `${at}.crossIdentifier`),
    validUntil: optionalDate(o, 'validUntil', source, at),
    executionCondition: optionalText(o, 'executionCondition', source, at),
    address: optionalText(o, 'address', source, at),
  };
  const present = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return {
    externalOrderId: parseOrderId(o.externalOrderId, source, `${at}.externalOrderId`),
    ...present,
    raw: o,
  } as VenueOrder;
}

export function parseOrderList(body: unknown, source: string): Lenient<VenueOrder> {
  return parseOrderPage(body, source);
}

/** A page of an order list, with `next_cursor` and `total_count` when the venue sends them. */
export function parseOrderPage(body: unknown, source: string): VenueOrderPage {
  const { items, field } = findArray(body, source, ['items', 'orders']);
  const list = parseEach(items, (raw, i) => parseOrder(raw, source, field === '' ? String(i) : `${field}.${i}`));
  const envelope =
    !Array.isArray(body) && body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const cursor = envelope.next_cursor;
  const total = envelope.total_count;
  return {
    ...list,
    received: items.length,
    ...(typeof cursor === 'string' && cursor !== '' ? { nextCursor: cursor } : {}),
    ...(typeof total === 'number' && Number.isSafeInteger(total) && total >= 0 ? { totalCount: total } : {}),
  };
}
