/**
 * JSON-RPC 2.0 batches over HTTP POST: several calls in one request, each answered on its own (a member's error
 * fails that member only). `gatheringTransport` sends the calls made in the same turn of the event loop as one
 * batch, so that reads started together (every token balance of a wallet) cost one request. A node that does
 * not take batches (it answers the array with an HTTP error or with something else than a JSON array) is asked
 * one call at a time from then on, the calls of that batch included: batches save requests, they never cost a
 * call its answer.
 */
import { endpoint, postText, redactedReason, safeUrl, type RpcFailureFactory } from './json-rpc-http.ts';

export interface BatchCall {
  readonly method: string;
  readonly params: unknown;
}

export type BatchAnswer =
  { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: Error };

/** Sends the calls as one request: one answer per call, in order; rejects when there is no batch answer at all. */
export type BatchTransport = (calls: readonly BatchCall[]) => Promise<BatchAnswer[]>;

/** Thrown (for the whole batch) when the node answered a batch with something else than an array. */
export class BatchRefused extends Error {}

export function jsonRpcBatchOverHttp(
  url: string,
  options: { timeoutMs: number },
  fail: RpcFailureFactory,
): BatchTransport {
  let id = 0;
  const where = safeUrl(url);
  const target = endpoint(url);
  return async (calls) => {
    const first = id + 1;
    const body = calls.map((c) => ({ jsonrpc: '2.0', id: ++id, method: c.method, params: c.params ?? null }));
    const method = calls.map((c) => c.method).join(',');
    let text: string;
    let status: number;
    try {
      if (target.parsed === null) throw new Error('invalid URL');
      ({ text, status } = await postText(target.parsed, target.headers, JSON.stringify(body), options.timeoutMs));
    } catch (e) {
      throw fail(method, 'transport', `request to ${where} failed: ${redactedReason(e, target.url, where)}`);
    }
    // An HTTP error (a proxy that does not pass batches) or anything but an array: not a node that takes batches.
    if (status < 200 || status > 299) throw new BatchRefused(`${where} answered a batch with HTTP ${status}`);
    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      throw new BatchRefused(`${where} answered a batch with something that is not JSON`);
    }
    if (!Array.isArray(reply)) throw new BatchRefused(`${where} answered a batch with ${typeof reply}`);
    const byId = new Map<unknown, unknown>();
    for (const r of reply) if (typeof r === 'object' && r !== null) byId.set((r as { id?: unknown }).id, r);
    return calls.map((c, i) => memberAnswer(byId.get(first + i), c.method, fail));
  };
}

function memberAnswer(member: unknown, method: string, fail: RpcFailureFactory): BatchAnswer {
  if (member === undefined)
    return { ok: false, error: fail(method, 'malformed', 'the batch reply has no answer to it') };
  const b = member as { result?: unknown; error?: { code?: unknown; message?: unknown } | null };
  if (b.error !== undefined && b.error !== null) {
    const code = typeof b.error.code === 'number' ? b.error.code : undefined;
    const message = typeof b.error.message === 'string' ? b.error.message : 'error without message';
    const error = fail(method, 'rpc', message, { ...(code === undefined ? {} : { rpcCode: code }), object: b.error });
    return { ok: false, error };
  }
  if (!('result' in b)) return { ok: false, error: fail(method, 'malformed', 'reply has neither result nor error') };
  return { ok: true, result: b.result };
}

/** A call its caller withdrew before its batch left (see `withdrawable`): it was not sent. */
export class CallWithdrawn extends Error {}

const withdrawals = new WeakMap<object, AbortSignal>();

/**
 * `params`, marked so that a gathering transport does not send the call if `signal` fires before its batch
 * leaves: a cancellation found moot (the order was filled) while its simulation waited for the batch.
 */
export function withdrawable<P extends object>(params: P, signal: AbortSignal | undefined): P {
  if (signal !== undefined) withdrawals.set(params, signal);
  return params;
}

/** The calls still wanted; the others are rejected with `CallWithdrawn`. */
function stillWanted<C extends { method: string; params: unknown; reject: (e: unknown) => void }>(calls: C[]): C[] {
  return calls.filter((c) => {
    const signal = typeof c.params === 'object' && c.params !== null ? withdrawals.get(c.params) : undefined;
    if (signal?.aborted !== true) return true;
    c.reject(new CallWithdrawn(`${c.method} withdrawn before it was sent`));
    return false;
  });
}

/**
 * A one-call transport whose calls made in the same turn leave as one batch (a lone call leaves as itself,
 * through `single`). After a node refused a batch, every call goes through `single`. `window`: the calls made
 * before the current microtasks have run (`microtask`), or before the event loop next turns to timers and I/O
 * (`immediate`: calls a few promise steps apart, at the cost of that turn).
 */
export function gatheringTransport<P>(
  batch: BatchTransport,
  single: (method: string, params: P) => Promise<unknown>,
  window: 'microtask' | 'immediate' = 'microtask',
): (method: string, params: P) => Promise<unknown> {
  let gathered: Array<{ method: string; params: P; resolve: (v: unknown) => void; reject: (e: unknown) => void }> = [];
  let batches = true;
  const flush = async () => {
    const calls = stillWanted(gathered);
    gathered = [];
    if (calls.length === 0) return;
    const alone = () => {
      for (const c of calls) single(c.method, c.params).then(c.resolve, c.reject);
    };
    if (calls.length === 1 || !batches) return alone();
    try {
      const answers = await batch(calls);
      for (const [i, c] of calls.entries()) {
        const a = answers[i] as BatchAnswer;
        if (a.ok) c.resolve(a.result);
        else c.reject(a.error);
      }
    } catch (e) {
      if (!(e instanceof BatchRefused)) for (const c of calls) c.reject(e);
      else {
        batches = false;
        alone();
      }
    }
  };
  return (method, params) =>
    new Promise((resolve, reject) => {
      if (gathered.length === 0)
        if (window === 'microtask') queueMicrotask(() => void flush());
        else setImmediate(() => void flush());
      gathered.push({ method, params, resolve, reject });
    });
}
