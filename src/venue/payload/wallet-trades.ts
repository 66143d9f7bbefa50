/**
 * A wallet's trades (`GET /wallets/{address}/trades`). The venue names the fields (`id`, `sequenceNo`,
 * `transactionDate`, `finalityDate`, `transactionType`, base and quote symbols and quantities, `price`,
 * `commission`, `orderId`, `transactionHash`) but not all their shapes, so amounts are read from decimal
 * strings or JSON numbers, dates from ISO 8601 strings or epoch numbers (below 10^11 seconds, else
 * milliseconds), and the base and quote fields under the usual spellings (`baseTokenQuantity`,
 * `baseQuantity`, `quantity`; `baseTokenSymbol`, `baseSymbol`; likewise for the quote). Every field stays in
 * `raw`. `orderId`, `transactionHash`, the base quantity and the price are required: the trade cannot be
 * matched with a fill without them. An item with a malformed field is set aside, the others kept.
 */
import type { Decimal } from '../../core/decimal.ts';
import { findArray } from './containers.ts';
import { toDecimal } from './decimal-value.ts';
import { JsonNumberText } from './json.ts';
import { parseOrderId } from './orders.ts';
import { fieldError, parseEach, type Lenient } from './problems.ts';

export interface VenueTrade {
  readonly id: string;
  /** The on-chain id of our order that traded. */
  readonly orderId: bigint;
  readonly transactionHash: string;
  readonly baseQuantity: Decimal;
  readonly price: Decimal;
  readonly sequenceNo?: bigint;
  /** Epoch ms. */
  readonly transactionDate?: number;
  /** Epoch ms once the venue calls the trade final; absent (or null on the wire) until then. */
  readonly finalityDate?: number;
  readonly transactionType?: string;
  readonly tradingPairId?: string;
  readonly baseSymbol?: string;
  readonly quoteSymbol?: string;
  readonly quoteQuantity?: Decimal;
  readonly commission?: Decimal;
  /** Every field as sent, unknown ones too. */
  readonly raw: Readonly<Record<string, unknown>>;
}

export interface VenueTradePage extends Lenient<VenueTrade> {
  readonly received: number;
  readonly nextCursor?: string;
  readonly totalCount?: number;
}

/** Epoch numbers below this are seconds (10^11 s is the year 5138; 10^11 ms is 1973). */
const SECONDS_BELOW = 1e11;

type Item = Record<string, unknown>;

function first(item: Item, names: readonly string[]): string | undefined {
  return names.find((n) => item[n] !== undefined && item[n] !== null);
}

function text(item: Item, names: readonly string[], source: string, at: string): string | undefined {
  const name = first(item, names);
  if (name === undefined) return undefined;
  const v = item[name];
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  if (typeof v !== 'string' || v === '' || v.length > 255)
    throw fieldError(source, `${at}.${name}`, v, 'expected a non-empty string');
  return v;
}

function amount(item: Item, names: readonly string[], source: string, at: string): Decimal | undefined {
  const name = first(item, names);
  if (name === undefined) return undefined;
  const d = toDecimal(item[name]);
  if (d === undefined || d.isNegative())
    throw fieldError(source, `${at}.${name}`, item[name], 'expected a non-negative decimal string or number');
  return d;
}

/** An ISO 8601 string or an epoch number (seconds or milliseconds), as epoch ms. */
export function parseDate(value: unknown, source: string, field: string): number {
  const v = value instanceof JsonNumberText ? Number(value.source) : value;
  let ms = Number.NaN;
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) ms = v < SECONDS_BELOW ? v * 1000 : v;
  else if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v)) ms = Date.parse(v);
  if (!Number.isFinite(ms)) throw fieldError(source, field, value, 'expected an ISO 8601 date-time or epoch number');
  return Math.round(ms);
}

function date(item: Item, name: string, source: string, at: string): number | undefined {
  const v = item[name];
  return v === undefined || v === null ? undefined : parseDate(v, source, `${at}.${name}`);
}

function sequence(item: Item, source: string, at: string): bigint | undefined {
  const v = item.sequenceNo;
  if (v === undefined || v === null) return undefined;
  return parseOrderId(v, source, `${at}.sequenceNo`);
}

function required<T>(value: T | undefined, source: string, field: string, raw: unknown): T {
  if (value === undefined) throw fieldError(source, field, raw, 'required');
  return value;
}

function parseTrade(raw: unknown, source: string, at: string): VenueTrade {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw fieldError(source, at, raw, 'expected a trade object');
  const o = raw as Item;
  const hash = required(text(o, ['transactionHash', 'txHash'], source, at), source, `${at}.transactionHash`, o);
  const baseNames = ['baseTokenQuantity', 'baseQuantity', 'quantity'];
  const fields: Record<string, unknown> = {
    sequenceNo: sequence(o, source, at),
    transactionDate: date(o, 'transactionDate', source, at),
    finalityDate: date(o, 'finalityDate', source, at),
    transactionType: text(o, ['transactionType'], source, at),
    tradingPairId: text(o, ['tradingPairId'], source, at),
    baseSymbol: text(o, ['baseTokenSymbol', 'baseSymbol'], source, at),
    quoteSymbol: text(o, ['quoteTokenSymbol', 'quoteSymbol'], source, at),
    quoteQuantity: amount(o, ['quoteTokenQuantity', 'quoteQuantity'], source, at),
    commission: amount(o, ['commission'], source, at),
  };
  const present = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return {
    id: required(text(o, ['id'], source, at), source, `${at}.id`, o.id),
    orderId: parseOrderId(o.orderId, source, `${at}.orderId`),
    transactionHash: hash,
    baseQuantity: required(amount(o, baseNames, source, at), source, `${at}.baseTokenQuantity`, undefined),
    price: required(amount(o, ['price'], source, at), source, `${at}.price`, o.price),
    ...present,
    raw: o,
  } as VenueTrade;
}

/** A page of a wallet's trades, with `next_cursor` and `total_count` when the venue sends them. */
export function parseTradePage(body: unknown, source: string): VenueTradePage {
  const { items, field } = findArray(body, source, ['items', 'trades']);
  const list = parseEach(items, (raw, i) => parseTrade(raw, source, field === '' ? String(i) : `${field}.${i}`));
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
