/**
 * The client side of rpc-transport.bench.ts, run in a fresh process per variant so that each starts from an
 * empty heap: sends `calls` JSON-RPC calls (four at a time) to `url` and prints one JSON line with the call
 * rate, the peak committed heap and RSS, the full (mark-compact) collections and the heap left after them.
 * Variant `node-http` is the chain transport of src/chains/json-rpc-http.ts; `fetch` is the same call through
 * WHATWG fetch with an `AbortSignal.timeout`, as the transport used to make it.
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { jsonRpcOverHttp } from '../../src/chains/json-rpc-http.ts';

const [variant, url, callsArg] = process.argv.slice(2) as [string, string, string];
const calls = Number(callsArg);
const TIMEOUT_MS = 10_000;

function viaFetch(target: string): (method: string, params: unknown) => Promise<unknown> {
  let id = 0;
  return async (method, params) => {
    const res = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    return (JSON.parse(await res.text()) as { result: unknown }).result;
  };
}

const send =
  variant === 'fetch'
    ? viaFetch(url)
    : jsonRpcOverHttp(
        url,
        { timeoutMs: TIMEOUT_MS },
        (method, kind, message) => new Error(`${method} ${kind}: ${message}`),
      );
let majors = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
}).observe({ entryTypes: ['gc'] });
let peakHeap = 0;
let peakRss = 0;
const sample = () => {
  const m = process.memoryUsage();
  peakHeap = Math.max(peakHeap, m.heapTotal);
  peakRss = Math.max(peakRss, m.rss);
};
const sampler = setInterval(sample, 20);
const t0 = performance.now();
let next = 0;
async function lane(): Promise<void> {
  while (next < calls) {
    next++;
    await send('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2' }]);
  }
}
await Promise.all([lane(), lane(), lane(), lane()]);
const seconds = (performance.now() - t0) / 1000;
sample();
clearInterval(sampler);
(globalThis as { gc?: () => void }).gc?.();
await new Promise((r) => setTimeout(r, 50));
console.log(
  JSON.stringify({
    callsPerSecond: calls / seconds,
    peakHeapMiB: peakHeap / 2 ** 20,
    peakRssMiB: peakRss / 2 ** 20,
    majors,
    liveMiB: process.memoryUsage().heapUsed / 2 ** 20,
  }),
);
