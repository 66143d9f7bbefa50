/**
 * ScVal values in their plain XDR object form (the SDK's "wire" shape), built and read without class
 * instances: the emulator's contracts speak ScVal on every call, so this stays cheap. Readers fail the call
 * the way the host does (`Error(Value, UnexpectedType)`) when an argument has the wrong type.
 */
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { hostFail } from './host-error.ts';
import { BoundedMemo } from '../../core/bounded-memo.ts';

export type ScVal = xdr.ScValWire;
export type ScAddress = xdr.ScAddressWire;

const MASK64 = (1n << 64n) - 1n;

export const scv = {
  void: (): ScVal => ({ type: 1 }),
  bool: (b: boolean): ScVal => ({ type: 0, b }),
  u32: (u32: number): ScVal => ({ type: 3, u32 }),
  u64: (u64: bigint): ScVal => ({ type: 5, u64 }),
  i64: (i64: bigint): ScVal => ({ type: 6, i64 }),
  u128: (v: bigint): ScVal => ({ type: 9, u128: { hi: v >> 64n, lo: v & MASK64 } }),
  i128: (v: bigint): ScVal => ({ type: 10, i128: { hi: BigInt.asIntN(64, v >> 64n), lo: v & MASK64 } }),
  u256: (v: bigint): ScVal => ({
    type: 11,
    u256: { hiHi: (v >> 192n) & MASK64, hiLo: (v >> 128n) & MASK64, loHi: (v >> 64n) & MASK64, loLo: v & MASK64 },
  }),
  bytes: (b: Uint8Array): ScVal => ({ type: 13, bytes: b }),
  str: (s: string): ScVal => ({ type: 14, str: new xdr.XdrString(s) }),
  sym: (s: string): ScVal => ({ type: 15, sym: new xdr.XdrString(s) }),
  vec: (vec: ScVal[]): ScVal => ({ type: 16, vec }),
  /** A map with symbol keys in sorted order, as a Soroban struct is encoded. */
  struct: (fields: Record<string, ScVal>): ScVal => ({
    type: 17,
    map: Object.keys(fields)
      .toSorted()
      .map((k) => ({ key: scv.sym(k), val: fields[k] as ScVal })),
  }),
  address: (strkey: string): ScVal => ({ type: 18, address: toScAddress(strkey) }),
};

const addressCache = new BoundedMemo<string, ScAddress>(100_000);

/** A G... account or C... contract strkey as an ScAddress. */
export function toScAddress(strkey: string): ScAddress {
  let a = addressCache.get(strkey);
  if (a === undefined) {
    if (StrKey.isValidEd25519PublicKey(strkey))
      a = { type: 0, accountId: { type: 0, ed25519: StrKey.decodeEd25519PublicKey(strkey) } };
    else if (StrKey.isValidContract(strkey)) a = { type: 1, contractId: StrKey.decodeContract(strkey) };
    else throw hostFail('value', 'invalidInput', `not an account or contract address: ${strkey}`);
    addressCache.set(strkey, a);
  }
  return a;
}

export function fromScAddress(a: ScAddress): string {
  if (a.type === 0) return StrKey.encodeEd25519PublicKey(a.accountId.ed25519);
  if (a.type === 1) return StrKey.encodeContract(a.contractId);
  throw hostFail('value', 'unexpectedType', `address kind ${a.type} is not supported here`);
}

function wrong(v: ScVal, want: string, what: string): never {
  throw hostFail('value', 'unexpectedType', `${what}: expected ${want}, got ScVal type ${v.type}`);
}

export const read = {
  address(v: ScVal | undefined, what: string): string {
    if (v?.type !== 18) return wrong(v ?? { type: 1 }, 'address', what);
    return fromScAddress(v.address);
  },
  bytes(v: ScVal | undefined, what: string): Uint8Array {
    if (v?.type !== 13) return wrong(v ?? { type: 1 }, 'bytes', what);
    return v.bytes;
  },
  u64(v: ScVal | undefined, what: string): bigint {
    if (v?.type !== 5) return wrong(v ?? { type: 1 }, 'u64', what);
    return v.u64;
  },
  u32(v: ScVal | undefined, what: string): number {
    if (v?.type !== 3) return wrong(v ?? { type: 1 }, 'u32', what);
    return v.u32;
  },
  i128(v: ScVal | undefined, what: string): bigint {
    if (v?.type !== 10) return wrong(v ?? { type: 1 }, 'i128', what);
    return (v.i128.hi << 64n) | v.i128.lo;
  },
  bool(v: ScVal | undefined, what: string): boolean {
    if (v?.type !== 0) return wrong(v ?? { type: 1 }, 'bool', what);
    return v.b;
  },
  symbol(v: ScVal | undefined, what: string): string {
    if (v?.type !== 15) return wrong(v ?? { type: 1 }, 'symbol', what);
    return v.sym.toString();
  },
};

/** Reads an unsigned 128-bit value. */
export function u128Of(v: ScVal): bigint {
  if (v.type !== 9) return wrong(v, 'u128', 'value');
  return (v.u128.hi << 64n) | v.u128.lo;
}

export function u256Of(v: ScVal): bigint {
  if (v.type !== 11) return wrong(v, 'u256', 'value');
  const p = v.u256;
  return (p.hiHi << 192n) | (p.hiLo << 128n) | (p.loHi << 64n) | p.loLo;
}

export function encodeScVal(v: ScVal): Uint8Array {
  return xdr.ScVal.schema.encode(v);
}

export function scValBase64(v: ScVal): string {
  return Buffer.from(encodeScVal(v)).toString('base64');
}

/** Exact argument count, as the host checks it against the contract's function signature. */
export function arity(args: readonly ScVal[], n: number, fn: string): void {
  if (args.length !== n) throw hostFail('value', 'unexpectedSize', `${fn} takes ${n} arguments, got ${args.length}`);
}
