/**
 * A submitted transaction envelope, decoded, and the checks the network makes before it accepts one into
 * its queue: operations present and well formed, fee (inclusion plus the declared resource fee, which must
 * cover the declared resources), time bounds against the current time, source account, sequence number
 * (exactly the account's plus one), signatures over the network-bound hash (every needed signer signed, no
 * extra signature), and a balance that covers the fee. A failure is the transaction result code.
 */
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { sha256, verifyEd25519 } from './crypto.ts';
import { BASE_FEE, resourceFeeFor } from './fees.ts';
import type { World } from './host.ts';

export const TX = {
  success: 0,
  failed: -1,
  tooEarly: -2,
  tooLate: -3,
  missingOperation: -4,
  badSeq: -5,
  badAuth: -6,
  insufficientBalance: -7,
  noAccount: -8,
  insufficientFee: -9,
  badAuthExtra: -10,
  notSupported: -12,
  malformed: -16,
  sorobanInvalid: -17,
} as const;
export type TxCode = (typeof TX)[keyof typeof TX];

export interface ParsedTx {
  readonly hash: string;
  readonly envelopeB64: string;
  readonly tx: xdr.TransactionWire;
  readonly signatures: readonly xdr.DecoratedSignatureWire[];
  readonly source: string;
  readonly seqNum: bigint;
  readonly fee: bigint;
  /** 0 = unbounded. */
  readonly minTime: bigint;
  readonly maxTime: bigint;
  readonly soroban: xdr.SorobanTransactionDataWire | null;
  readonly hashBytes: Uint8Array;
}

/** Thrown when the envelope cannot be decoded at all (the RPC answers `invalid_xdr`). */
export class UndecodableEnvelope extends Error {}

export function muxedToAccount(m: xdr.MuxedAccountWire): string {
  return StrKey.encodeEd25519PublicKey(m.type === 0 ? m.ed25519 : m.med25519.ed25519);
}

/** Decodes a v1 transaction envelope; fee-bump and legacy v0 envelopes come back as `notSupported`. */
export function parseEnvelope(b64: string, networkId: Uint8Array): ParsedTx | { readonly unsupported: string } {
  let env: xdr.TransactionEnvelopeWire;
  try {
    env = xdr.TransactionEnvelope.schema.decode(Buffer.from(b64, 'base64'));
  } catch (e) {
    throw new UndecodableEnvelope((e as Error).message);
  }
  if (env.type !== 2) {
    const payload: xdr.TransactionSignaturePayloadWire =
      env.type === 5
        ? { networkId, taggedTransaction: { type: 5, feeBump: env.feeBump.tx } }
        : { networkId, taggedTransaction: { type: 2, tx: v0ToV1(env.v0.tx) } };
    return { unsupported: Buffer.from(sha256(xdr.TransactionSignaturePayload.schema.encode(payload))).toString('hex') };
  }
  const tx = env.v1.tx;
  const hashBytes = sha256(
    xdr.TransactionSignaturePayload.schema.encode({ networkId, taggedTransaction: { type: 2, tx } }),
  );
  const bounds = tx.cond.type === 1 ? tx.cond.timeBounds : tx.cond.type === 2 ? tx.cond.v2.timeBounds : null;
  return {
    hash: Buffer.from(hashBytes).toString('hex'),
    hashBytes,
    envelopeB64: b64,
    tx,
    signatures: env.v1.signatures,
    source: muxedToAccount(tx.sourceAccount),
    seqNum: tx.seqNum,
    fee: BigInt(tx.fee),
    minTime: bounds?.minTime ?? 0n,
    maxTime: bounds?.maxTime ?? 0n,
    soroban: tx.ext.v === 1 ? tx.ext.sorobanData : null,
  };
}

function v0ToV1(tx: xdr.TransactionV0Wire): xdr.TransactionWire {
  return {
    sourceAccount: { type: 0, ed25519: tx.sourceAccountEd25519 },
    fee: tx.fee,
    seqNum: tx.seqNum,
    cond: tx.timeBounds === null ? { type: 0 } : { type: 1, timeBounds: tx.timeBounds },
    memo: tx.memo,
    operations: tx.operations,
    ext: { v: 0 },
  };
}

const SOROBAN_OPS = new Set([24, 25, 26]);

/** The fee the network charges for inclusion: base fee per operation plus the declared resource fee. */
export function minimumFee(p: ParsedTx): bigint {
  return BASE_FEE * BigInt(p.tx.operations.length) + (p.soroban?.resourceFee ?? 0n);
}

export function checkTransaction(p: ParsedTx, world: World, nowSeconds: bigint): TxCode | null {
  const ops = p.tx.operations;
  if (ops.length === 0) return TX.missingOperation;
  const sorobanOps = ops.filter((o) => SOROBAN_OPS.has(o.body.type)).length;
  if (sorobanOps > 0 && (ops.length !== 1 || p.soroban === null)) return TX.malformed;
  if (sorobanOps === 0 && p.soroban !== null) return TX.malformed;
  if (p.soroban !== null && p.soroban.resourceFee < resourceFeeFor(p.soroban.resources)) return TX.sorobanInvalid;
  if (p.fee < minimumFee(p)) return TX.insufficientFee;
  if (p.minTime > nowSeconds) return TX.tooEarly;
  if (p.maxTime !== 0n && p.maxTime < nowSeconds) return TX.tooLate;
  const account = world.accounts.get(p.source);
  if (account === undefined) return TX.noAccount;
  if (p.seqNum !== account.seqNum + 1n) return TX.badSeq;
  const signers = new Set([
    p.source,
    ...ops.flatMap((o) => (o.sourceAccount === null ? [] : [muxedToAccount(o.sourceAccount)])),
  ]);
  const signed = new Set<string>();
  let extra = false;
  for (const sig of p.signatures) {
    const by = [...signers].find((s) => {
      const key = StrKey.decodeEd25519PublicKey(s);
      return Buffer.compare(key.subarray(28), sig.hint) === 0 && verifyEd25519(key, p.hashBytes, sig.signature);
    });
    if (by === undefined) extra = true;
    else signed.add(by);
  }
  if (signed.size !== signers.size) return TX.badAuth;
  if (extra) return TX.badAuthExtra;
  if (account.balance < minimumFee(p)) return TX.insufficientBalance;
  return null;
}

/** The answer to a transaction refused before it is queued: ERROR with its TransactionResult. */
export function refused(
  hash: string,
  code: number,
  fee: bigint,
): { status: 'ERROR'; hash: string; errorResultXdr: string } {
  const result = { feeCharged: fee, result: { code }, ext: { v: 0 } } as xdr.TransactionResultWire;
  return {
    status: 'ERROR',
    hash,
    errorResultXdr: Buffer.from(xdr.TransactionResult.schema.encode(result)).toString('base64'),
  };
}

/** What a transaction bids for inclusion, per operation: its fee less the resource fee it declares. */
export function inclusionBid(parsed: ParsedTx): bigint {
  return (parsed.fee - (parsed.soroban?.resourceFee ?? 0n)) / BigInt(Math.max(1, parsed.tx.operations.length));
}
