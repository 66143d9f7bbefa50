/**
 * ScVal values in the SDK's plain "wire" form (no class instances: decoding events stays cheap), read
 * defensively. Every reader throws `Malformed` on a value of the wrong shape; callers that handle chain data
 * catch it, count it and skip the item. Integer readers accept any integer type (u32..u256, i32..i256) with
 * a non-negative value, because event and config layouts may differ between order book versions.
 */
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { BoundedMemo } from '../../core/bounded-memo.ts';

export type ScVal = xdr.ScValWire;

/** A value that does not have the shape the reader needs. */
export class Malformed extends Error {
  override readonly name = 'Malformed';
}

const MASK64 = (1n << 64n) - 1n;

export function decodeScVal(b64: unknown): ScVal {
  if (typeof b64 !== 'string') throw new Malformed('ScVal is not a base64 string');
  try {
    return xdr.ScVal.schema.decode(Buffer.from(b64, 'base64'));
  } catch (e) {
    throw new Malformed(`ScVal does not decode: ${(e as Error).message}`);
  }
}

export function encodeScVal(v: ScVal): string {
  return Buffer.from(xdr.ScVal.schema.encode(v)).toString('base64');
}

/** An integer of any ScVal integer type, as a bigint (negative values are kept; callers check ranges). */
export function integer(v: ScVal | undefined, what: string): bigint {
  switch (v?.type) {
    case 3:
      return BigInt(v.u32);
    case 4:
      return BigInt(v.i32);
    case 5:
      return v.u64;
    case 6:
      return v.i64;
    case 9:
      return (v.u128.hi << 64n) | v.u128.lo;
    case 10:
      return (v.i128.hi << 64n) | v.i128.lo;
    case 11:
      return (v.u256.hiHi << 192n) | (v.u256.hiLo << 128n) | (v.u256.loHi << 64n) | v.u256.loLo;
    case 12:
      return (v.i256.hiHi << 192n) | (v.i256.hiLo << 128n) | (v.i256.loHi << 64n) | v.i256.loLo;
    default:
      throw new Malformed(`${what}: expected an integer, got ScVal type ${v?.type ?? 'none'}`);
  }
}

export function unsigned(v: ScVal | undefined, what: string, bits = 64): bigint {
  const n = integer(v, what);
  if (n < 0n || n >= 1n << BigInt(bits)) throw new Malformed(`${what}: ${n} is not a uint${bits}`);
  return n;
}

export function small(v: ScVal | undefined, what: string): number {
  return Number(unsigned(v, what, 32));
}

export function isInteger(v: ScVal | undefined): boolean {
  return v !== undefined && [3, 4, 5, 6, 9, 10, 11, 12].includes(v.type);
}

export function bytes(v: ScVal | undefined, what: string): Uint8Array {
  if (v?.type !== 13) throw new Malformed(`${what}: expected bytes, got ScVal type ${v?.type ?? 'none'}`);
  return v.bytes;
}

export function bool(v: ScVal | undefined, what: string): boolean {
  if (v?.type !== 0) throw new Malformed(`${what}: expected a bool, got ScVal type ${v?.type ?? 'none'}`);
  return v.b;
}

/** A symbol or a string. */
export function text(v: ScVal | undefined, what: string): string {
  if (v?.type === 15) return v.sym.toString();
  if (v?.type === 14) return v.str.toString();
  throw new Malformed(`${what}: expected a symbol or string, got ScVal type ${v?.type ?? 'none'}`);
}

export function vec(v: ScVal | undefined, what: string): ScVal[] {
  if (v?.type !== 16 || v.vec === null)
    throw new Malformed(`${what}: expected a vector, got ScVal type ${v?.type ?? 'none'}`);
  return v.vec;
}

/** A map with symbol or string keys (a Soroban struct), as a Map. */
export function fields(v: ScVal | undefined, what: string): Map<string, ScVal> {
  if (v?.type !== 17 || v.map === null)
    throw new Malformed(`${what}: expected a map, got ScVal type ${v?.type ?? 'none'}`);
  const out = new Map<string, ScVal>();
  for (const e of v.map) {
    if (e.key.type === 15) out.set(e.key.sym.toString(), e.val);
    else if (e.key.type === 14) out.set(e.key.str.toString(), e.val);
  }
  return out;
}

const strkeys = new BoundedMemo<string, string>(10_000);

function cachedKey(kind: 'G' | 'C', raw: Uint8Array): string {
  const k = `${kind}${Buffer.from(raw).toString('base64')}`;
  let s = strkeys.get(k);
  if (s === undefined) {
    s = kind === 'G' ? StrKey.encodeEd25519PublicKey(Buffer.from(raw)) : StrKey.encodeContract(Buffer.from(raw));
    strkeys.set(k, s);
  }
  return s;
}

/** An account (`G...`, the base account of a muxed one) or contract (`C...`) address. */
export function addressOf(a: xdr.ScAddressWire, what: string): string {
  if (a.type === 0 && a.accountId.type === 0) return cachedKey('G', a.accountId.ed25519);
  if (a.type === 1) return cachedKey('C', a.contractId);
  if (a.type === 2) return cachedKey('G', a.muxedAccount.ed25519);
  throw new Malformed(`${what}: address kind ${a.type} is not an account or contract`);
}

export function address(v: ScVal | undefined, what: string): string {
  if (v?.type !== 18) throw new Malformed(`${what}: expected an address, got ScVal type ${v?.type ?? 'none'}`);
  return addressOf(v.address, what);
}

export function scAddress(strkey: string): xdr.ScAddressWire {
  if (StrKey.isValidEd25519PublicKey(strkey))
    return { type: 0, accountId: { type: 0, ed25519: StrKey.decodeEd25519PublicKey(strkey) } };
  if (StrKey.isValidContract(strkey)) return { type: 1, contractId: StrKey.decodeContract(strkey) };
  throw new Malformed(`${strkey} is not an account or contract address`);
}

export const scv = {
  address: (strkey: string): ScVal => ({ type: 18, address: scAddress(strkey) }),
  sym: (s: string): ScVal => ({ type: 15, sym: new xdr.XdrString(s) }),
  u32: (u32: number): ScVal => ({ type: 3, u32 }),
  u64: (u64: bigint): ScVal => ({ type: 5, u64 }),
  i128: (v: bigint): ScVal => ({ type: 10, i128: { hi: BigInt.asIntN(64, v >> 64n), lo: v & MASK64 } }),
  bytes: (b: Uint8Array): ScVal => ({ type: 13, bytes: b }),
};
