/**
 * JSON-RPC 2.0 over HTTP POST to a chain A node. The transport answers the untyped `result` member; the typed
 * readers in `rpc-client.ts` check every field they use, because a malformed reply must be counted and skipped,
 * never crash the bot. Failures are `E_CHAIN_RPC` errors that say whether the node answered (`kind: 'rpc'`,
 * with the node's code, message and revert data) or not (`transport`, `malformed`).
 */
import { DltError } from '../../core/errors.ts';
import { gatheringTransport, jsonRpcBatchOverHttp } from '../json-rpc-batch.ts';
import { jsonRpcOverHttp, type RpcFailureFactory, type RpcFailureKind } from '../json-rpc-http.ts';

/** Sends one request and resolves with its `result`; rejects with an `E_CHAIN_RPC` DltError. */
export type RpcTransport = (method: string, params: readonly unknown[]) => Promise<unknown>;

export type { RpcFailureKind } from '../json-rpc-http.ts';
export { safeUrl } from '../json-rpc-http.ts';

export interface RpcFailure {
  readonly method: string;
  readonly kind: RpcFailureKind;
  readonly rpcCode: number | null;
  readonly rpcMessage: string;
  /** Revert data the node attached (`error.data` as hex, or nested one level). */
  readonly data: string | null;
}

export function rpcFailure(
  method: string,
  kind: RpcFailureKind,
  message: string,
  extra: { rpcCode?: number; data?: string | null; cause?: unknown } = {},
): DltError {
  return new DltError('E_CHAIN_RPC', `${method}: ${message}`, {
    details: { method, kind, rpcCode: extra.rpcCode ?? null, rpcMessage: message, data: extra.data ?? null },
    cause: extra.cause,
  });
}

/** The failure an RPC call rejected with, or null when the error is not one of ours. */
export function rpcFailureOf(e: unknown): RpcFailure | null {
  if (!(e instanceof DltError) || e.code !== 'E_CHAIN_RPC') return null;
  const d = e.details;
  const kind = d.kind;
  if (kind !== 'transport' && kind !== 'rpc' && kind !== 'malformed') return null;
  return {
    method: String(d.method),
    kind,
    rpcCode: typeof d.rpcCode === 'number' ? d.rpcCode : null,
    rpcMessage: typeof d.rpcMessage === 'string' ? d.rpcMessage : '',
    data: typeof d.data === 'string' ? d.data : null,
  };
}

const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;

/** Revert data in a JSON-RPC error object: geth and EDR put it in `data`, some nodes one level deeper. */
export function errorData(error: { data?: unknown }): string | null {
  const d = error.data;
  if (typeof d === 'string' && HEX_DATA.test(d)) return d;
  if (typeof d === 'object' && d !== null) {
    const inner = (d as { data?: unknown }).data;
    if (typeof inner === 'string' && HEX_DATA.test(inner)) return inner;
  }
  return null;
}

const failure: RpcFailureFactory = (method, kind, message, error) =>
  rpcFailure(
    method,
    kind,
    message,
    error === undefined
      ? {}
      : { ...(error.rpcCode === undefined ? {} : { rpcCode: error.rpcCode }), data: errorData(error.object) },
  );

export function httpTransport(url: string, options: { timeoutMs: number }): RpcTransport {
  return jsonRpcOverHttp(url, options, failure);
}

/**
 * The adapter's transports: `single` for every call; `gathering`, whose calls made together leave as one
 * JSON-RPC batch (the wallet's balances, a range's logs); and `sending`, the sending lane's and the receipt
 * watcher's, whose window lasts until the event loop next turns to I/O, so that the watcher's poll woken by one
 * transaction's answer leaves with the next transaction of the lane. A transport given in the options (tests)
 * serves as all three.
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
