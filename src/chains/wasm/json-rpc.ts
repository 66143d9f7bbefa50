/**
 * JSON-RPC 2.0 over HTTP POST to a Soroban RPC node. The transport answers the `result` member, untyped: the
 * typed readers in `rpc-client.ts` check every field they use, because a malformed reply must be counted
 * and skipped, never crash the bot. Failures are `E_CHAIN_RPC` errors that say whether the node answered
 * (`rpcCode` set: the node's own error object) or not (transport failure, timeout, unreadable body).
 */
import { DltError } from '../../core/errors.ts';

/** Sends one request and resolves with its `result`; rejects with an `E_CHAIN_RPC` DltError. */
export type RpcTransport = (method: string, params: unknown) => Promise<unknown>;

export interface RpcFailureDetails {
  readonly method: string;
  /** The node's JSON-RPC error code, when it answered with one. */
  readonly rpcCode?: number;
  readonly kind: 'transport' | 'rpc' | 'malformed';
}

export function rpcFailure(method: string, kind: RpcFailureDetails['kind'], message: string, extra: { rpcCode?: number; cause?: unknown } = {}): DltError {
  return new DltError('E_CHAIN_RPC', `${method}: ${message}`, {
    details: { method, kind, ...(extra.rpcCode === undefined ? {} : { rpcCode: extra.rpcCode }) },
    cause: extra.cause,
  });
}

export function rpcFailureKind(e: unknown): RpcFailureDetails['kind'] | null {
  if (!(e instanceof DltError) || e.code !== 'E_CHAIN_RPC') return null;
  const kind = e.details.kind;
  return kind === 'transport' || kind === 'rpc' || kind === 'malformed' ? kind : null;
}

export function rpcErrorCode(e: unknown): number | null {
  return e instanceof DltError && e.code === 'E_CHAIN_RPC' && typeof e.details.rpcCode === 'number' ? e.details.rpcCode : null;
}

/** Strips user info and query from a URL before it appears in an error (an RPC URL may carry an API key). */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

export function httpTransport(url: string, options: { timeoutMs: number }): RpcTransport {
  let id = 0;
  const where = safeUrl(url);
  return async (method, params) => {
    let text: string;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: params ?? null }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      text = await res.text();
      if (!res.ok && text.length === 0) throw new Error(`HTTP ${res.status}`);
    } catch (e) {
      throw rpcFailure(method, 'transport', `request to ${where} failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw rpcFailure(method, 'malformed', `reply from ${where} is not JSON`);
    }
    if (typeof body !== 'object' || body === null) throw rpcFailure(method, 'malformed', 'reply is not a JSON-RPC object');
    const b = body as { result?: unknown; error?: { code?: unknown; message?: unknown } };
    if (b.error !== undefined && b.error !== null) {
      const code = typeof b.error.code === 'number' ? b.error.code : undefined;
      const message = typeof b.error.message === 'string' ? b.error.message : 'error without message';
      throw rpcFailure(method, 'rpc', message, code === undefined ? {} : { rpcCode: code });
    }
    if (!('result' in b)) throw rpcFailure(method, 'malformed', 'reply has neither result nor error');
    return b.result;
  };
}
