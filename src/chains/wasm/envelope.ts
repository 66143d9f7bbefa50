/**
 * Building and signing one contract invocation: the transaction from its source account and sequence number
 * with an upper time bound, then, after simulation, the trading account's signature on its authorization
 * entries (address credentials, valid a few ledgers ahead; source-account credentials need none) and the
 * source's signature on the envelope. The hash is the envelope's under the network passphrase. Signatures
 * are made natively (`signer.ts`); a unit test holds them byte for byte to what the SDK makes.
 */
import { createHash } from 'node:crypto';
import { Account, Contract, rpc, Transaction, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
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

export function buildInvocation(i: BuildInput): Transaction {
  return new TransactionBuilder(new Account(i.source, i.sequence.toString()), {
    fee: String(i.feeStroops),
    networkPassphrase: i.passphrase,
  })
    .addOperation(new Contract(i.call.contract).call(i.call.fn, ...i.call.args))
    .setTimebounds(0, i.maxTime)
    .build();
}

export interface SignedTx {
  readonly envelope: string;
  readonly hash: string;
  readonly sequence: bigint;
  readonly maxTime: bigint;
}

export interface SignInput {
  readonly raw: Transaction;
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
  const creds = entry.credentials;
  if (creds.type === 0) return b64;
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
  const out: xdr.SorobanAuthorizationEntryWire = {
    ...entry,
    credentials: creds.type === 1 ? { type: 1, address: signed } : { type: 2, addressV2: signed },
  };
  return Buffer.from(xdr.SorobanAuthorizationEntry.schema.encode(out)).toString('base64');
}

/** Signs the authorization entries that need the trading account, assembles and signs the envelope. */
export function signInvocation(s: SignInput): SignedTx {
  const signed = s.auth.map((b64) => signAuthEntry(b64, s.trading, s.authValidUntilLedger, s.passphrase));
  const [first, ...others] = Array.isArray(s.simulation.results)
    ? (s.simulation.results as Record<string, unknown>[])
    : [];
  const simulation = { ...s.simulation, results: [{ ...first, auth: signed }, ...others] };
  const tx = rpc.assembleTransaction(s.raw, simulation as unknown as rpc.Api.RawSimulateTransactionResponse).build();
  const hash = tx.hash();
  tx.addDecoratedSignature(s.source.decorated(hash));
  return {
    envelope: tx.toXDR(),
    hash: Buffer.from(hash).toString('hex'),
    sequence: BigInt(tx.sequence),
    maxTime: BigInt(tx.timeBounds?.maxTime ?? '0'),
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
