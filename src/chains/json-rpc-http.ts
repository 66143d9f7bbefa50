/**
 * JSON-RPC 2.0 over HTTP POST, for both chains' nodes: one request, its `result` member untyped (typed
 * readers check every field they use). A failure is reported through the chain's own error factory as
 * `transport` (no answer, timeout, an HTTP error without body), `malformed` (an answer that is not a JSON-RPC
 * reply) or `rpc` (the node's error object). An RPC URL may carry an API key or credentials: errors name the
 * endpoint without user info or query, and credentials travel in a Basic authorization header.
 */
import { channel } from 'node:diagnostics_channel';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { redactText } from '../telemetry/redact.ts';
import { safeUrl, withoutCredentials } from '../core/url.ts';

export { safeUrl };

export type RpcFailureKind = 'transport' | 'rpc' | 'malformed';

/** The error object of a JSON-RPC reply, as received. */
export interface RpcErrorObject {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly data?: unknown;
}

/** Builds the error a call rejects with; `error` is the node's error object for kind `rpc`. */
export type RpcFailureFactory = (
  method: string,
  kind: RpcFailureKind,
  message: string,
  error?: { readonly rpcCode?: number; readonly object: RpcErrorObject },
) => Error;

/** The URL without credentials (moved into a Basic authorization header) and the headers of every call; null URL when it does not parse. */
export function endpoint(url: string): { url: string; parsed: URL | null; headers: Record<string, string> } {
  const e = withoutCredentials(url);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (e.authorization !== null) headers.authorization = e.authorization;
  return { url: e.url, parsed: e.parsed, headers };
}

/**
 * Every request body as it is written to the connection, for a probe in the process (`node:diagnostics_channel`,
 * subscribed by name; nothing is published while no one listens). The capacity benchmark counts with it.
 */
export const JSON_RPC_CHANNEL = 'dlt-mm:json-rpc-request';
const requests = channel(JSON_RPC_CHANNEL);

/**
 * One POST through node:http(s) and the keep-alive global agents: the status and the body as text, or a
 * rejection when there is no complete answer within `timeoutMs`. Not WHATWG fetch: fetch ties each request's
 * objects to WeakRefs, finalization registries and a timeout signal, which the young-generation collector
 * keeps alive, so at a chain follower's call rate every call's garbage was promoted to the old generation
 * and the heap grew to several times its live size between full collections (see test/bench/).
 */
export function postText(
  target: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const send = target.protocol === 'https:' ? httpsRequest : target.protocol === 'http:' ? httpRequest : null;
    if (send === null) {
      reject(new Error(`unsupported protocol ${target.protocol}`));
      return;
    }
    let settled = false;
    const settle = (error: Error | null, answer?: { status: number; text: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error !== null) reject(error);
      else resolve(answer as { status: number; text: string });
    };
    const payload = Buffer.from(body, 'utf8');
    const req = send(
      target,
      { method: 'POST', headers: { ...headers, 'content-length': String(payload.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          settle(null, { status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', (e) => settle(e));
        res.on('close', () => {
          if (!res.complete) settle(new Error('the connection closed before the reply was complete'));
        });
      },
    );
    const timer = setTimeout(() => {
      const e = new Error(`no answer within ${timeoutMs} ms`);
      settle(e);
      req.destroy(e);
    }, timeoutMs);
    timer.unref();
    req.on('error', (e) => settle(e));
    if (requests.hasSubscribers) requests.publish({ host: target.host, body });
    req.end(payload);
  });
}

/** Why a request failed, without the cause itself: its message may quote the full URL, query string (an API key) included. */
export function redactedReason(e: unknown, url: string, where: string): string {
  return redactText((e instanceof Error ? e.message : String(e)).replaceAll(url, where));
}

export function jsonRpcOverHttp(
  url: string,
  options: { timeoutMs: number },
  fail: RpcFailureFactory,
): (method: string, params: unknown) => Promise<unknown> {
  let id = 0;
  const where = safeUrl(url);
  const target = endpoint(url);
  return async (method, params) => {
    let text: string;
    let status: number;
    try {
      if (target.parsed === null) throw new Error('invalid URL');
      const res = await postText(
        target.parsed,
        target.headers,
        JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: params ?? null }),
        options.timeoutMs,
      );
      text = res.text;
      status = res.status;
      if ((res.status < 200 || res.status > 299) && text.length === 0) throw new Error(`HTTP ${res.status}`);
    } catch (e) {
      throw fail(method, 'transport', `request to ${where} failed: ${redactedReason(e, target.url, where)}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      // An HTTP error whose page is not JSON (a proxy's 503) is the transport failing, not the node's answer.
      if (status < 200 || status > 299) throw fail(method, 'transport', `request to ${where} failed: HTTP ${status}`);
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
