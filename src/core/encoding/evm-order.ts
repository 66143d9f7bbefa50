/**
 * Chain A (EVM) order book encodings of contract v1: `orderData` is the ABI encoding of
 * (uint64 quantity, uint64 price) and nothing else; `reportingData` is ABI (uint32, uint32);
 * `crossIdentifier` is ABI (uint32), or empty ("any unique identifier or empty"), which decodes as 0 like the
 * default: on chain A the two cannot be told apart (the `OrderReceived` event carries a uint64).
 */
import { DltError } from '../errors.ts';
import { checkRawAmounts, isDefaultOptions, DEFAULT_ORDER_OPTIONS, type RawOrder } from '../order-terms.ts';
import { rulesBroken } from '../rules.ts';
import { assertUint, UINT32_MAX, UINT64_MAX } from '../units.ts';
import { concatBytes, readWords, uintToWord } from './hex.ts';
import { checkReporting, type ReportingData } from './reporting.ts';

export function encodeEvmOrderData(order: RawOrder): Uint8Array {
  if (!isDefaultOptions(order)) {
    throw new DltError(
      'E_ENCODING_UNSUPPORTED',
      `chain A order book v1 accepts only limit, standard, GFD orders (two-field encoding); got ${order.type} ${order.condition} ${order.validity}`,
      {
        details: {
          type: order.type,
          condition: order.condition,
          validity: order.validity,
          lifetimeDays: order.lifetimeDays,
        },
      },
    );
  }
  const problems = checkRawAmounts(order.quantity, order.price, 'limit');
  if (problems.length > 0) throw rulesBroken(problems);
  assertUint(order.quantity, 64, 'quantity');
  assertUint(order.price, 64, 'price');
  return concatBytes([uintToWord(order.quantity), uintToWord(order.price)]);
}

export function decodeEvmOrderData(bytes: Uint8Array): RawOrder {
  if (bytes.length !== 64) {
    throw new DltError(
      'E_ENCODING_WORDS',
      `chain A orderData must be exactly two 32-byte ABI words (128 hex characters), got ${bytes.length} bytes`,
      { details: { bytes: bytes.length } },
    );
  }
  const [quantity, price] = readWords(bytes) as [bigint, bigint];
  for (const [name, v] of [
    ['quantity', quantity],
    ['price', price],
  ] as const) {
    if (v > UINT64_MAX)
      throw new DltError('E_ENCODING_FIELD', `orderData ${name} does not fit in uint64`, {
        details: { [name]: v.toString() },
      });
  }
  const problems = checkRawAmounts(quantity, price, 'limit');
  if (problems.length > 0) throw rulesBroken(problems);
  return { ...DEFAULT_ORDER_OPTIONS, quantity, price };
}

export function encodeEvmReportingData(r: ReportingData): Uint8Array {
  checkReporting(r);
  if (r.free !== 0n) {
    throw new DltError(
      'E_ENCODING_REPORTING',
      'chain A reporting data is the ABI tuple (uint32, uint32); free bits do not fit',
      {
        details: { free: r.free.toString() },
      },
    );
  }
  return concatBytes([uintToWord(BigInt(r.a)), uintToWord(BigInt(r.b))]);
}

export function decodeEvmReportingData(bytes: Uint8Array): ReportingData {
  if (bytes.length !== 64) {
    throw new DltError(
      'E_ENCODING_REPORTING',
      `chain A reportingData must be two ABI words (64 bytes), got ${bytes.length}`,
      {
        details: { bytes: bytes.length },
      },
    );
  }
  const [a, b] = readWords(bytes) as [bigint, bigint];
  if (a > UINT32_MAX || b > UINT32_MAX) {
    throw new DltError('E_ENCODING_REPORTING', 'chain A reportingData values must be uint32', {
      details: { a: a.toString(), b: b.toString() },
    });
  }
  return { a: Number(a), b: Number(b), free: 0n };
}

export function encodeEvmCrossIdentifier(id: bigint): Uint8Array {
  if (id < 0n || id > UINT32_MAX) {
    throw new DltError('E_ENCODING_CROSS_ID', `cross identifier ${id} is not a uint32`, {
      details: { id: id.toString() },
    });
  }
  return uintToWord(id);
}

export function decodeEvmCrossIdentifier(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  if (bytes.length !== 32) {
    throw new DltError(
      'E_ENCODING_CROSS_ID',
      `chain A crossIdentifier must be one ABI word (32 bytes) or empty, got ${bytes.length}`,
      {
        details: { bytes: bytes.length },
      },
    );
  }
  const [id] = readWords(bytes) as [bigint];
  if (id > UINT32_MAX)
    throw new DltError('E_ENCODING_CROSS_ID', `cross identifier ${id} is not a uint32`, {
      details: { id: id.toString() },
    });
  return id;
}
