import { describe, expect, it } from 'vitest';
import { AbiCoder } from 'ethers';
import {
  decodeEvmCrossIdentifier,
  decodeEvmOrderData,
  decodeEvmReportingData,
  encodeEvmCrossIdentifier,
  encodeEvmOrderData,
  encodeEvmReportingData,
} from '../../../src/core/encoding/evm-order.ts';
import { bytesToHex, hexToBytes } from '../../../src/core/encoding/hex.ts';
import { DEFAULT_ORDER_OPTIONS } from '../../../src/core/order-terms.ts';

const abi = AbiCoder.defaultAbiCoder();
const raw = (quantity: bigint, price: bigint) => ({ ...DEFAULT_ORDER_OPTIONS, quantity, price });

describe('chain A orderData', () => {
  it('is the ABI encoding of (uint64 quantity, uint64 price), byte for byte', () => {
    const bytes = encodeEvmOrderData(raw(15_000n, 1_012_000n));
    expect(bytesToHex(bytes)).toBe(abi.encode(['uint64', 'uint64'], [15_000n, 1_012_000n]));
  });
  it('refuses every extended order term on contract v1', () => {
    for (const extra of [
      { type: 'market' },
      { condition: 'ioc' },
      { condition: 'boc' },
      { condition: 'fok' },
      { validity: 'gtd', lifetimeDays: 5 },
    ] as const) {
      expect(() => encodeEvmOrderData({ ...raw(1n, 1n), ...extra })).toThrow(
        expect.objectContaining({ code: 'E_ENCODING_UNSUPPORTED' }),
      );
    }
  });
  it('refuses zero quantity and zero price', () => {
    expect(() => encodeEvmOrderData(raw(0n, 1n))).toThrow(expect.objectContaining({ code: 'E_RULE_SIZE' }));
    expect(() => encodeEvmOrderData(raw(1n, 0n))).toThrow(expect.objectContaining({ code: 'E_RULE_PRICE' }));
  });
  it('decodes its own encoding and refuses other layouts', () => {
    expect(decodeEvmOrderData(encodeEvmOrderData(raw(7n, 9n)))).toMatchObject({ quantity: 7n, price: 9n });
    const extended = hexToBytes(abi.encode(['uint64', 'uint64', 'uint8'], [7n, 9n, 1n]), 'x');
    expect(() => decodeEvmOrderData(extended)).toThrow(expect.objectContaining({ code: 'E_ENCODING_WORDS' }));
    const tooBig = hexToBytes(abi.encode(['uint256', 'uint64'], [1n << 64n, 9n]), 'x');
    expect(() => decodeEvmOrderData(tooBig)).toThrow(expect.objectContaining({ code: 'E_ENCODING_FIELD' }));
  });
});

describe('chain A reportingData and crossIdentifier', () => {
  it('default to the ABI encodings of two uint32 zeros and one uint32 zero', () => {
    expect(bytesToHex(encodeEvmReportingData({ a: 0, b: 0, free: 0n }))).toBe(abi.encode(['uint32', 'uint32'], [0, 0]));
    expect(bytesToHex(encodeEvmCrossIdentifier(0n))).toBe(abi.encode(['uint32'], [0]));
  });
  it('carry uint32 values and refuse larger ones', () => {
    expect(bytesToHex(encodeEvmReportingData({ a: 7, b: 4294967295, free: 0n }))).toBe(
      abi.encode(['uint32', 'uint32'], [7, 4294967295]),
    );
    expect(decodeEvmReportingData(encodeEvmReportingData({ a: 7, b: 9, free: 0n }))).toEqual({ a: 7, b: 9, free: 0n });
    expect(() => encodeEvmReportingData({ a: 2 ** 32, b: 0, free: 0n })).toThrow(
      expect.objectContaining({ code: 'E_ENCODING_REPORTING' }),
    );
    expect(decodeEvmCrossIdentifier(encodeEvmCrossIdentifier(4294967295n))).toBe(4294967295n);
    expect(() => encodeEvmCrossIdentifier(1n << 32n)).toThrow(expect.objectContaining({ code: 'E_ENCODING_CROSS_ID' }));
    expect(() => decodeEvmCrossIdentifier(new Uint8Array(4))).toThrow(
      expect.objectContaining({ code: 'E_ENCODING_CROSS_ID' }),
    );
  });
  it('reads an empty cross identifier (another client\'s "or empty") as 0, the default', () => {
    expect(decodeEvmCrossIdentifier(new Uint8Array(0))).toBe(0n);
    expect(decodeEvmCrossIdentifier(encodeEvmCrossIdentifier(0n))).toBe(0n);
  });
});
