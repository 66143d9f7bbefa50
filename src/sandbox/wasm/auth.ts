/**
 * Authorization, as the Soroban host does it. Simulation records who must authorize what and returns the
 * entries to sign (the source account's as source-account credentials, anyone else's as address credentials
 * with a fresh nonce); a transaction is applied enforcing its entries: matching invocation, unexpired
 * signature, unused nonce, and a real ed25519 signature by the account's key over the authorization preimage.
 */
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { bytesEqual, sha256, verifyEd25519 } from './crypto.ts';
import { hostFail } from './host-error.ts';
import type { AuthTracker, Env, Frame } from './host.ts';
import { fromScAddress, toScAddress, type ScVal } from './scval.ts';

export type AuthEntry = xdr.SorobanAuthorizationEntryWire;
type AddressCredentials = xdr.SorobanAddressCredentialsWire;

/** The operator's own control path (the emulator's TypeScript API): every address counts as authorized. */
export const TRUSTED: AuthTracker = { require: () => undefined };

function functionOf(frame: Frame): xdr.SorobanAuthorizedFunctionWire {
  return {
    type: 0,
    contractFn: {
      contractAddress: toScAddress(frame.contract),
      functionName: new xdr.XdrString(frame.fn),
      args: [...frame.args],
    },
  };
}

function nonceKey(address: string, nonce: bigint): xdr.LedgerKeyWire {
  return {
    type: 6,
    contractData: { contract: toScAddress(address), key: { type: 21, nonceKey: { nonce } }, durability: 0 },
  };
}

export class RecordingAuth implements AuthTracker {
  private readonly recorded: Array<{ address: string; frame: Frame; nonce: bigint | null }> = [];
  private readonly randomNonce: () => bigint;

  constructor(randomNonce: () => bigint) {
    this.randomNonce = randomNonce;
  }

  require(env: Env, address: string, frame: Frame): void {
    if (StrKey.isValidContract(address))
      throw hostFail('auth', 'invalidAction', `contract ${address} did not invoke ${frame.fn}`);
    if (this.recorded.some((r) => r.address === address && r.frame === frame)) return;
    const nonce = address === env.source ? null : this.randomNonce();
    this.recorded.push({ address, frame, nonce });
    if (nonce !== null) {
      env.footprint?.touch(nonceKey(address, nonce), true);
      env.footprint?.touch(
        { type: 0, account: { accountId: { type: 0, ed25519: StrKey.decodeEd25519PublicKey(address) } } },
        false,
      );
    }
  }

  entries(): AuthEntry[] {
    return this.recorded.map(({ address, frame, nonce }) => ({
      credentials:
        nonce === null
          ? { type: 0 }
          : {
              type: 1,
              address: { address: toScAddress(address), nonce, signatureExpirationLedger: 0, signature: { type: 1 } },
            },
      rootInvocation: { function: functionOf(frame), subInvocations: [] },
    }));
  }
}

function addressCredentials(c: xdr.SorobanCredentialsWire): AddressCredentials | null {
  if (c.type === 1) return c.address;
  if (c.type === 2) return c.addressV2;
  return null;
}

export class EnforcingAuth implements AuthTracker {
  private readonly entries: readonly AuthEntry[];
  private readonly used = new Set<number>();

  constructor(entries: readonly AuthEntry[]) {
    this.entries = entries;
  }

  require(env: Env, address: string, frame: Frame): void {
    if (StrKey.isValidContract(address))
      throw hostFail('auth', 'invalidAction', `contract ${address} did not invoke ${frame.fn}`);
    const want = xdr.SorobanAuthorizedFunction.schema.encode(functionOf(frame));
    for (const [i, entry] of this.entries.entries()) {
      if (this.used.has(i)) continue;
      const creds = addressCredentials(entry.credentials);
      if (
        entry.credentials.type === 0
          ? address !== env.source
          : creds === null || fromScAddress(creds.address) !== address
      )
        continue;
      if (!bytesEqual(xdr.SorobanAuthorizedFunction.schema.encode(entry.rootInvocation.function), want)) continue;
      if (creds !== null) verifyAddressEntry(env, address, entry, creds);
      this.used.add(i);
      return;
    }
    throw hostFail('auth', 'invalidAction', `no authorization entry of ${address} for ${frame.fn}`);
  }
}

function verifyAddressEntry(env: Env, address: string, entry: AuthEntry, creds: AddressCredentials): void {
  if (env.ledgerSeq > creds.signatureExpirationLedger) {
    throw hostFail(
      'auth',
      'invalidAction',
      `signature of ${address} expired at ledger ${creds.signatureExpirationLedger}`,
    );
  }
  const used = `${address}:${creds.nonce}`;
  if (env.world.nonces.has(used))
    throw hostFail('auth', 'existingValue', `nonce ${creds.nonce} of ${address} was already used`);
  const account = env.world.accounts.get(address);
  if (account === undefined) throw hostFail('auth', 'invalidAction', `account ${address} does not exist`);
  const preimage: xdr.HashIdPreimageWire =
    entry.credentials.type === 2
      ? {
          type: 10,
          sorobanAuthorizationWithAddress: {
            networkId: env.world.networkId,
            nonce: creds.nonce,
            signatureExpirationLedger: creds.signatureExpirationLedger,
            address: creds.address,
            invocation: entry.rootInvocation,
          },
        }
      : {
          type: 9,
          sorobanAuthorization: {
            networkId: env.world.networkId,
            nonce: creds.nonce,
            signatureExpirationLedger: creds.signatureExpirationLedger,
            invocation: entry.rootInvocation,
          },
        };
  const payload = sha256(xdr.HashIdPreimage.schema.encode(preimage));
  const master = StrKey.decodeEd25519PublicKey(address);
  const signatures = signaturesOf(creds.signature);
  if (
    signatures.length === 0 ||
    !signatures.every((s) => bytesEqual(s.publicKey, master) && verifyEd25519(s.publicKey, payload, s.signature))
  ) {
    throw hostFail('auth', 'invalidAction', `signature of ${address} does not verify`);
  }
  env.journal.set(env.world.nonces, used, creds.signatureExpirationLedger);
}

/** The account contract's signature format: a vector of `{public_key, signature}` maps. */
function signaturesOf(sig: ScVal): Array<{ publicKey: Uint8Array; signature: Uint8Array }> {
  if (sig.type !== 16 || sig.vec === null) return [];
  const out: Array<{ publicKey: Uint8Array; signature: Uint8Array }> = [];
  for (const item of sig.vec) {
    if (item.type !== 17 || item.map === null) return [];
    let publicKey: Uint8Array | null = null;
    let signature: Uint8Array | null = null;
    for (const { key, val } of item.map) {
      if (key.type !== 15 || val.type !== 13) return [];
      if (key.sym.toString() === 'public_key') publicKey = val.bytes;
      else if (key.sym.toString() === 'signature') signature = val.bytes;
    }
    if (publicKey === null || signature === null) return [];
    out.push({ publicKey, signature });
  }
  return out;
}
