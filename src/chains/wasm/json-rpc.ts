/**
 * JSON-RPC 2.0 over HTTP POST to a Soroban RPC node. The transport answers the `result` member, untyped: the
 * typed readers in `rpc-client.ts` check every field they use, because a malformed reply must be counted
 * and skipped, never crash the bot. Failures are `E_CHAIN_RPC` errors that say whether the node answered
 * (`rpcCode` set: the node's own error object) or not (transport failure, timeout, unreadable body).
 */
import { DltError } from '../../core/errors.ts';
import { gatheringTransport, jsonRpcBatchOverHttp } from '../json-rpc-batch.ts';
import { jsonRpcOverHttp, type RpcFailureFactory } from '../json-rpc-http.ts';

/** Sends one request and resolves with its `result`; rejects with an `E_CHAIN_RPC` DltError. */
export type RpcTransport = (method: string, params: unknown) => Promise<unknown>;

export interface RpcFailure {
  readonly method: string;
  /** The node's JSON-RPC error code, when it answered with one. */
  readonly rpcCode?: number;
  readonly kind: 'transport' | 'rpc' | 'malformed';
}

export function rpcFailure(
  method: string,
  kind: RpcFailure['kind'],
  message: string,
  extra: { rpcCode?: number; cause?: unknown } = {},
): DltError {
  return new DltError('E_CHAIN_RPC', `${method}: ${message}`, {
    details: { method, kind, ...(extra.rpcCode === undefined ? {} : { rpcCode: extra.rpcCode }) },
    cause: extra.cause,
  });
}

export function rpcFailureKind(e: unknown): RpcFailure['kind'] | null {
  if (!(e instanceof DltError) || e.code !== 'E_CHAIN_RPC') return null;
  const kind = e.details.kind;
  return kind === 'transport' || kind === 'rpc' || kind === 'malformed' ? kind : null;
}

export function rpcErrorCode(e: unknown): number | null {
  return e instanceof DltError && e.code === 'E_CHAIN_RPC' && typeof e.details.rpcCode === 'number'
    ? e.details.rpcCode
    : null;
}

const failure: RpcFailureFactory = (method, kind, message, error) =>
  rpcFailure(method, kind, message, error?.rpcCode === undefined ? {} : { rpcCode: error.rpcCode });

export function httpTransport(url: string, options: { timeoutMs: number }): RpcTransport {
  return jsonRpcOverHttp(url, options, failure);
}

/**
 * The adapter's transports: `single` for every call; `gathering`, whose calls made in the same turn leave as
 * one JSON-RPC batch (the order books' configuration and phase, read for every pair at once; the outcome polls
 * a new ledger wakes); and `sending`, whose calls made before the event loop next turns to I/O leave as one
 * batch: the simulations and the sends of the placements a round hands over at once, which reach the node
 * a few promise steps apart. A transport given in the options (tests) serves as all three.
 */
export function transportsOf(
  o: { readonly transport?: RpcTransport; readonly rpcUrl: string },
  timeoutMs: number,
): { single: RpcTransport; gathering: RpcTransport; sending: RpcTransport } {
  if (o.transport !== undefined) return { single: o.transport, gathering: o.transport, sending: o.transport };
  const single = httpTransport(o.rpcUrl, { timeoutMs });
  const batch = jsonRpcBatchOverHttp(o.rpcUrl, { timeoutMs }, failure);
  return {
    single,
    gathering: gatheringTransport(batch, single),
    sending: gatheringTransport(batch, single, 'immediate'),
  };
}
