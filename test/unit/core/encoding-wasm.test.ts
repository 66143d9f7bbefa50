import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '../../../src/core/encoding/hex.ts';
import {
  decodeWasmCrossIdentifier,
  decodeWasmOrderData,
  decodeWasmReportingData,
  encodeWasmCrossIdentifier,
  encodeWasmOrderData,
  encodeWasmReportingData,
  parseWasmOrderDataHex,
} from '../../../src/core/encoding/wasm-order.ts';
import { DEFAULT_ORDER_OPTIONS, type RawOrder } from '../../../src/core/order-terms.ts';

const word = (n: bigint | number) => BigInt(n).toString(16).padStart(64, '0');
const order = (over: Partial<RawOrder> = {}): RawOrder => ({
  ...DEFAULT_ORDER_OPTIONS,
  quantity: 2500n,
  price: 123_500n,
  ...over,
});
const decodeHex = (hex: string) => decodeWasmOrderData(parseWasmOrderDataHex(hex));

describe('chain B order_data encoding', () => {
  it('writes the shortest form: two words for a plain limit order', () => {
    expect(bytesToHex(encodeWasmOrderData(order()), '')).toBe(word(2500) + word(123_500));
  });
  it('writes words up to the last non-default one', () => {
    expect(bytesToHex(encodeWasmOrderData(order({ type: 'market', price: 0n })), '')).toBe(
      word(2500) + word(0) + word(1),
    );
    expect(bytesToHex(encodeWasmOrderData(order({ condition: 'ioc' })), '')).toBe(
      word(2500) + word(123_500) + word(0) + word(1),
    );
  });
  it('always writes the lifetime word with GTD, and only then', () => {
    const gtd = bytesToHex(encodeWasmOrderData(order({ validity: 'gtd', lifetimeDays: 30 })), '');
    expect(gtd).toBe(word(2500) + word(123_500) + word(0) + word(0) + word(1) + word(30));
    expect(bytesToHex(encodeWasmOrderData(order({ validity: 'gtd', lifetimeDays: 0 })), '').length).toBe(384);
  });
  it('refuses lifetime 91, a lifetime without GTD and contradictory terms', () => {
    expect(() => encodeWasmOrderData(order({ validity: 'gtd', lifetimeDays: 91 }))).toThrow(
      expect.objectContaining({ code: 'E_ENCODING_COMBINATION' }),
    );
    expect(() => encodeWasmOrderData(order({ lifetimeDays: 3 }))).toThrow(
      expect.objectContaining({ code: 'E_ENCODING_COMBINATION' }),
    );
    expect(() => encodeWasmOrderData(order({ type: 'market', condition: 'boc' }))).toThrow(/book-or-cancel/);
    expect(() => encodeWasmOrderData(order({ condition: 'ioc', validity: 'gtd', lifetimeDays: 2 }))).toThrow(/GTD/);
    expect(() => encodeWasmOrderData(order({ type: 'market', validity: 'gtd' }))).toThrow(/GTD/);
  });
  it('lets a market order carry no price but not a limit order', () => {
    expect(() => encodeWasmOrderData(order({ type: 'market', price: 0n }))).not.toThrow();
    expect(() => encodeWasmOrderData(order({ price: 0n }))).toThrow(expect.objectContaining({ code: 'E_RULE_PRICE' }));
  });
});

describe('chain B order_data decoding', () => {
  it('accepts exactly 128, 192, 256, 320 and 384 hex characters', () => {
    const words = [word(2500), word(123_500), word(0), word(2), word(1), word(15)];
    for (let n = 2; n <= 6; n++) {
      const hex = words.slice(0, n).join('');
      expect(hex.length).toBe(64 * n);
      const decoded = decodeHex(hex);
      expect(decoded.quantity).toBe(2500n);
      expect(decoded.condition).toBe(n >= 4 ? 'boc' : 'standard');
    }
  });
  it('gives omitted trailing words their defaults', () => {
    expect(decodeHex(word(1) + word(2))).toEqual({
      quantity: 1n,
      price: 2n,
      type: 'limit',
      condition: 'standard',
      validity: 'gfd',
      lifetimeDays: 0,
    });
    expect(decodeHex(word(1) + word(2) + word(0) + word(0) + word(1))).toMatchObject({
      validity: 'gtd',
      lifetimeDays: 0,
    });
  });
  it('refuses odd hex lengths, incomplete words, compact encodings and non-hex text before anything else', () => {
    expect(() => parseWasmOrderDataHex(word(1) + word(2) + '0')).toThrow(
      expect.objectContaining({ code: 'E_ENCODING_HEX' }),
    );
    expect(() => parseWasmOrderDataHex(word(1) + word(2) + '00')).toThrow(
      expect.objectContaining({ code: 'E_ENCODING_WORDS' }),
    );
    expect(() => parseWasmOrderDataHex('09c401e26c')).toThrow(expect.objectContaining({ code: 'E_ENCODING_WORDS' }));
    expect(() => parseWasmOrderDataHex(word(1))).toThrow(expect.objectContaining({ code: 'E_ENCODING_WORDS' }));
    expect(() => parseWasmOrderDataHex(word(1).repeat(7))).toThrow(
      expect.objectContaining({ code: 'E_ENCODING_WORDS' }),
    );
    expect(() => parseWasmOrderDataHex(`${word(1).slice(0, 63)}g${word(2)}`)).toThrow(
      expect.objectContaining({ code: 'E_ENCODING_HEX' }),
    );
  });
  it('refuses undefined enum values, a lifetime word without GTD, and lifetime 91', () => {
    expect(() => decodeHex(word(1) + word(2) + word(2))).toThrow(expect.objectContaining({ code: 'E_ENCODING_FIELD' }));
    expect(() => decodeHex(word(1) + word(2) + word(0) + word(4))).toThrow(
      expect.objectContaining({ code: 'E_ENCODING_FIELD' }),
    );
    expect(() => decodeHex(word(1) + word(2) + word(0) + word(0) + word(0) + word(5))).toThrow(
      expect.objectContaining({ code: 'E_ENCODING_COMBINATION' }),
    );
    expect(() => decodeHex(word(1) + word(2) + word(0) + word(0) + word(1) + word(91))).toThrow(
      expect.objectContaining({ code: 'E_RULE_LIFETIME' }),
    );
    expect(() => decodeHex(word(1n << 64n) + word(2))).toThrow(expect.objectContaining({ code: 'E_ENCODING_FIELD' }));
  });
});

describe('chain B cross_identifier and reporting_data', () => {
  it('cross_identifier is exactly 4 bytes', () => {
    expect(bytesToHex(encodeWasmCrossIdentifier(0n), '')).toBe('00000000');
    expect(bytesToHex(encodeWasmCrossIdentifier(0xdeadbeefn), '')).toBe('deadbeef');
    expect(decodeWasmCrossIdentifier(hexToBytes('0000002a', 'c'))).toBe(42n);
    expect(() => decodeWasmCrossIdentifier(hexToBytes('000000000000002a', 'c'))).toThrow(
      expect.objectContaining({ code: 'E_ENCODING_CROSS_ID' }),
    );
    expect(() => decodeWasmCrossIdentifier(hexToBytes('2a', 'c'))).toThrow(
      expect.objectContaining({ code: 'E_ENCODING_CROSS_ID' }),
    );
    expect(() => encodeWasmCrossIdentifier(1n << 32n)).toThrow(
      expect.objectContaining({ code: 'E_ENCODING_CROSS_ID' }),
    );
  });
  it('reporting_data is the single zero byte by default and a 256-bit word otherwise, free bits kept', () => {
    expect(bytesToHex(encodeWasmReportingData({ a: 0, b: 0, free: 0n }), '')).toBe('00');
    const r = { a: 7, b: 9, free: 0xabcn };
    const bytes = encodeWasmReportingData(r);
    expect(bytes.length).toBe(32);
    expect(decodeWasmReportingData(bytes)).toEqual(r);
    expect(decodeWasmReportingData(hexToBytes('00', 'r'))).toEqual({ a: 0, b: 0, free: 0n });
    expect(() => decodeWasmReportingData(new Uint8Array(33))).toThrow(
      expect.objectContaining({ code: 'E_ENCODING_REPORTING' }),
    );
  });
});
