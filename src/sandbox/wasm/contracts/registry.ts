/**
 * The venue's client registry: one record per participant address with the specification's flags
 * (`can_buy`, `can_cancel`, `can_sell`, `can_transfer`, `client`, `id`, `is_market_maker`, a struct, so a map with
 * sorted symbol keys). Only the admin may write it (`#4001` otherwise); an unknown client is `#6`.
 */
import { DltError } from '../../../core/errors.ts';
import type { ClientInfo } from '../../matching/types.ts';
import { hostFail } from '../host-error.ts';
import { requireAuth, touchData, type ContractImpl, type DataEntry, type Env, type Frame } from '../host.ts';
import { arity, read, scv, type ScVal } from '../scval.ts';
import type { xdr } from '@stellar/stellar-sdk';

export interface ClientRecord extends ClientInfo {
  readonly id: bigint;
  readonly canTransfer: boolean;
}

interface Stored extends ClientRecord {
  readonly lastModified: number;
}

export function clientKey(client: string): ScVal {
  return scv.vec([scv.sym('Client'), scv.address(client)]);
}

export function clientStruct(client: string, r: ClientRecord): ScVal {
  return scv.struct({
    can_buy: scv.bool(r.canBuy),
    can_cancel: scv.bool(r.canCancel),
    can_sell: scv.bool(r.canSell),
    can_transfer: scv.bool(r.canTransfer),
    client: scv.address(client),
    id: scv.u64(r.id),
    is_market_maker: scv.bool(r.isMarketMaker),
  });
}

function fieldsOf(v: ScVal | undefined, what: string): Map<string, ScVal> {
  if (v?.type !== 17 || v.map === null) throw hostFail('value', 'unexpectedType', `${what}: expected a ClientInfo map`);
  return new Map(v.map.map((e) => [e.key.type === 15 ? e.key.sym.toString() : '', e.val]));
}

export class RegistryContract implements ContractImpl {
  readonly address: string;
  readonly admin: string;
  readonly executable: xdr.ContractExecutableWire;
  readonly clients = new Map<string, Stored>();

  constructor(address: string, admin: string, wasmHash: Uint8Array) {
    this.address = address;
    this.admin = admin;
    this.executable = { type: 0, wasmHash };
  }

  /** The order book's view of a participant; undefined when not registered. */
  lookup(env: Env, client: string): ClientRecord | undefined {
    touchData(env, this.address, clientKey(client), 'persistent', false);
    return this.clients.get(client);
  }

  call(env: Env, frame: Frame, fn: string, args: readonly ScVal[]): ScVal {
    switch (fn) {
      case 'get_client': {
        arity(args, 1, fn);
        const client = read.address(args[0], 'client');
        const r = this.lookup(env, client);
        if (r === undefined) throw new DltError('E_VENUE_CLIENT_NOT_FOUND', `${client} is not a registered client`);
        return clientStruct(client, r);
      }
      case 'set_client': {
        arity(args, 2, fn);
        this.operator(env, frame, read.address(args[0], 'caller'));
        const f = fieldsOf(args[1], 'info');
        const client = read.address(f.get('client'), 'client');
        this.set(env, client, {
          id: read.u64(f.get('id'), 'id'),
          canBuy: read.bool(f.get('can_buy'), 'can_buy'),
          canSell: read.bool(f.get('can_sell'), 'can_sell'),
          canCancel: read.bool(f.get('can_cancel'), 'can_cancel'),
          canTransfer: read.bool(f.get('can_transfer'), 'can_transfer'),
          isMarketMaker: read.bool(f.get('is_market_maker'), 'is_market_maker'),
        });
        return scv.void();
      }
      case 'remove_client': {
        arity(args, 2, fn);
        this.operator(env, frame, read.address(args[0], 'caller'));
        const client = read.address(args[1], 'client');
        touchData(env, this.address, clientKey(client), 'persistent', true);
        env.journal.delete(this.clients, client);
        return scv.void();
      }
      case 'admin':
        arity(args, 0, fn);
        return scv.address(this.admin);
      default:
        throw hostFail('value', 'missingValue', `registry has no function ${fn}`);
    }
  }

  set(env: Env, client: string, record: ClientRecord): void {
    touchData(env, this.address, clientKey(client), 'persistent', true);
    env.journal.set(this.clients, client, { ...record, lastModified: env.ledgerSeq });
  }

  private operator(env: Env, frame: Frame, caller: string): void {
    requireAuth(env, frame, caller);
    if (caller !== this.admin) throw new DltError('E_VENUE_UNAUTHORIZED', `${caller} is not the registry admin`);
  }

  dataEntry(key: ScVal, durability: 'persistent' | 'temporary'): DataEntry | undefined {
    if (durability !== 'persistent' || key.type !== 16 || key.vec?.length !== 2) return undefined;
    const [tag, who] = key.vec;
    if (tag?.type !== 15 || tag.sym.toString() !== 'Client' || who?.type !== 18) return undefined;
    const client = read.address(who, 'client');
    const r = this.clients.get(client);
    return r === undefined
      ? undefined
      : { val: clientStruct(client, r), lastModified: r.lastModified, liveUntil: r.lastModified + 3_110_400 };
  }
}
