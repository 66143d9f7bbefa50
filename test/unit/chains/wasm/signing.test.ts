/**
 * Native signatures, held byte for byte to what the SDK makes: an authorization entry signed as the SDK's
 * `authorizeEntry` signs it (both credential kinds), and an envelope signed as `Transaction.sign` signs it.
 * Ed25519 is deterministic, so equal bytes mean an equal, valid signature.
 */
import { authorizeEntry, Keypair, Networks, StrKey, Transaction, xdr } from '@stellar/stellar-sdk';
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

describe('envelopes', () => {
  it('signs the envelope as Transaction.sign does, under the network passphrase', () => {
    const raw = buildInvocation({
      source: channel.publicKey(),
      sequence: 41n,
      feeStroops: 100,
      passphrase,
      maxTime: 2_000_000_000,
      call: cancelCall(book, user.publicKey(), 'buy', 3n),
    });
    const data: xdr.SorobanTransactionDataWire = {
      ext: { v: 0 },
      resources: { footprint: { readOnly: [], readWrite: [] }, instructions: 1, diskReadBytes: 0, writeBytes: 0 },
      resourceFee: 500n,
    };
    const simulation = {
      transactionData: b64(xdr.SorobanTransactionData.schema.encode(data)),
      minResourceFee: '500',
      results: [{ auth: [unsignedEntry(1)], xdr: b64(xdr.ScVal.schema.encode({ type: 1 })) }],
      latestLedger: 10,
    };
    const signed = signInvocation({
      raw,
      simulation,
      auth: [unsignedEntry(1)],
      trading: new Ed25519Signer(user),
      source: new Ed25519Signer(channel),
      authValidUntilLedger: 22,
      passphrase,
    });
    const tx = new Transaction(signed.envelope, passphrase);
    expect([signed.hash, signed.sequence, signed.maxTime]).toEqual([
      Buffer.from(tx.hash()).toString('hex'),
      42n,
      2_000_000_000n,
    ]);
    const env = xdr.TransactionEnvelope.schema.decode(Buffer.from(signed.envelope, 'base64'));
    const [sig] = env.type === 2 ? env.v1.signatures : [];
    expect(Buffer.from(sig?.signature ?? []).equals(Buffer.from(channel.sign(tx.hash())))).toBe(true);
    expect(Buffer.from(sig?.hint ?? []).equals(Buffer.from(channel.signatureHint()))).toBe(true);
  });

  it('never shows the seed when serialised', () => {
    expect(JSON.stringify(new Ed25519Signer(user))).toBe(JSON.stringify({ publicKey: user.publicKey() }));
  });
});
