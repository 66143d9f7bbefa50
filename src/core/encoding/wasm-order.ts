/**
 * Chain B (Soroban) order book encodings. `order_data` is 2 to 6 complete big-endian 32-byte words:
 * quantity, price, orderType, executionCondition, validityConstraints, lifetime. Omitted trailing words take
 * their defaults; the lifetime word is present only with GTD. `cross_identifier` is exactly 4 bytes.
 */
import { DltError } from '../errors.ts';
import {
  checkOrderOptions,
  checkRawAmounts,
  EXECUTION_CONDITION_BY_CODE,
  EXECUTION_CONDITION_CODE,
  ORDER_TYPE_BY_CODE,
  ORDER_TYPE_CODE,
  VALIDITY_BY_CODE,
  VALIDITY_CODE,
  type RawOrder,
} from '../order-terms.ts';
import { rulesBroken } from '../rules.ts';
import { assertUint, UINT32_MAX, UINT64_MAX } from '../units.ts';
import { bytesToUint, concatBytes, hexToBytes, readWords, uintToBytes, uintToWord, WORD_BYTES } from './hex.ts';
import { checkReporting, type ReportingData } from './reporting.ts';

export const ORDER_DATA_HEX_LENGTHS = [128, 192, 256, 320, 384] as const;

function refuse(violations: ReturnType<typeof checkOrderOptions>): DltError {
  const e = rulesBroken(violations);
  return new DltError('E_ENCODING_COMBINATION', e.message, { details: e.details });
}

export function encodeWasmOrderData(order: RawOrder): Uint8Array {
  const combination = checkOrderOptions(order);
  if (combination.length > 0) throw refuse(combination);
  const amounts = checkRawAmounts(order.quantity, order.price, order.type);
  if (amounts.length > 0) throw rulesBroken(amounts);
  assertUint(order.quantity, 64, 'quantity');
  assertUint(order.price, 64, 'price');
  const words = [
    order.quantity,
    order.price,
    BigInt(ORDER_TYPE_CODE[order.type]),
    BigInt(EXECUTION_CONDITION_CODE[order.condition]),
    BigInt(VALIDITY_CODE[order.validity]),
    BigInt(order.lifetimeDays),
  ];
  // Shortest valid form: GTD carries its lifetime word; otherwise trailing default words are dropped.
  let count = 6;
  if (order.validity !== 'gtd') {
    count = 5;
    while (count > 2 && words[count - 1] === 0n) count--;
  }
  return concatBytes(words.slice(0, count).map(uintToWord));
}

/** Checks the textual form first, as a client does before simulation: hex digits, whole words, 2..6 words. */
export function parseWasmOrderDataHex(hex: string): Uint8Array {
  const body = hex.startsWith('0x') ? hex.slice(2) : hex;
  const bytes = hexToBytes(body, 'order_data');
  if (!(ORDER_DATA_HEX_LENGTHS as readonly number[]).includes(body.length)) {
    throw new DltError(
      'E_ENCODING_WORDS',
      `order_data has ${body.length} hex characters; it must be 128, 192, 256, 320 or 384 (2 to 6 whole 32-byte words)`,
      { details: { hexLength: body.length } },
    );
  }
  return bytes;
}

function field<T>(table: Map<number, T>, value: bigint, name: string): T {
  const found = value <= 255n ? table.get(Number(value)) : undefined;
  if (found === undefined) {
    throw new DltError('E_ENCODING_FIELD', `order_data ${name} value ${value} is not defined`, {
      details: { [name]: value.toString() },
    });
  }
  return found;
}

export function decodeWasmOrderData(bytes: Uint8Array): RawOrder {
  if (bytes.length % WORD_BYTES !== 0 || bytes.length < 2 * WORD_BYTES || bytes.length > 6 * WORD_BYTES) {
    throw new DltError('E_ENCODING_WORDS', `order_data must be 2 to 6 whole 32-byte words, got ${bytes.length} bytes`, {
      details: { bytes: bytes.length },
    });
  }
  const words = readWords(bytes);
  const [quantity, price] = words as [bigint, bigint];
  for (const [name, v] of [
    ['quantity', quantity],
    ['price', price],
  ] as const) {
    if (v > UINT64_MAX)
      throw new DltError('E_ENCODING_FIELD', `order_data ${name} does not fit in uint64`, {
        details: { [name]: v.toString() },
      });
  }
  const type = field(ORDER_TYPE_BY_CODE, words[2] ?? 0n, 'orderType');
  const condition = field(EXECUTION_CONDITION_BY_CODE, words[3] ?? 0n, 'executionCondition');
  const validity = field(VALIDITY_BY_CODE, words[4] ?? 0n, 'validityConstraints');
  const lifetimeWord = words[5];
  if (lifetimeWord !== undefined && validity !== 'gtd') {
    throw new DltError('E_ENCODING_COMBINATION', 'order_data has a lifetime word but validityConstraints is not GTD', {
      details: { validity },
    });
  }
  if (lifetimeWord !== undefined && lifetimeWord > 90n) {
    throw new DltError('E_RULE_LIFETIME', `lifetime ${lifetimeWord} days is outside 0..90`, {
      details: { lifetimeDays: lifetimeWord.toString() },
    });
  }
  const order: RawOrder = { quantity, price, type, condition, validity, lifetimeDays: Number(lifetimeWord ?? 0n) };
  const combination = checkOrderOptions(order);
  if (combination.length > 0) throw refuse(combination);
  const amounts = checkRawAmounts(quantity, price, type);
  if (amounts.length > 0) throw rulesBroken(amounts);
  return order;
}

export function encodeWasmCrossIdentifier(id: bigint): Uint8Array {
  if (id < 0n || id > UINT32_MAX) {
    throw new DltError('E_ENCODING_CROSS_ID', `cross identifier ${id} is not a uint32`, {
      details: { id: id.toString() },
    });
  }
  return uintToBytes(id, 4);
}

export function decodeWasmCrossIdentifier(bytes: Uint8Array): bigint {
  if (bytes.length !== 4) {
    throw new DltError('E_ENCODING_CROSS_ID', `cross_identifier must be exactly 4 bytes, got ${bytes.length}`, {
      details: { bytes: bytes.length },
    });
  }
  return bytesToUint(bytes);
}

export function encodeWasmReportingData(r: ReportingData): Uint8Array {
  checkReporting(r);
  const value = (r.free << 64n) | (BigInt(r.a) << 32n) | BigInt(r.b);
  return value === 0n ? new Uint8Array([0]) : uintToWord(value);
}

export function decodeWasmReportingData(bytes: Uint8Array): ReportingData {
  if (bytes.length === 0 || bytes.length > 32) {
    throw new DltError('E_ENCODING_REPORTING', `reporting_data must be 1 to 32 bytes, got ${bytes.length}`, {
      details: { bytes: bytes.length },
    });
  }
  const v = bytesToUint(bytes);
  return { a: Number((v >> 32n) & UINT32_MAX), b: Number(v & UINT32_MAX), free: v >> 64n };
}
