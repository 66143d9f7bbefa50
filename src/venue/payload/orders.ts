/**
 * Open orders of a participant or a wallet. Only `externalOrderId` (the uint64 used to cancel) has a known
 * name; it is required and becomes a bigint. It may arrive as a JSON number only while that number is a
 * safe integer: a larger one has already lost digits in any JSON parser but ours, so it is refused rather
 * than trusted. Every other field is kept as sent.
 */
import { UINT64_MAX } from '../../core/units.ts';
import { findArray } from './containers.ts';
import { JsonNumberText } from './json.ts';
import { fieldError, parseEach, type Lenient } from './problems.ts';

export interface VenueOrder {
  readonly externalOrderId: bigint;
  /** Every field as sent. */
  readonly raw: Readonly<Record<string, unknown>>;
}

export function parseOrderId(value: unknown, source: string, field: string): bigint {
  let id: bigint;
  if (value instanceof JsonNumberText) {
    throw fieldError(source, field, value.source, 'not a safe integer: a 64-bit id must be sent as a string');
  } else if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw fieldError(source, field, value, 'not a safe integer: a 64-bit id must be sent as a string');
    id = BigInt(value);
  } else if (typeof value === 'string' && /^[0-9]{1,20}$/.test(value)) {
    id = BigInt(value);
  } else {
    throw fieldError(source, field, value, 'expected a 64-bit unsigned integer (number or string)');
  }
  if (id < 0n || id > UINT64_MAX) throw fieldError(source, field, value, 'outside uint64');
  return id;
}

export function parseOrderList(body: unknown, source: string): Lenient<VenueOrder> {
  const { items, field } = findArray(body, source, ['orders']);
  return parseEach(items, (raw, i) => {
    const at = field === '' ? String(i) : `${field}.${i}`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw fieldError(source, at, raw, 'expected an order object');
    const order = raw as Record<string, unknown>;
    return { externalOrderId: parseOrderId(order.externalOrderId, source, `${at}.externalOrderId`), raw: order };
  });
}
