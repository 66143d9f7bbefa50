/**
 * JSON-RPC 2.0 over HTTP POST to a chain A node. The transport answers the untyped `result` member; the typed
 * readers in `rpc-client.ts` check every field they use, because a malformed reply must be counted and skipped,
 * never crash the bot. Failures are `E_CHAIN_RPC` errors that say whether the node answered (`kind: 'rpc'`,
 * with the node's code, message and revert data) or not (`transport`, `malformed`).
 */
import { DltError } from '../../core/errors.ts';
import { redactText } from '../../telemetry/redact.ts';

/** Sends one request and resolves with its `result`; rejects with an `E_CHAIN_RPC` DltError. */
export type RpcTransport = (method: string, params: readonly unknown[]) => Promise<unknown>;

export type RpcFailureKind = 'transport' | 'rpc' | 'malformed';

export interface RpcFailure {
  readonly method: string;
  readonly kind: RpcFailureKind;
  readonly rpcCode: number | null;
  readonly rpcMessage: string;
  /** Revert data the node attached (`error.data` as hex, or nested one level). */
  readonly data: string | null;
}

export function rpcFailure(method: string, kind: RpcFailureKind, message: string, extra: { rpcCode?: number; data?: string | null; cause?: unknown } = {}): DltError {
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

export function httpTransport(url: string, options: { timeoutMs: number }): RpcTransport {
  let id = 0;
  const where = safeUrl(url);
  const target = endpoint(url);
  return async (method, params) => {
    let text: string;
    try {
      const res = await fetch(target.url, {
        method: 'POST',
        headers: target.headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      text = await res.text();
      if (!res.ok && text.length === 0) throw new Error(`HTTP ${res.status}`);
    } catch (e) {
      // The cause stays out: its message may quote the full URL, query string (an API key) included.
      const reason = redactText((e instanceof Error ? e.message : String(e)).replaceAll(target.url, where));
      throw rpcFailure(method, 'transport', `request to ${where} failed: ${reason}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw rpcFailure(method, 'malformed', `reply from ${where} is not JSON`);
    }
    if (typeof body !== 'object' || body === null) throw rpcFailure(method, 'malformed', 'reply is not a JSON-RPC object');
    const b = body as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } | null };
    if (b.error !== undefined && b.error !== null) {
      const code = typeof b.error.code === 'number' ? b.error.code : undefined;
      const message = typeof b.error.message === 'string' ? b.error.message : 'error without message';
      throw rpcFailure(method, 'rpc', message, { ...(code === undefined ? {} : { rpcCode: code }), data: errorData(b.error) });
    }
    if (!('result' in b)) throw rpcFailure(method, 'malformed', 'reply has neither result nor error');
    return b.result;
  };
}
