/**
 * Local signing of EIP-1559 transactions. The private key lives only inside an ethers `SigningKey` held in a
 * private field: it is never a property of anything that could be logged or serialised, and a bad key is
 * reported without echoing it.
 */
import { SigningKey, Transaction, computeAddress, keccak256 } from 'ethers';
import { DltError } from '../../core/errors.ts';
import type { Fees } from './fee-oracle.ts';

export interface TxPayload {
  readonly to: string;
  readonly data: string;
  readonly value: bigint;
  readonly gasLimit: bigint;
}

export interface SignedTx {
  readonly hash: string;
  /** The serialised signed transaction, as broadcast and as journaled. */
  readonly raw: string;
  readonly nonce: bigint;
  readonly fees: Fees;
  readonly payload: TxPayload;
}

export class TxSigner {
  readonly address: string;
  readonly #key: SigningKey;
  readonly #chainId: bigint;

  constructor(privateKey: string, chainId: bigint) {
    try {
      this.#key = new SigningKey(privateKey);
    } catch {
      throw new DltError('E_CONFIG_INVALID', 'the chain A private key is not a 32-byte hex key', {
        details: { what: 'privateKey' },
      });
    }
    this.address = computeAddress(this.#key.publicKey);
    this.#chainId = chainId;
  }

  sign(payload: TxPayload, nonce: bigint, fees: Fees): SignedTx {
    const tx = Transaction.from({
      type: 2,
      chainId: this.#chainId,
      nonce: Number(nonce),
      to: payload.to,
      data: payload.data,
      value: payload.value,
      gasLimit: payload.gasLimit,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    tx.signature = this.#key.sign(tx.unsignedHash);
    // The hash of the serialised form, computed once (ethers' `hash` would serialise again).
    const raw = tx.serialized;
    return { hash: keccak256(raw), raw, nonce, fees, payload };
  }

  toJSON(): Record<string, string> {
    return { address: this.address };
  }
}

/** A journaled raw transaction read back (restart): its nonce, payload and fees. */
export function decodeSigned(raw: string): SignedTx {
  const tx = Transaction.from(raw);
  if (tx.to === null || tx.hash === null) throw new Error('journaled transaction has no recipient or is unsigned');
  return {
    hash: tx.hash,
    raw,
    nonce: BigInt(tx.nonce),
    fees: {
      maxFeePerGas: tx.maxFeePerGas ?? tx.gasPrice ?? 0n,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0n,
    },
    payload: { to: tx.to, data: tx.data, value: tx.value, gasLimit: tx.gasLimit },
  };
}
