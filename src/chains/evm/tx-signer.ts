/**
 * Local signing of EIP-1559 transactions. The private key lives only inside an ethers `SigningKey` held in a
 * private field: it is never a property of anything that could be logged or serialised, and a bad key is
 * reported without echoing it.
 */
import { SigningKey, Transaction, computeAddress, encodeRlp, keccak256, toBeHex } from 'ethers';
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

  /**
   * The EIP-1559 envelope `0x02 || rlp([chainId, nonce, tip, maxFee, gas, to, value, data, accessList, yParity,
   * r, s])`, encoded here rather than through an ethers `Transaction` (whose setters check and re-encode each
   * field, and which serialises twice): the bytes are the same as ethers' (a test signs both ways), in about
   * half the time, and a wallet signs every order it sends.
   */
  sign(payload: TxPayload, nonce: bigint, fees: Fees): SignedTx {
    const fields = [
      rlpInteger(this.#chainId),
      rlpInteger(nonce),
      rlpInteger(fees.maxPriorityFeePerGas),
      rlpInteger(fees.maxFeePerGas),
      rlpInteger(payload.gasLimit),
      payload.to,
      rlpInteger(payload.value),
      payload.data,
      [],
    ];
    const signature = this.#key.sign(keccak256(typed(encodeRlp(fields))));
    const raw = typed(
      encodeRlp([...fields, rlpInteger(BigInt(signature.yParity)), rlpWord(signature.r), rlpWord(signature.s)]),
    );
    return { hash: keccak256(raw), raw, nonce, fees, payload };
  }

  toJSON(): Record<string, string> {
    return { address: this.address };
  }
}

/** An integer as RLP wants it: big-endian, no leading zero byte, zero as the empty string. */
function rlpInteger(value: bigint): string {
  return value === 0n ? '0x' : toBeHex(value);
}

/** A 32-byte signature word as an RLP integer. */
function rlpWord(word: string): string {
  return rlpInteger(BigInt(word));
}

/** The type byte of an EIP-1559 transaction before its RLP payload. */
function typed(rlp: string): string {
  return `0x02${rlp.slice(2)}`;
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
