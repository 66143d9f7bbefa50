/**
 * The emulated Soroban host: contracts written in TypeScript are invoked with ScVal arguments inside an
 * environment that carries the ledger, the authorization tracker, the emitted events, the footprint being
 * recorded (simulation only) and the undo journal. A contract calling another contract goes through
 * `invoke` too, so the callee sees its caller as the invoker, as `require_auth` needs.
 */
import { xdr } from '@stellar/stellar-sdk';
import { hostFail } from './host-error.ts';
import type { Journal } from './journal.ts';
import { toScAddress, type ScVal } from './scval.ts';

export interface AccountState {
  readonly id: string;
  /** Native balance in stroops. */
  balance: bigint;
  seqNum: bigint;
  lastModified: number;
}

/** A contract data entry as getLedgerEntries serves it. */
export interface DataEntry {
  readonly val: ScVal;
  readonly lastModified: number;
  readonly liveUntil: number;
}

export interface ContractImpl {
  /** C... strkey. */
  readonly address: string;
  /** What the contract instance entry names as its code. */
  readonly executable: xdr.ContractExecutableWire;
  call(env: Env, frame: Frame, fn: string, args: readonly ScVal[]): ScVal;
  /** The value stored under a contract data key, if the contract keeps one there. */
  dataEntry(key: ScVal, durability: 'persistent' | 'temporary', ledgerSeq: number): DataEntry | undefined;
}

export interface World {
  readonly passphrase: string;
  readonly networkId: Uint8Array;
  readonly contracts: Map<string, ContractImpl>;
  readonly accounts: Map<string, AccountState>;
  /** Consumed authorization nonces, `address:nonce`. */
  readonly nonces: Map<string, number>;
}

export interface Invocation {
  readonly contract: string;
  readonly fn: string;
  readonly args: readonly ScVal[];
}

export interface Frame extends Invocation {
  /** The contract that made this call, null for the transaction's own (root) call. */
  readonly invoker: string | null;
}

export interface AuthTracker {
  /** Checks (enforcing) or records (simulation) that `address` authorized `frame`; throws on failure. */
  require(env: Env, address: string, frame: Frame): void;
}

export interface EmittedEvent {
  readonly contract: string;
  readonly topics: ScVal[];
  readonly data: ScVal;
}

export type LedgerKey = xdr.LedgerKeyWire;

/** Ledger keys a call read or wrote, for the simulated footprint. */
export class Footprint {
  readonly keys = new Map<string, { key: LedgerKey; write: boolean }>();

  touch(key: LedgerKey, write: boolean): void {
    const id = Buffer.from(xdr.LedgerKey.schema.encode(key)).toString('base64');
    const had = this.keys.get(id);
    if (had === undefined) this.keys.set(id, { key, write });
    else if (write && !had.write) had.write = true;
  }

  split(): { readOnly: LedgerKey[]; readWrite: LedgerKey[] } {
    const entries = [...this.keys.entries()].toSorted((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, v]) => v);
    return {
      readOnly: entries.filter((e) => !e.write).map((e) => e.key),
      readWrite: entries.filter((e) => e.write).map((e) => e.key),
    };
  }
}

export interface Env {
  readonly world: World;
  /** The ledger the call executes in. */
  readonly ledgerSeq: number;
  /** Close time of that ledger, seconds. */
  readonly closeTime: bigint;
  /** The source account of the operation (authorizes itself). */
  readonly source: string;
  readonly journal: Journal;
  readonly auth: AuthTracker;
  readonly events: EmittedEvent[];
  readonly footprint: Footprint | null;
}

export function invoke(env: Env, invoker: string | null, contract: string, fn: string, args: readonly ScVal[]): ScVal {
  const impl = env.world.contracts.get(contract);
  if (impl === undefined) throw hostFail('storage', 'missingValue', `no contract ${contract}`);
  touchInstance(env, contract);
  return impl.call(env, { contract, fn, args, invoker }, fn, args);
}

/** `address.require_auth()` inside `frame`: a contract is authorized by being the direct invoker. */
export function requireAuth(env: Env, frame: Frame, address: string): void {
  if (address === frame.invoker) return;
  env.auth.require(env, address, frame);
}

export function emit(env: Env, contract: string, topics: ScVal[], data: ScVal): void {
  env.events.push({ contract, topics, data });
}

export function contractDataKey(contract: string, key: ScVal, durability: 'persistent' | 'temporary'): LedgerKey {
  return {
    type: 6,
    contractData: { contract: toScAddress(contract), key, durability: durability === 'persistent' ? 1 : 0 },
  };
}

export function touchData(
  env: Env,
  contract: string,
  key: ScVal,
  durability: 'persistent' | 'temporary',
  write: boolean,
): void {
  env.footprint?.touch(contractDataKey(contract, key, durability), write);
}

export function touchInstance(env: Env, contract: string): void {
  env.footprint?.touch(contractDataKey(contract, { type: 20 }, 'persistent'), false);
}
