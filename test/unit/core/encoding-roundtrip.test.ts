import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.ts';
import {
  decodeEvmCrossIdentifier,
  decodeEvmOrderData,
  decodeEvmReportingData,
} from '../../../src/core/encoding/evm-order.ts';
import { bytesToHex } from '../../../src/core/encoding/hex.ts';
import { decodeOrder, encodeOrder } from '../../../src/core/encoding/order-codec.ts';
import {
  decodeWasmCrossIdentifier,
  decodeWasmOrderData,
  decodeWasmReportingData,
  encodeWasmOrderData,
  parseWasmOrderDataHex,
} from '../../../src/core/encoding/wasm-order.ts';
import { checkOrderOptions, type OrderOptions, type OrderTerms, type RawOrder } from '../../../src/core/order-terms.ts';
import { UINT64_MAX } from '../../../src/core/units.ts';

const u64 = fc.bigInt({ min: 1n, max: UINT64_MAX });
const u32 = fc.integer({ min: 0, max: 0xffffffff });

/** Every valid combination of chain B order options. */
const wasmOptions: fc.Arbitrary<OrderOptions> = fc
  .record({
    type: fc.constantFrom('limit', 'market'),
    condition: fc.constantFrom('standard', 'ioc', 'boc', 'fok'),
    validity: fc.constantFrom('gfd', 'gtd'),
    lifetimeDays: fc.integer({ min: 0, max: 90 }),
  })
  .map((o) => ({ ...o, lifetimeDays: o.validity === 'gtd' ? o.lifetimeDays : 0 }) as OrderOptions)
  .filter((o) => checkOrderOptions(o).length === 0);

const wasmRaw: fc.Arbitrary<RawOrder> = fc
  .tuple(u64, fc.bigInt({ min: 0n, max: UINT64_MAX }), wasmOptions)
  .map(([quantity, price, o]) => ({ ...o, quantity, price: o.type === 'limit' && price === 0n ? 1n : price }));

describe('encoding then decoding returns the input', () => {
  it('chain B order_data, for every valid option combination', () => {
    fc.assert(
      fc.property(wasmRaw, (raw) => {
        const hex = bytesToHex(encodeWasmOrderData(raw), '');
        expect(decodeWasmOrderData(parseWasmOrderDataHex(hex))).toEqual(raw);
      }),
      { numRuns: 2000 },
    );
  });
  it('chain A and chain B from human terms, with cross identifier and reporting data', () => {
    const scales = { baseInternal: 10_000n, quoteInternal: 1_000n, baseNative: 10n ** 18n, quoteNative: 10n ** 6n };
    const human = fc.record({
      chain: fc.constantFrom('evm' as const, 'wasm' as const),
      side: fc.constantFrom('buy' as const, 'sell' as const),
      qtyUnits: fc.bigInt({ min: 1n, max: 10n ** 15n }),
      priceUnits: fc.bigInt({ min: 1n, max: 10n ** 15n }),
      cross: u32,
      a: u32,
      b: u32,
    });
    fc.assert(
      fc.property(human, (h) => {
        const terms: OrderTerms = {
          side: h.side,
          quantity: new Decimal(h.qtyUnits.toString()).div(10_000),
          price: new Decimal(h.priceUnits.toString()).div(1_000),
          type: 'limit',
          condition: 'standard',
          validity: 'gfd',
          lifetimeDays: 0,
        };
        const enc = encodeOrder(h.chain, terms, scales, BigInt(h.cross), { a: h.a, b: h.b, free: 0n });
        const prefix = h.chain === 'evm' ? '0x' : '';
        const dec = decodeOrder(
          h.chain,
          {
            orderData: bytesToHex(enc.orderData, prefix),
            crossIdentifier: bytesToHex(enc.crossIdentifier, prefix),
            reportingData: bytesToHex(enc.reportingData, prefix),
          },
          scales,
        );
        expect(dec.quantity.eq(terms.quantity) && dec.price.eq(terms.price)).toBe(true);
        expect(dec.crossIdentifier).toBe(BigInt(h.cross));
        expect(dec.reporting).toEqual({ a: h.a, b: h.b, free: 0n });
        const rawBack = h.chain === 'evm' ? decodeEvmOrderData(enc.orderData) : decodeWasmOrderData(enc.orderData);
        expect(rawBack).toEqual(enc.raw);
        const crossBack =
          h.chain === 'evm'
            ? decodeEvmCrossIdentifier(enc.crossIdentifier)
            : decodeWasmCrossIdentifier(enc.crossIdentifier);
        expect(crossBack).toBe(BigInt(h.cross));
        const repBack =
          h.chain === 'evm' ? decodeEvmReportingData(enc.reportingData) : decodeWasmReportingData(enc.reportingData);
        expect(repBack).toEqual({ a: h.a, b: h.b, free: 0n });
      }),
      { numRuns: 1000 },
    );
  });
});
