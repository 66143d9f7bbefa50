/**
 * Counts a process's HTTP requests to each chain's RPC endpoint as Node itself sees them leave: every
 * `node:http(s)` request (`http.client.request.start`, Node's own diagnostics channel) and every WHATWG fetch
 * (`undici:request:create`), by the `host:port` it goes to, whoever made it. What the requests asked for comes
 * from the bodies the project's JSON-RPC transport publishes (`JSON_RPC_CHANNEL`): methods by name, chain A
 * reads by function selector, each member of a batch counted. A request the transport did not write shows
 * as the difference between `requests` and `transportRequests`. It only listens; nothing is changed.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { JSON_RPC_CHANNEL } from '../../../src/chains/json-rpc-http.ts';

export interface EndpointCounts {
  /** HTTP requests that left the process for this endpoint (any client). */
  requests: number;
  /** Of those, the ones the JSON-RPC transport wrote. */
  transportRequests: number;
  /** JSON-RPC calls by method (`eth_call 0x<selector>` for chain A reads). */
  readonly methods: Record<string, number>;
  /** The transport's requests by what they carried: a method, or `batch of <methods>` (each method once). */
  readonly shapes: Record<string, number>;
}

export type RpcCounts = Record<string, EndpointCounts>;

export interface RpcCounter {
  read(): RpcCounts;
  stop(): void;
}

const HTTP_START = 'http.client.request.start';
const FETCH_CREATE = 'undici:request:create';

export function methodsOf(body: unknown): string[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((r) => {
      const request = r as { method?: unknown; params?: Array<{ data?: unknown }> };
      if (typeof request.method !== 'string') return [];
      const data = request.params?.[0]?.data;
      return [
        request.method === 'eth_call' && typeof data === 'string' ? `eth_call ${data.slice(0, 10)}` : request.method,
      ];
    });
  } catch {
    return [];
  }
}

/** `host:port` of a URL, the port spelled out, as requests are matched against it. */
function hostPort(url: URL): string {
  const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port;
  return `${url.hostname}:${port}`;
}

/** What one request carried: its method, or `batch of a+b` (a batch's distinct methods, sorted). */
export function shapeOf(body: unknown, methods: readonly string[]): string {
  const batch = typeof body === 'string' && body.trimStart().startsWith('[');
  return batch ? `batch of ${[...new Set(methods)].toSorted().join('+')}` : (methods[0] ?? 'unknown');
}

function hostOfRequest(request: ClientRequest): string | null {
  const header = request.getHeader('host');
  if (typeof header !== 'string') return null;
  return hostPort(new URL(`${request.protocol}//${header}`));
}

/** Counts the requests to each named endpoint (`{ evm: 'http://127.0.0.1:8545' }`) until `stop()`. */
export function countRpcRequests(endpoints: Readonly<Record<string, string>>): RpcCounter {
  const byHost = new Map<string, EndpointCounts>();
  const counts: RpcCounts = {};
  for (const [name, url] of Object.entries(endpoints)) {
    const c: EndpointCounts = { requests: 0, transportRequests: 0, methods: {}, shapes: {} };
    counts[name] = c;
    byHost.set(hostPort(new URL(url)), c);
  }
  const onHttp = (message: unknown) => {
    const host = hostOfRequest((message as { request: ClientRequest }).request);
    const c = host === null ? undefined : byHost.get(host);
    if (c !== undefined) c.requests += 1;
  };
  const onFetch = (message: unknown) => {
    const origin = (message as { request: { origin?: unknown } }).request.origin;
    const c = typeof origin === 'string' ? byHost.get(hostPort(new URL(origin))) : undefined;
    if (c !== undefined) c.requests += 1;
  };
  const onTransport = (message: unknown) => {
    const m = message as { host?: unknown; body?: unknown };
    const c = typeof m.host === 'string' ? byHost.get(hostPort(new URL(`http://${m.host}`))) : undefined;
    if (c === undefined) return;
    c.transportRequests += 1;
    const methods = methodsOf(m.body);
    for (const method of methods) c.methods[method] = (c.methods[method] ?? 0) + 1;
    const shape = shapeOf(m.body, methods);
    c.shapes[shape] = (c.shapes[shape] ?? 0) + 1;
  };
  subscribe(HTTP_START, onHttp);
  subscribe(FETCH_CREATE, onFetch);
  subscribe(JSON_RPC_CHANNEL, onTransport);
  return {
    read: () => structuredClone(counts),
    stop: () => {
      unsubscribe(HTTP_START, onHttp);
      unsubscribe(FETCH_CREATE, onFetch);
      unsubscribe(JSON_RPC_CHANNEL, onTransport);
    },
  };
}
