/** Hashing and ed25519 verification on Node's native crypto (the emulator checks every signature it is sent). */
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { BoundedMemo } from '../../core/bounded-memo.ts';

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const keys = new BoundedMemo<string, KeyObject>(100_000);

export function sha256(data: Uint8Array): Uint8Array {
  return createHash('sha256').update(data).digest();
}

export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  const id = Buffer.from(publicKey).toString('hex');
  let key = keys.get(id);
  if (key === undefined) {
    key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]), format: 'der', type: 'spki' });
    keys.set(id, key);
  }
  return verify(null, message, key, signature);
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}
