/**
 * Native signatures, held byte for byte to what the SDK makes: an authorization entry signed as the SDK's
 * `authorizeEntry` signs it (both credential kinds), and an envelope signed as `Transaction.sign` signs it.
 * Ed25519 is deterministic, so equal bytes mean an equal, valid signature.
 */
import {
  Account,
  authorizeEntry,
  Contract,
  Keypair,
  Networks,
  rpc,
  StrKey,
  Transaction,
  TransactionBuilder,
  xdr,
} from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { buildInvocation, signAuthEntry, signInvocation } from '../../../../src/chains/wasm/envelope.ts';
import { scv } from '../../../../src/chains/wasm/scval.ts';
import { Ed25519Signer } from '../../../../src/chains/wasm/signer.ts';
import { cancelCall } from '../../../../src/chains/wasm/calls.ts';

const user = Keypair.random();
const channel = Keypair.random();
const book = StrKey.encodeContract(Buffer.alloc(32, 5));
const passphrase = Networks.TESTNET;
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function unsignedEntry(kind: 1 | 2, address = user.publicKey()): string {
  const creds: xdr.SorobanAddressCredentialsWire = {
    address: { type: 0, accountId: { type: 0, ed25519: StrKey.decodeEd25519PublicKey(address) } },
    nonce: 8_675_309n,
    signatureExpirationLedger: 0,
    signature: { type: 1 },
  };
  const entry: xdr.SorobanAuthorizationEntryWire = {
    credentials: kind === 1 ? { type: 1, address: creds } : { type: 2, addressV2: creds },
    rootInvocation: {
      function: {
        type: 0,
        contractFn: {
          contractAddress: { type: 1, contractId: StrKey.decodeContract(book) },
          functionName: new xdr.XdrString('cancel_buy_order'),
          args: [scv.address(address), scv.u64(3n)],
        },
      },
      subInvocations: [],
    },
  };
  return b64(xdr.SorobanAuthorizationEntry.schema.encode(entry));
}

describe('authorization entries', () => {
  it('signs address credentials exactly as authorizeEntry does', async () => {
    for (const kind of [1, 2] as const) {
      const entry = unsignedEntry(kind);
      const sdk = (
        await authorizeEntry(xdr.SorobanAuthorizationEntry.fromXdr(entry, 'base64'), user, 4321, passphrase)
      ).toXdr('base64');
      expect(signAuthEntry(entry, new Ed25519Signer(user), 4321, passphrase)).toBe(sdk);
    }
  });

  it('leaves source-account credentials alone and refuses to sign for another address', () => {
    const source = b64(
      xdr.SorobanAuthorizationEntry.schema.encode({
        ...xdr.SorobanAuthorizationEntry.schema.decode(Buffer.from(unsignedEntry(1), 'base64')),
        credentials: { type: 0 },
      }),
    );
    expect(signAuthEntry(source, new Ed25519Signer(user), 1, passphrase)).toBe(source);
    expect(() =>
      signAuthEntry(unsignedEntry(1, Keypair.random().publicKey()), new Ed25519Signer(user), 1, passphrase),
    ).toThrow(/does not hold a key/);
  });
});

const buildInput = (sequence: bigint) => ({
  source: channel.publicKey(),
  sequence,
  feeStroops: 100,
  passphrase,
  maxTime: 2_000_000_000,
  call: cancelCall(book, user.publicKey(), 'buy', 3n),
});

function simulationOf(resourceFee: bigint, auth: string[]) {
  const data: xdr.SorobanTransactionDataWire = {
    ext: { v: 0 },
    resources: {
      footprint: {
        readOnly: [],
        readWrite: [{ type: 0, account: { accountId: { type: 0, ed25519: user.rawPublicKey() } } }],
      },
      instructions: 1_234_567,
      diskReadBytes: 2_048,
      writeBytes: 512,
    },
    resourceFee,
  };
  return {
    transactionData: b64(xdr.SorobanTransactionData.schema.encode(data)),
    minResourceFee: resourceFee.toString(),
    results: [{ auth, xdr: b64(xdr.ScVal.schema.encode({ type: 1 })) }],
    latestLedger: 10,
  };
}

describe('envelopes', () => {
  it('builds the invocation byte for byte as the SDK TransactionBuilder does', () => {
    const sdk = new TransactionBuilder(new Account(channel.publicKey(), '41'), {
      fee: '100',
      networkPassphrase: passphrase,
    })
      .addOperation(new Contract(book).call('cancel_buy_order', ...cancelCall(book, user.publicKey(), 'buy', 3n).args))
      .setTimebounds(0, 2_000_000_000)
      .build();
    expect(buildInvocation(buildInput(41n)).xdr).toBe(sdk.toXDR());
  });

  it('assembles and signs byte for byte as assembleTransaction and Transaction.sign, under the network passphrase', () => {
    for (const [kind, resourceFee] of [
      [1, 500n],
      [2, 987_654_321n],
    ] as const) {
      const raw = buildInvocation(buildInput(41n));
      const unsigned = [unsignedEntry(kind)];
      const simulation = simulationOf(resourceFee, unsigned);
      const signed = signInvocation({
        raw,
        simulation,
        auth: unsigned,
        trading: new Ed25519Signer(user),
        source: new Ed25519Signer(channel),
        authValidUntilLedger: 22,
        passphrase,
      });
      const auth = unsigned.map((e) => signAuthEntry(e, new Ed25519Signer(user), 22, passphrase));
      const sdk = rpc
        .assembleTransaction(new Transaction(raw.xdr, passphrase), {
          ...simulation,
          results: [{ ...simulation.results[0], auth }],
        } as unknown as rpc.Api.RawSimulateTransactionResponse)
        .build();
      sdk.sign(channel);
      expect(signed.envelope).toBe(sdk.toXDR());
      expect([signed.hash, signed.sequence, signed.maxTime]).toEqual([
        Buffer.from(sdk.hash()).toString('hex'),
        42n,
        2_000_000_000n,
      ]);
      expect(sdk.fee).toBe(String(100n + resourceFee));
    }
  });

  it('refuses a fee beyond what a transaction carries, and a simulation without transaction data', () => {
    const input = {
      raw: buildInvocation(buildInput(41n)),
      auth: [],
      trading: new Ed25519Signer(user),
      source: new Ed25519Signer(channel),
      authValidUntilLedger: 22,
      passphrase,
    };
    expect(() => signInvocation({ ...input, simulation: simulationOf(2n ** 32n - 100n, []) })).toThrow(/exceeds/);
    expect(() => signInvocation({ ...input, simulation: { ...simulationOf(1n, []), transactionData: '' } })).toThrow(
      /no transaction data/,
    );
  });

  it('never shows the seed when serialised', () => {
    expect(JSON.stringify(new Ed25519Signer(user))).toBe(JSON.stringify({ publicKey: user.publicKey() }));
  });
});
