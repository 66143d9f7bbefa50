/**
 * Building and signing one contract invocation: the transaction from its source account and sequence number
 * with an upper time bound, then, after simulation, the trading account's signature on its authorization
 * entries (address credentials, valid a few ledgers ahead; source-account credentials need none) and the
 * source's signature on the envelope. The hash is the envelope's under the network passphrase. Signatures
 * are made natively (`signer.ts`); a unit test holds them byte for byte to what the SDK makes.
 */
import { createHash } from 'node:crypto';
import { StrKey, Transaction, xdr } from '@stellar/stellar-sdk';
import { DltError } from '../../core/errors.ts';
import { addressOf } from './scval.ts';
import type { Ed25519Signer } from './signer.ts';

export interface Invocation {
  readonly contract: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
}

export interface BuildInput {
  readonly source: string;
  /** The source account's current sequence number; the transaction uses the next one. */
  readonly sequence: bigint;
  readonly feeStroops: number;
  readonly passphrase: string;
  /** Upper time bound, unix seconds. */
  readonly maxTime: number;
  readonly call: Invocation;
}

/** An invocation before simulation: its transaction, and the envelope the node simulates (base64 XDR). */
export interface UnsignedInvocation {
  readonly tx: xdr.TransactionWire;
  readonly xdr: string;
}

/**
 * The transaction as the SDK's `TransactionBuilder` builds it (one `invokeContract` operation, no memo, time
 * bounds `[0, maxTime]`, the next sequence number), made as XDR values directly: a test holds the bytes to
 * the builder's.
 */
export function buildInvocation(i: BuildInput): UnsignedInvocation {
  const tx: xdr.TransactionWire = {
    sourceAccount: { type: 0, ed25519: StrKey.decodeEd25519PublicKey(i.source) },
    fee: i.feeStroops,
    seqNum: i.sequence + 1n,
    cond: { type: 1, timeBounds: { minTime: 0n, maxTime: BigInt(i.maxTime) } },
    memo: { type: 0 },
    operations: [
      {
        sourceAccount: null,
        body: {
          type: 24,
          invokeHostFunctionOp: {
            hostFunction: {
              type: 0,
              invokeContract: {
                contractAddress: { type: 1, contractId: StrKey.decodeContract(i.call.contract) },
                functionName: new xdr.XdrString(i.call.fn),
                args: i.call.args.map((a) => a.toXdrObject()),
              },
            },
            auth: [],
          },
        },
      },
    ],
    ext: { v: 0 },
  };
  return { tx, xdr: envelopeXdr(tx, []) };
}

function envelopeXdr(tx: xdr.TransactionWire, signatures: xdr.DecoratedSignatureWire[]): string {
  return Buffer.from(xdr.TransactionEnvelope.schema.encode({ type: 2, v1: { tx, signatures } })).toString('base64');
}

export interface SignedTx {
  readonly envelope: string;
  readonly hash: string;
  readonly sequence: bigint;
  readonly maxTime: bigint;
}

export interface SignInput {
  readonly raw: UnsignedInvocation;
  /** The successful simulation reply, as received. */
  readonly simulation: Record<string, unknown>;
  readonly auth: readonly string[];
  readonly trading: Ed25519Signer;
  readonly source: Ed25519Signer;
  readonly authValidUntilLedger: number;
  readonly passphrase: string;
}

const networkIds = new Map<string, Uint8Array>();

function networkIdOf(passphrase: string): Uint8Array {
  let id = networkIds.get(passphrase);
  if (id === undefined) {
    id = new Uint8Array(createHash('sha256').update(passphrase).digest());
    networkIds.set(passphrase, id);
  }
  return id;
}

/**
 * Signs one authorization entry of the trading account, as the host verifies it: the preimage binds the
 * network, the nonce, the expiry ledger and the invocation (and the address, for the newer credentials);
 * the signature is the account contract's vector of `{public_key, signature}`.
 */
export function signAuthEntry(
  b64: string,
  signer: Ed25519Signer,
  validUntilLedger: number,
  passphrase: string,
): string {
  const entry = xdr.SorobanAuthorizationEntry.schema.decode(Buffer.from(b64, 'base64'));
  if (entry.credentials.type === 0) return b64;
  return Buffer.from(
    xdr.SorobanAuthorizationEntry.schema.encode(signedAuthEntry(entry, signer, validUntilLedger, passphrase)),
  ).toString('base64');
}

/** `signAuthEntry` on the decoded entry: the entry as it goes on the operation. */
function signedAuthEntry(
  entry: xdr.SorobanAuthorizationEntryWire,
  signer: Ed25519Signer,
  validUntilLedger: number,
  passphrase: string,
): xdr.SorobanAuthorizationEntryWire {
  const creds = entry.credentials;
  if (creds.type === 0) return entry;
  if (creds.type !== 1 && creds.type !== 2)
    throw new DltError('E_VENUE_HOST_ERROR', `authorization credentials of kind ${creds.type} are not supported`);
  const address = creds.type === 1 ? creds.address : creds.addressV2;
  const who = addressOf(address.address, 'authorization entry');
  if (who !== signer.publicKey) {
    throw new DltError(
      'E_VENUE_HOST_ERROR',
      `the call needs an authorization by ${who}, which this adapter does not hold a key for`,
      { details: { address: who } },
    );
  }
  const networkId = networkIdOf(passphrase);
  const preimage: xdr.HashIdPreimageWire =
    creds.type === 1
      ? {
          type: 9,
          sorobanAuthorization: {
            networkId,
            nonce: address.nonce,
            signatureExpirationLedger: validUntilLedger,
            invocation: entry.rootInvocation,
          },
        }
      : {
          type: 10,
          sorobanAuthorizationWithAddress: {
            networkId,
            nonce: address.nonce,
            signatureExpirationLedger: validUntilLedger,
            address: address.address,
            invocation: entry.rootInvocation,
          },
        };
  const payload = createHash('sha256').update(xdr.HashIdPreimage.schema.encode(preimage)).digest();
  const signature: xdr.ScValWire = {
    type: 16,
    vec: [
      {
        type: 17,
        map: [
          { key: { type: 15, sym: new xdr.XdrString('public_key') }, val: { type: 13, bytes: signer.rawPublicKey } },
          { key: { type: 15, sym: new xdr.XdrString('signature') }, val: { type: 13, bytes: signer.sign(payload) } },
        ],
      },
    ],
  };
  const signed: xdr.SorobanAddressCredentialsWire = {
    ...address,
    signatureExpirationLedger: validUntilLedger,
    signature,
  };
  return {
    ...entry,
    credentials: creds.type === 1 ? { type: 1, address: signed } : { type: 2, addressV2: signed },
  };
}

/** The largest fee a transaction can carry (a uint32 of stroops). */
const MAX_FEE = 0xffff_ffffn;

/**
 * Signs the authorization entries that need the trading account, assembles the transaction from the simulation
 * as the SDK's `assembleTransaction` does (its resources and their fee added to the inclusion fee, the signed
 * entries on the operation) and signs the envelope, each encoded once: a test holds the bytes to the SDK's.
 */
export function signInvocation(s: SignInput): SignedTx {
  const auth = s.auth.map((b64) =>
    signedAuthEntry(
      xdr.SorobanAuthorizationEntry.schema.decode(Buffer.from(b64, 'base64')),
      s.trading,
      s.authValidUntilLedger,
      s.passphrase,
    ),
  );
  const data = s.simulation.transactionData;
  if (typeof data !== 'string' || data === '')
    throw new DltError('E_CHAIN_RPC', 'the simulation gave no transaction data', { details: { kind: 'shape' } });
  const sorobanData = xdr.SorobanTransactionData.schema.decode(Buffer.from(data, 'base64'));
  const raw = s.raw.tx;
  const fee = BigInt(raw.fee) + sorobanData.resourceFee;
  if (fee > MAX_FEE)
    throw new DltError(
      'E_CHAIN_RPC',
      `the transaction's fee ${fee} stroops exceeds the largest a transaction carries`,
      {
        details: { kind: 'shape', fee: fee.toString() },
      },
    );
  const [op] = raw.operations;
  if (op?.body.type !== 24) throw new Error('an invocation carries one invokeHostFunction operation');
  const tx: xdr.TransactionWire = {
    ...raw,
    fee: Number(fee),
    operations: [{ ...op, body: { type: 24, invokeHostFunctionOp: { ...op.body.invokeHostFunctionOp, auth } } }],
    ext: { v: 1, sorobanData },
  };
  const payload = xdr.TransactionSignaturePayload.schema.encode({
    networkId: networkIdOf(s.passphrase),
    taggedTransaction: { type: 2, tx },
  });
  const hash = createHash('sha256').update(payload).digest();
  return {
    envelope: envelopeXdr(tx, [{ hint: s.source.hint, signature: s.source.sign(hash) }]),
    hash: hash.toString('hex'),
    sequence: tx.seqNum,
    maxTime: tx.cond.type === 1 ? tx.cond.timeBounds.maxTime : 0n,
  };
}

/** Source, sequence number and upper time bound of a signed envelope (from the journal, after a restart). */
export function envelopeInfo(
  envelope: string,
  passphrase: string,
): { source: string; sequence: bigint; maxTime: bigint; hash: string } | null {
  try {
    const tx = new Transaction(envelope, passphrase);
    return {
      source: tx.source,
      sequence: BigInt(tx.sequence),
      maxTime: BigInt(tx.timeBounds?.maxTime ?? '0'),
      hash: Buffer.from(tx.hash()).toString('hex'),
    };
  } catch {
    return null;
  }
}
