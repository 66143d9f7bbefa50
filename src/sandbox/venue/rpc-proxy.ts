/**
 * A small HTTP proxy in front of a chain node, on the node's public port: it forwards every request as it is
 * and, on demand, answers JSON-RPC calls with faults instead (control endpoint `/sandbox/faults/rpc`): a
 * JSON-RPC internal error, an HTTP 503, or a dropped connection, for the next `count` calls, or each call
 * with probability `rate`, optionally only for some methods. The sandbox's own parts (indexer, operator,
 * simulated traders) talk to the node directly, so a fault reaches only the clients of the public URL.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { httpExchange, LOOPBACK } from '../net.ts';

export const rpcFaultSchema = z.strictObject({
  mode: z.enum(['error', 'http-503', 'drop']).default('error'),
  count: z.number().int().min(1).max(1_000_000).optional(),
  rate: z.number().min(0).max(1).optional(),
  /** Only calls of these JSON-RPC methods; default every method. */
  methods: z.array(z.string().min(1).max(100)).max(50).optional(),
});

export type RpcFaultSpec = z.input<typeof rpcFaultSchema>;

interface Rule {
  readonly mode: 'error' | 'http-503' | 'drop';
  readonly rate?: number;
  readonly methods?: readonly string[];
  remaining?: number;
  hits: number;
}

export interface RpcProxy {
  readonly url: string;
  readonly port: number;
  addFault(spec: RpcFaultSpec): void;
  clearFaults(): void;
  faults(): readonly Omit<Rule, never>[];
  close(): Promise<void>;
}

function methodsOf(body: string): { ids: unknown[]; methods: string[]; batch: boolean } {
  try {
    const parsed = JSON.parse(body) as unknown;
    const list = Array.isArray(parsed) ? parsed : [parsed];
    const calls = list.filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null);
    return {
      ids: calls.map((c) => c.id ?? null),
      methods: calls.map((c) => String(c.method)),
      batch: Array.isArray(parsed),
    };
  } catch {
    return { ids: [], methods: [], batch: false };
  }
}

/** One forwarded call as the proxy saw it: the request body, the node's answer and when each passed. */
export interface RpcExchange {
  /** Wall clock (epoch ms) when the request arrived and when the answer went back. */
  readonly sentMs: number;
  readonly answeredMs: number;
  readonly request: string;
  readonly status: number;
  readonly response: string;
}

export interface RpcProxyOptions {
  readonly port: number;
  readonly target: string;
  readonly random: () => number;
  /** Called with every forwarded call once it is answered (a recorder of what a client sent). */
  readonly observe?: (exchange: RpcExchange) => void;
}

/** The fault rules in force, in the order they were added; a rule with a count leaves once it is used up. */
class FaultRules {
  #rules: Rule[] = [];
  readonly #random: () => number;

  constructor(random: () => number) {
    this.#random = random;
  }

  add(spec: RpcFaultSpec): void {
    const parsed = rpcFaultSchema.parse(spec);
    this.#rules.push({
      mode: parsed.mode,
      hits: 0,
      ...(parsed.rate === undefined ? {} : { rate: parsed.rate }),
      ...(parsed.methods === undefined ? {} : { methods: parsed.methods }),
      ...(parsed.count === undefined ? {} : { remaining: parsed.count }),
    });
  }

  clear(): void {
    this.#rules = [];
  }

  list(): Rule[] {
    return this.#rules.map((rule) => ({ ...rule }));
  }

  /** The first rule that applies to a request calling `methods` (and draws its rate), counted as used. */
  pick(methods: readonly string[]): Rule | undefined {
    for (const rule of this.#rules) {
      if (rule.methods !== undefined && !methods.some((m) => rule.methods?.includes(m))) continue;
      if (rule.rate !== undefined && this.#random() >= rule.rate) continue;
      if (rule.remaining !== undefined) rule.remaining -= 1;
      rule.hits += 1;
      this.#rules = this.#rules.filter((x) => x.remaining === undefined || x.remaining > 0);
      return rule;
    }
    return undefined;
  }
}

/** Passes the request to the node as it is and its answer back; `observe` sees the exchange. */
async function forward(
  target: URL,
  observe: RpcProxyOptions['observe'],
  req: IncomingMessage,
  body: Buffer,
  res: ServerResponse,
): Promise<void> {
  const sentMs = Date.now();
  const url = new URL(req.url ?? '/', target);
  const answer = await httpExchange(url, {
    method: req.method ?? 'GET',
    contentType: req.headers['content-type'] ?? 'application/json',
    ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body }),
  });
  res.writeHead(answer.status, {
    'content-type': answer.contentType ?? 'application/json',
    'content-length': answer.body.length,
  });
  res.end(answer.body);
  observe?.({
    sentMs,
    answeredMs: Date.now(),
    request: body.toString('utf8'),
    status: answer.status,
    response: answer.body.toString('utf8'),
  });
}

/** Answers a request with the rule's fault: a dropped connection, an HTTP 503, or a JSON-RPC error per call. */
function answerFault(rule: Rule, calls: ReturnType<typeof methodsOf>, res: ServerResponse): void {
  if (rule.mode === 'drop') return void res.destroy();
  if (rule.mode === 'http-503') {
    res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' });
    return void res.end('injected fault: service unavailable');
  }
  const errors = calls.ids.map((id) => ({
    jsonrpc: '2.0',
    id,
    error: { code: -32603, message: 'injected fault: internal error' },
  }));
  const text = JSON.stringify(calls.batch ? errors : errors[0]);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startRpcProxy(options: RpcProxyOptions): Promise<RpcProxy> {
  const target = new URL(options.target);
  const rules = new FaultRules(options.random);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const calls = req.method === 'POST' ? methodsOf(body.toString('utf8')) : { ids: [], methods: [], batch: false };
      const rule = calls.methods.length > 0 ? rules.pick(calls.methods) : undefined;
      if (rule !== undefined) return answerFault(rule, calls, res);
      forward(target, options.observe, req, body, res).catch(() => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end('node unreachable');
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, LOOPBACK, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${LOOPBACK}:${port}${target.pathname === '/' ? '/' : target.pathname}`,
    port,
    addFault: (spec) => rules.add(spec),
    clearFaults: () => rules.clear(),
    faults: () => rules.list(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
