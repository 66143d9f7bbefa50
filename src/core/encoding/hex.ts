/** Hex and 32-byte word helpers shared by both chains' encodings. */
import { DltError } from '../errors.ts';

export const WORD_BYTES = 32;

/** Parses hex (optional `0x`); an odd length or a non-hex character is an error. */
export function hexToBytes(hex: string, what: string): Uint8Array {
  const body = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (!/^[0-9a-fA-F]*$/.test(body)) {
    throw new DltError('E_ENCODING_HEX', `${what}: contains characters that are not hex digits`, {
      details: { what, hex },
    });
  }
  if (body.length % 2 !== 0) {
    throw new DltError('E_ENCODING_HEX', `${what}: odd number of hex characters (${body.length})`, {
      details: { what, length: body.length },
    });
  }
  const out = new Uint8Array(body.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(body.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function bytesToHex(bytes: Uint8Array, prefix: '' | '0x' = '0x'): string {
  let s = prefix;
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

/** An unsigned integer as one big-endian 32-byte word. */
export function uintToWord(value: bigint): Uint8Array {
  return uintToBytes(value, WORD_BYTES);
}

export function uintToBytes(value: bigint, length: number): Uint8Array {
  if (value < 0n || value >= 1n << BigInt(8 * length)) throw new RangeError(`${value} does not fit in ${length} bytes`);
  const out = new Uint8Array(length);
  let v = value;
  for (let i = length - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

export function bytesToUint(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Splits bytes into complete 32-byte words read as unsigned integers. */
export function readWords(bytes: Uint8Array): bigint[] {
  const words: bigint[] = [];
  for (let at = 0; at < bytes.length; at += WORD_BYTES) words.push(bytesToUint(bytes.subarray(at, at + WORD_BYTES)));
  return words;
}
