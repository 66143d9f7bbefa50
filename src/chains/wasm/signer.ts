/**
 * Ed25519 signing through node:crypto. The SDK signs in pure JavaScript and verifies every authorization
 * signature it makes (about 1 ms and 2 to 5 ms); the native signature takes some 50 µs, which keeps the
 * time from a command to its signed transaction short. The seed lives only inside a KeyObject, which
 * neither JSON nor a logger can print.
 */
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { StrKey, xdr, type Keypair } from '@stellar/stellar-sdk';

/** The DER prefix of a PKCS#8 Ed25519 private key; the 32-byte seed follows. */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

export class Ed25519Signer {
  readonly publicKey: string;
  readonly rawPublicKey: Uint8Array;
  /** The last four bytes of the public key, as a decorated signature names its signer. */
  readonly hint: Uint8Array;
  readonly #key: KeyObject;

  constructor(keypair: Keypair) {
    this.publicKey = keypair.publicKey();
    this.rawPublicKey = StrKey.decodeEd25519PublicKey(this.publicKey);
    this.hint = this.rawPublicKey.slice(-4);
    this.#key = createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519, keypair.rawSecretKey()]),
      format: 'der',
      type: 'pkcs8',
    });
  }

  sign(data: Uint8Array): Uint8Array {
    return new Uint8Array(sign(null, data, this.#key));
  }

  /** The transaction signature in the envelope's form. */
  decorated(txHash: Uint8Array): xdr.DecoratedSignature {
    return new xdr.DecoratedSignature({ hint: Buffer.from(this.hint), signature: Buffer.from(this.sign(txHash)) });
  }

  toJSON(): Record<string, string> {
    return { publicKey: this.publicKey };
  }
}
