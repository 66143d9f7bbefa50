/** Human order terms <-> the exact bytes each chain's order book receives. */
import type { Decimal } from '../decimal.ts';
import type { OrderTerms, RawOrder, Side } from '../order-terms.ts';
import type { ChainKind } from '../pair.ts';
import { priceFromRaw, priceToRaw, quantityFromRaw, quantityToRaw, type PairScales } from '../units.ts';
import {
  decodeEvmCrossIdentifier,
  decodeEvmOrderData,
  decodeEvmReportingData,
  encodeEvmCrossIdentifier,
  encodeEvmOrderData,
  encodeEvmReportingData,
} from './evm-order.ts';
import { hexToBytes } from './hex.ts';
import { ZERO_REPORTING, type ReportingData } from './reporting.ts';
import {
  decodeWasmCrossIdentifier,
  decodeWasmOrderData,
  decodeWasmReportingData,
  encodeWasmCrossIdentifier,
  encodeWasmOrderData,
  encodeWasmReportingData,
  parseWasmOrderDataHex,
} from './wasm-order.ts';

export interface EncodedOrder {
  readonly chain: ChainKind;
  readonly side: Side;
  readonly raw: RawOrder;
  readonly orderData: Uint8Array;
  readonly reportingData: Uint8Array;
  readonly crossIdentifier: Uint8Array;
}

export function toRawOrder(terms: OrderTerms, scales: PairScales): RawOrder {
  return {
    quantity: quantityToRaw(terms.quantity, scales),
    price: priceToRaw(terms.price, scales),
    type: terms.type,
    condition: terms.condition,
    validity: terms.validity,
    lifetimeDays: terms.lifetimeDays,
  };
}

export function encodeOrder(
  chain: ChainKind,
  terms: OrderTerms,
  scales: PairScales,
  crossIdentifier = 0n,
  reporting: ReportingData = ZERO_REPORTING,
): EncodedOrder {
  const raw = toRawOrder(terms, scales);
  if (chain === 'evm') {
    return {
      chain,
      side: terms.side,
      raw,
      orderData: encodeEvmOrderData(raw),
      reportingData: encodeEvmReportingData(reporting),
      crossIdentifier: encodeEvmCrossIdentifier(crossIdentifier),
    };
  }
  return {
    chain,
    side: terms.side,
    raw,
    orderData: encodeWasmOrderData(raw),
    reportingData: encodeWasmReportingData(reporting),
    crossIdentifier: encodeWasmCrossIdentifier(crossIdentifier),
  };
}

export interface DecodedOrder {
  readonly raw: RawOrder;
  readonly quantity: Decimal;
  readonly price: Decimal;
  readonly crossIdentifier: bigint | null;
  readonly reporting: ReportingData | null;
}

export interface EncodedHex {
  readonly orderData: string;
  readonly crossIdentifier?: string | undefined;
  readonly reportingData?: string | undefined;
}

export function decodeOrder(chain: ChainKind, hex: EncodedHex, scales: PairScales): DecodedOrder {
  const raw =
    chain === 'evm'
      ? decodeEvmOrderData(hexToBytes(hex.orderData, 'orderData'))
      : decodeWasmOrderData(parseWasmOrderDataHex(hex.orderData));
  const cross =
    hex.crossIdentifier === undefined
      ? null
      : (chain === 'evm' ? decodeEvmCrossIdentifier : decodeWasmCrossIdentifier)(
          hexToBytes(hex.crossIdentifier, 'crossIdentifier'),
        );
  const reporting =
    hex.reportingData === undefined
      ? null
      : (chain === 'evm' ? decodeEvmReportingData : decodeWasmReportingData)(
          hexToBytes(hex.reportingData, 'reportingData'),
        );
  return {
    raw,
    quantity: quantityFromRaw(raw.quantity, scales),
    price: priceFromRaw(raw.price, scales),
    crossIdentifier: cross,
    reporting,
  };
}
