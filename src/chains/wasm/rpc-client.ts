/**
 * The Soroban RPC methods the adapter uses, over a JSON-RPC transport, with every field it reads checked.
 * A reply without the fields a method needs is an `E_CHAIN_RPC` error of kind `malformed`; each failure is
 * counted by method and kind. Items inside a reply (events) are passed on raw and checked one by one by
 * their decoder, so one bad event never costs the page.
 */
import { StrKey, xdr } from '@stellar/stellar-sdk';
import type { WasmMetrics } from './metrics.ts';
import { rpcFailure, rpcFailureKind, type RpcTransport } from './json-rpc.ts';
import { HeadSightings } from '../head-sightings.ts';
import { CallWithdrawn, withdrawable } from '../json-rpc-batch.ts';

type Json = Record<string, unknown>;

export type SimulationReply =
  | { readonly ok: false; readonly error: string; readonly latestLedger: number }
  | {
      readonly ok: true;
      /** The reply as received, for `assembleTransaction`. */
      readonly raw: Json;
      readonly auth: readonly string[];
      readonly retval: string | null;
      readonly latestLedger: number;
    };

export type SendStatus = 'PENDING' | 'DUPLICATE' | 'TRY_AGAIN_LATER' | 'ERROR';

export interface SendReply {
  readonly status: SendStatus;
  readonly hash: string;
  readonly errorResultXdr: string | null;
  readonly latestLedger: number;
}

export interface LedgerPosition {
  readonly latestLedger: number;
  /** Unix seconds of the latest ledger's close, when the node says. */
  readonly latestLedgerCloseTime: bigint | null;
}

export type TxReply =
  | ({ readonly status: 'NOT_FOUND' } & LedgerPosition)
  | ({
      readonly status: 'SUCCESS' | 'FAILED';
      readonly ledger: number;
      /** Unix seconds. */
      readonly createdAt: bigint;
      readonly applicationOrder: number | null;
      readonly resultXdr: string | null;
      readonly resultMetaXdr: string | null;
      readonly diagnosticEventsXdr: readonly string[];
      /** `events.contractEventsXdr`: per operation, base64 ContractEvents (newer nodes). */
      readonly contractEventsXdr: ReadonlyArray<readonly string[]> | null;
    } & LedgerPosition);

export interface EventsPage {
  /** Raw event objects; the decoder checks each one. */
  readonly events: readonly unknown[];
  readonly cursor: string;
  readonly latestLedger: number;
  readonly oldestLedger: number | null;
}

export interface EventsRequest {
  readonly startLedger?: number;
  /** Exclusive; only with `startLedger` (a cursor cannot be combined with a range). */
  readonly endLedger?: number;
  readonly cursor?: string;
  readonly filters: readonly Json[];
  readonly limit: number;
}

function obj(v: unknown, method: string): Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw rpcFailure(method, 'malformed', 'result is not an object');
  return v as Json;
}

function num(v: unknown, method: string, field: string): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  throw rpcFailure(method, 'malformed', `${field} is not an integer`);
}

function optSeconds(v: unknown): bigint | null {
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return null;
}

function str(v: unknown, method: string, field: string): string {
  if (typeof v !== 'string') throw rpcFailure(method, 'malformed', `${field} is not a string`);
  return v;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export class WasmRpc {
  readonly #transport: RpcTransport;
  readonly #metrics: WasmMetrics;
  readonly #now: () => number;
  /** The highest ledger any reply named, when it was seen, and who waits for a newer one. */
  #seen = new HeadSightings();

  constructor(transport: RpcTransport, metrics: WasmMetrics, now: () => number = Date.now) {
    this.#transport = transport;
    this.#metrics = metrics;
    this.#now = now;
  }

  /** The same reads and counts over another transport (one that gathers calls into batches); one `lastSeen`. */
  withTransport(transport: RpcTransport): WasmRpc {
    const rpc = new WasmRpc(transport, this.#metrics, this.#now);
    rpc.#seen = this.#seen;
    return rpc;
  }

  get ledgers(): HeadSightings {
    return this.#seen;
  }

  async call(method: string, params: unknown): Promise<unknown> {
    try {
      const reply = await this.#transport(method, params);
      const latest =
        typeof reply === 'object' && reply !== null
          ? ((reply as Json).latestLedger ?? (reply as Json).sequence)
          : undefined;
      if (typeof latest === 'number') this.#seen.see(latest, this.#now());
      return reply;
    } catch (e) {
      if (e instanceof CallWithdrawn) throw e; // withdrawn by its caller before it left: not the node's failure
      this.#metrics.rpcErrors.inc({ method, kind: rpcFailureKind(e) ?? 'transport' });
      if (rpcFailureKind(e) === null)
        throw rpcFailure(method, 'transport', e instanceof Error ? e.message : String(e), { cause: e });
      throw e;
    }
  }

  /** Runs a reader over a reply; a shape error is counted as malformed. */
  async #read<T>(method: string, params: unknown, read: (r: unknown) => T): Promise<T> {
    const reply = await this.call(method, params);
    try {
      return read(reply);
    } catch (e) {
      if (rpcFailureKind(e) === 'malformed') this.#metrics.rpcErrors.inc({ method, kind: 'malformed' });
      throw e;
    }
  }

  latestLedger(): Promise<{ sequence: number; closeTime: bigint | null }> {
    return this.#read('getLatestLedger', null, (r) => {
      const o = obj(r, 'getLatestLedger');
      return { sequence: num(o.sequence, 'getLatestLedger', 'sequence'), closeTime: optSeconds(o.closeTime) };
    });
  }

  health(): Promise<{ latestLedger: number; oldestLedger: number }> {
    return this.#read('getHealth', null, (r) => {
      const o = obj(r, 'getHealth');
      return {
        latestLedger: num(o.latestLedger, 'getHealth', 'latestLedger'),
        oldestLedger: num(o.oldestLedger, 'getHealth', 'oldestLedger'),
      };
    });
  }

  /** Found entries by base64 key (as `keyB64` writes it); absent keys are simply missing from the map. */
  ledgerEntries(
    keys: readonly xdr.LedgerKeyWire[],
  ): Promise<{ entries: Map<string, xdr.LedgerEntryDataWire>; latestLedger: number }> {
    const encoded = keys.map((k) => WasmRpc.keyB64(k));
    return this.#read('getLedgerEntries', { keys: encoded }, (r) => {
      const o = obj(r, 'getLedgerEntries');
      const list = Array.isArray(o.entries) ? o.entries : o.entries === null || o.entries === undefined ? [] : null;
      if (list === null) throw rpcFailure('getLedgerEntries', 'malformed', 'entries is not an array');
      const entries = new Map<string, xdr.LedgerEntryDataWire>();
      for (const e of list) {
        const entry = obj(e, 'getLedgerEntries');
        try {
          entries.set(
            str(entry.key, 'getLedgerEntries', 'key'),
            xdr.LedgerEntryData.schema.decode(Buffer.from(str(entry.xdr, 'getLedgerEntries', 'xdr'), 'base64')),
          );
        } catch (err) {
          if (rpcFailureKind(err) !== null) throw err;
          throw rpcFailure('getLedgerEntries', 'malformed', 'entry xdr does not decode');
        }
      }
      return { entries, latestLedger: num(o.latestLedger, 'getLedgerEntries', 'latestLedger') };
    });
  }

  static keyB64(key: xdr.LedgerKeyWire): string {
    return Buffer.from(xdr.LedgerKey.schema.encode(key)).toString('base64');
  }

  /** Sequence number and native balance (stroops) of an account; null when it does not exist. */
  async account(g: string): Promise<{ seqNum: bigint; balance: bigint } | null> {
    const key: xdr.LedgerKeyWire = {
      type: 0,
      account: { accountId: { type: 0, ed25519: StrKey.decodeEd25519PublicKey(g) } },
    };
    const { entries } = await this.ledgerEntries([key]);
    const [data] = [...entries.values()];
    if (data === undefined) return null;
    if (data.type !== 0)
      throw rpcFailure('getLedgerEntries', 'malformed', 'account key answered with another entry type');
    return { seqNum: data.account.seqNum, balance: data.account.balance };
  }

  simulate(txB64: string, withdrawnBy?: AbortSignal): Promise<SimulationReply> {
    return this.#read('simulateTransaction', withdrawable({ transaction: txB64 }, withdrawnBy), (r) => {
      const o = obj(r, 'simulateTransaction');
      const latestLedger = num(o.latestLedger, 'simulateTransaction', 'latestLedger');
      if (typeof o.error === 'string' && o.error.length > 0)
        return { ok: false as const, error: o.error, latestLedger };
      str(o.transactionData, 'simulateTransaction', 'transactionData');
      const results = Array.isArray(o.results) ? o.results : null;
      const first = results?.[0] as Json | undefined;
      if (first === undefined || typeof first !== 'object' || first === null)
        throw rpcFailure('simulateTransaction', 'malformed', 'no results');
      if (!Array.isArray(first.auth ?? []))
        throw rpcFailure('simulateTransaction', 'malformed', 'results[0].auth is not an array');
      return {
        ok: true as const,
        raw: o,
        auth: strings(first.auth),
        retval: typeof first.xdr === 'string' ? first.xdr : null,
        latestLedger,
      };
    });
  }

  send(txB64: string): Promise<SendReply> {
    return this.#read('sendTransaction', { transaction: txB64 }, (r) => {
      const o = obj(r, 'sendTransaction');
      const status = o.status;
      if (status !== 'PENDING' && status !== 'DUPLICATE' && status !== 'TRY_AGAIN_LATER' && status !== 'ERROR') {
        throw rpcFailure('sendTransaction', 'malformed', `unknown status ${JSON.stringify(status)}`);
      }
      return {
        status,
        hash: str(o.hash, 'sendTransaction', 'hash').toLowerCase(),
        errorResultXdr: typeof o.errorResultXdr === 'string' ? o.errorResultXdr : null,
        latestLedger: num(o.latestLedger, 'sendTransaction', 'latestLedger'),
      };
    });
  }

  transaction(hash: string): Promise<TxReply> {
    return this.#read('getTransaction', { hash }, (r) => {
      const o = obj(r, 'getTransaction');
      const position = {
        latestLedger: num(o.latestLedger, 'getTransaction', 'latestLedger'),
        latestLedgerCloseTime: optSeconds(o.latestLedgerCloseTime),
      };
      if (o.status === 'NOT_FOUND') return { status: 'NOT_FOUND' as const, ...position };
      if (o.status !== 'SUCCESS' && o.status !== 'FAILED')
        throw rpcFailure('getTransaction', 'malformed', `unknown status ${JSON.stringify(o.status)}`);
      const createdAt = optSeconds(o.createdAt);
      if (createdAt === null) throw rpcFailure('getTransaction', 'malformed', 'createdAt is missing');
      const events = typeof o.events === 'object' && o.events !== null ? (o.events as Json) : null;
      const contractEvents =
        events !== null && Array.isArray(events.contractEventsXdr) ? events.contractEventsXdr.map(strings) : null;
      return {
        status: o.status,
        ...position,
        ledger: num(o.ledger, 'getTransaction', 'ledger'),
        createdAt,
        applicationOrder: typeof o.applicationOrder === 'number' ? o.applicationOrder : null,
        resultXdr: typeof o.resultXdr === 'string' ? o.resultXdr : null,
        resultMetaXdr: typeof o.resultMetaXdr === 'string' ? o.resultMetaXdr : null,
        diagnosticEventsXdr: strings(o.diagnosticEventsXdr),
        contractEventsXdr: contractEvents,
      };
    });
  }

  events(req: EventsRequest): Promise<EventsPage> {
    const params: Json = {
      filters: req.filters,
      pagination: req.cursor === undefined ? { limit: req.limit } : { cursor: req.cursor, limit: req.limit },
    };
    if (req.cursor === undefined) params.startLedger = req.startLedger;
    if (req.cursor === undefined && req.endLedger !== undefined) params.endLedger = req.endLedger;
    return this.#read('getEvents', params, (r) => {
      const o = obj(r, 'getEvents');
      if (!Array.isArray(o.events ?? [])) throw rpcFailure('getEvents', 'malformed', 'events is not an array');
      return {
        events: (o.events ?? []) as unknown[],
        cursor: str(o.cursor, 'getEvents', 'cursor'),
        latestLedger: num(o.latestLedger, 'getEvents', 'latestLedger'),
        oldestLedger: typeof o.oldestLedger === 'number' ? o.oldestLedger : null,
      };
    });
  }
}
