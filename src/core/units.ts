/**
 * Human decimal values <-> scaled integers. Internal scales encode order quantity and price and appear in
 * order book events; native scales denominate token balances, transfers and approvals. A value that does not
 * scale to an exact integer is an error naming the value and the scale, never rounded.
 */
import { Decimal, formatDecimal } from './decimal.ts';
import { DltError } from './errors.ts';

export const SCALE_PATTERN = /^-?[0-9]{1,38}$/;
export const UINT32_MAX = (1n << 32n) - 1n;
export const UINT64_MAX = (1n << 64n) - 1n;
export const UINT128_MAX = (1n << 128n) - 1n;
export const UINT256_MAX = (1n << 256n) - 1n;

/** Parses a scale string of the specification; a scale must be a positive integer. */
export function parseScale(value: unknown, field: string): bigint {
  if (typeof value !== 'string' || !SCALE_PATTERN.test(value)) {
    throw new DltError('E_SCALE_FORMAT', `${field}: ${JSON.stringify(value)} is not a scale string (1 to 38 digits)`, {
      details: { field, value },
    });
  }
  const scale = BigInt(value);
  if (scale <= 0n) {
    throw new DltError('E_SCALE_FORMAT', `${field}: scale ${value} must be positive`, { details: { field, value } });
  }
  return scale;
}

/** Each scale as a Decimal, made once. */
const scaleDecimals = new Map<bigint, Decimal>();
function decimalOf(scale: bigint): Decimal {
  let d = scaleDecimals.get(scale);
  if (d === undefined) {
    d = new Decimal(scale.toString());
    scaleDecimals.set(scale, d);
  }
  return d;
}

/** value * scale as an exact integer, or an error naming both. */
export function toScaled(value: Decimal, scale: bigint, what: string): bigint {
  const product = value.mul(decimalOf(scale));
  if (!product.isInteger()) {
    throw new DltError(
      'E_NOT_EXACT',
      `${what}: ${formatDecimal(value)} x ${scale} = ${formatDecimal(product)} is not an integer`,
      { details: { what, value: formatDecimal(value), scale: scale.toString(), product: formatDecimal(product) } },
    );
  }
  return BigInt(product.toFixed(0));
}

/** The number of zeros of a power-of-ten scale (10^n -> n), null for any other scale; remembered per scale. */
const powersOfTen = new Map<bigint, number | null>();
function tenExponent(scale: bigint): number | null {
  let n = powersOfTen.get(scale);
  if (n === undefined) {
    const digits = scale.toString();
    n = /^10*$/.test(digits) ? digits.length - 1 : null;
    powersOfTen.set(scale, n);
  }
  return n;
}

/** raw / scale as a Decimal; exact for every power-of-ten scale, an error if the quotient does not terminate. */
export function fromScaled(raw: bigint, scale: bigint, what = 'value'): Decimal {
  const zeros = tenExponent(scale);
  if (zeros !== null) {
    // A power of ten only moves the decimal point: written as text, read once, exact by construction.
    if (zeros === 0) return new Decimal(raw.toString());
    const sign = raw < 0n ? '-' : '';
    const digits = (raw < 0n ? -raw : raw).toString().padStart(zeros + 1, '0');
    return new Decimal(`${sign}${digits.slice(0, -zeros)}.${digits.slice(-zeros)}`);
  }
  const quotient = new Decimal(raw.toString()).div(new Decimal(scale.toString()));
  if (!quotient.mul(new Decimal(scale.toString())).eq(new Decimal(raw.toString()))) {
    throw new DltError('E_NOT_EXACT', `${what}: ${raw} / ${scale} has no exact decimal form`, {
      details: { what, raw: raw.toString(), scale: scale.toString() },
    });
  }
  return quotient;
}

/** Checks an integer against an unsigned bit width. */
export function assertUint(value: bigint, bits: 32 | 64 | 128 | 256, what: string): bigint {
  const max = (1n << BigInt(bits)) - 1n;
  if (value < 0n || value > max) {
    throw new DltError('E_INTEGER_RANGE', `${what}: ${value} does not fit in uint${bits}`, {
      details: { what, value: value.toString(), bits },
    });
  }
  return value;
}

/** Rounds a non-negative Decimal up to an integer: used only where the specification says "rounded up". */
export function ceilToBigInt(value: Decimal): bigint {
  return BigInt(value.ceil().toFixed(0));
}

export function floorToBigInt(value: Decimal): bigint {
  return BigInt(value.floor().toFixed(0));
}

/** Ceiling division of non-negative bigints. */
export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('ceilDiv: denominator must be positive');
  if (numerator <= 0n) return numerator / denominator;
  return (numerator + denominator - 1n) / denominator;
}

/** The four scales of a pair, parsed. */
export interface PairScales {
  readonly baseInternal: bigint;
  readonly quoteInternal: bigint;
  readonly baseNative: bigint;
  readonly quoteNative: bigint;
}

export function quantityToRaw(quantity: Decimal, scales: PairScales): bigint {
  return assertUint(toScaled(quantity, scales.baseInternal, 'quantity at baseTokenInternalScale'), 64, 'quantity');
}

export function priceToRaw(price: Decimal, scales: PairScales): bigint {
  return assertUint(toScaled(price, scales.quoteInternal, 'price at quoteTokenInternalScale'), 64, 'price');
}

export function quantityFromRaw(raw: bigint, scales: PairScales): Decimal {
  return fromScaled(raw, scales.baseInternal, 'quantity');
}

export function priceFromRaw(raw: bigint, scales: PairScales): Decimal {
  return fromScaled(raw, scales.quoteInternal, 'price');
}

export function baseToNative(amount: Decimal, scales: PairScales): bigint {
  return toScaled(amount, scales.baseNative, 'base amount at baseTokenNativeScale');
}

export function quoteToNative(amount: Decimal, scales: PairScales): bigint {
  return toScaled(amount, scales.quoteNative, 'quote amount at quoteTokenNativeScale');
}

export function baseFromNative(raw: bigint, scales: PairScales): Decimal {
  return fromScaled(raw, scales.baseNative, 'base amount');
}

export function quoteFromNative(raw: bigint, scales: PairScales): Decimal {
  return fromScaled(raw, scales.quoteNative, 'quote amount');
}

/** Decimals of each chain's native fee token: chain A 18 (wei), chain B 7 (stroops). */
export const NATIVE_DECIMALS = { evm: 18, wasm: 7 } as const;

/** A native fee amount (wei, stroops) in whole native tokens. */
export function nativeFromRaw(raw: bigint, chain: 'evm' | 'wasm'): Decimal {
  return fromScaled(raw, 10n ** BigInt(NATIVE_DECIMALS[chain]), 'native amount');
}
