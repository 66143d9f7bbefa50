/**
 * JSON-RPC 2.0 over HTTP POST, for both chains' nodes: one request, its `result` member untyped (typed
 * readers check every field they use). A failure is reported through the chain's own error factory as
 * `transport` (no answer, timeout, an HTTP error without body), `malformed` (an answer that is not a JSON-RPC
 * reply) or `rpc` (the node's error object). An RPC URL may carry an API key or credentials: errors name the
 * endpoint without user info or query, and credentials travel in a Basic authorization header.
 */
import { redactText } from '../telemetry/redact.ts';

export type RpcFailureKind = 'transport' | 'rpc' | 'malformed';

/** The error object of a JSON-RPC reply, as received. */
export interface RpcErrorObject {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly data?: unknown;
}

/** Builds the error a call rejects with; `error` is the node's error object for kind `rpc`. */
export type RpcFailureFactory = (method: string, kind: RpcFailureKind, message: string, error?: { readonly rpcCode?: number; readonly object: RpcErrorObject }) => Error;

/** Strips user info and query from a URL before it appears in an error (an RPC URL may carry an API key). */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

/** The URL fetch accepts (credentials moved into a Basic authorization header, as fetch refuses them in a URL). */
function endpoint(url: string): { url: string; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  try {
    const u = new URL(url);
    if (u.username === '' && u.password === '') return { url, headers };
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
    u.username = '';
    u.password = '';
    return { url: u.href, headers };
  } catch {
    return { url, headers };
  }
}

export function jsonRpcOverHttp(url: string, options: { timeoutMs: number }, fail: RpcFailureFactory): (method: string, params: unknown) => Promise<unknown> {
  let id = 0;
  const where = safeUrl(url);
  const target = endpoint(url);
  return async (method, params) => {
    let text: string;
    try {
      const res = await fetch(target.url, {
        method: 'POST',
        headers: target.headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: params ?? null }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      text = await res.text();
      if (!res.ok && text.length === 0) throw new Error(`HTTP ${res.status}`);
    } catch (e) {
      // The cause stays out: its message may quote the full URL, query string (an API key) included.
      const reason = redactText((e instanceof Error ? e.message : String(e)).replaceAll(target.url, where));
      throw fail(method, 'transport', `request to ${where} failed: ${reason}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw fail(method, 'malformed', `reply from ${where} is not JSON`);
    }
    if (typeof body !== 'object' || body === null) throw fail(method, 'malformed', 'reply is not a JSON-RPC object');
    const b = body as { result?: unknown; error?: RpcErrorObject | null };
    if (b.error !== undefined && b.error !== null) {
      const code = typeof b.error.code === 'number' ? b.error.code : undefined;
      const message = typeof b.error.message === 'string' ? b.error.message : 'error without message';
      throw fail(method, 'rpc', message, { ...(code === undefined ? {} : { rpcCode: code }), object: b.error });
    }
    if (!('result' in b)) throw fail(method, 'malformed', 'reply has neither result nor error');
    return b.result;
  };
}
