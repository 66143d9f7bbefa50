/**
 * Building and signing one contract invocation: the transaction from its source account and sequence number
 * with an upper time bound, then, after simulation, the trading account's signature on its authorization
 * entries (address credentials, valid a few ledgers ahead; source-account credentials need none) and the
 * source's signature on the envelope. The hash is the envelope's under the network passphrase.
 */
import { Account, authorizeEntry, Contract, rpc, Transaction, TransactionBuilder, xdr, type Keypair } from '@stellar/stellar-sdk';
import { DltError } from '../../core/errors.ts';
import { addressOf } from './scval.ts';

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
  return new TransactionBuilder(new Account(i.source, i.sequence.toString()), { fee: String(i.feeStroops), networkPassphrase: i.passphrase })
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
  readonly tradingKey: Keypair;
  readonly sourceKey: Keypair;
  readonly authValidUntilLedger: number;
  readonly passphrase: string;
}

/** Signs the authorization entries that need the trading account, assembles and signs the envelope. */
export async function signInvocation(s: SignInput): Promise<SignedTx> {
  const wallet = s.tradingKey.publicKey();
  const signed = await Promise.all(
    s.auth.map(async (b64) => {
      const wire = xdr.SorobanAuthorizationEntry.schema.decode(Buffer.from(b64, 'base64'));
      const creds = wire.credentials;
      if (creds.type === 0) return b64;
      const who = addressOf(creds.type === 1 ? creds.address.address : (creds as { addressV2: xdr.SorobanAddressCredentialsWire }).addressV2.address, 'authorization entry');
      if (who !== wallet) {
        throw new DltError('E_VENUE_HOST_ERROR', `the call needs an authorization by ${who}, which this adapter does not hold a key for`, { details: { address: who } });
      }
      const entry = await authorizeEntry(xdr.SorobanAuthorizationEntry.fromXdr(b64, 'base64'), s.tradingKey, s.authValidUntilLedger, s.passphrase);
      return entry.toXdr('base64');
    }),
  );
  const [first, ...others] = Array.isArray(s.simulation.results) ? (s.simulation.results as Record<string, unknown>[]) : [];
  const simulation = { ...s.simulation, results: [{ ...first, auth: signed }, ...others] };
  const tx = rpc.assembleTransaction(s.raw, simulation as unknown as rpc.Api.RawSimulateTransactionResponse).build();
  tx.sign(s.sourceKey);
  return {
    envelope: tx.toXDR(),
    hash: Buffer.from(tx.hash()).toString('hex'),
    sequence: BigInt(tx.sequence),
    maxTime: BigInt(tx.timeBounds?.maxTime ?? '0'),
  };
}

/** Source, sequence number and upper time bound of a signed envelope (from the journal, after a restart). */
export function envelopeInfo(envelope: string, passphrase: string): { source: string; sequence: bigint; maxTime: bigint; hash: string } | null {
  try {
    const tx = new Transaction(envelope, passphrase);
    return { source: tx.source, sequence: BigInt(tx.sequence), maxTime: BigInt(tx.timeBounds?.maxTime ?? '0'), hash: Buffer.from(tx.hash()).toString('hex') };
  } catch {
    return null;
  }
}
