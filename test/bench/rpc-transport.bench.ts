/**
 * The chains' JSON-RPC transport and the heap: the same calls (a 4 KiB `eth_getLogs`-like reply each) over
 * loopback through the transport (node:http with keep-alive) and through WHATWG fetch with a timeout signal,
 * as it used to be made. Each variant runs in a fresh process (rpc-transport-client.ts); the server runs here.
 * What matters for a long-running bot is the committed heap and RSS the call rate needs, and how many full
 * collections it takes: fetch's per-request objects survive young-generation collections and end in the old
 * generation, so the heap grows to several times its live size between full collections.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { fmt, type Row } from './harness.ts';

export const title = 'chain JSON-RPC transport';

const CALLS = 20_000;
const REPLY = JSON.stringify({ jsonrpc: '2.0', id: 1, result: [{ data: `0x${'ab'.repeat(2048)}` }] });

interface Result {
  readonly callsPerSecond: number;
  readonly peakHeapMiB: number;
  readonly peakRssMiB: number;
  readonly majors: number;
  readonly liveMiB: number;
}

function client(variant: string, url: string): Promise<Result> {
  const script = fileURLToPath(new URL('./rpc-transport-client.ts', import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', script, variant, url, String(CALLS)],
      { maxBuffer: 1 << 20 },
      (e, stdout, stderr) => {
        if (e !== null) reject(new Error(`${variant} client failed: ${stderr || e.message}`));
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1) as string) as Result);
      },
    );
  });
}

export async function run(): Promise<Row[]> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(REPLY));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  try {
    // Alternated twice, each run in a fresh process; the better of the two of each variant is reported.
    const runs: Record<string, Result[]> = { 'node-http': [], fetch: [] };
    for (let i = 0; i < 2; i++) for (const v of ['node-http', 'fetch']) runs[v]?.push(await client(v, url));
    const best = (v: string, pick: (r: Result) => number, low: boolean) =>
      (runs[v] as Result[]).map(pick).reduce((a, b) => (low ? Math.min(a, b) : Math.max(a, b)));
    const row = (measure: string, pick: (r: Result) => number, low: boolean, digits = 1): Row => {
      const now = best('node-http', pick, low);
      const before = best('fetch', pick, low);
      return {
        benchmark: title,
        measure,
        value: fmt(now, digits),
        baseline: fmt(before, digits),
        ratio: `${fmt(now / before, 2)}x`,
      };
    };
    return [
      row(
        `peak committed heap, MiB, ${fmt(CALLS)} calls: node:http vs fetch + AbortSignal.timeout`,
        (r) => r.peakHeapMiB,
        true,
      ),
      row('peak RSS, MiB', (r) => r.peakRssMiB, true),
      row('full (mark-compact) collections', (r) => r.majors, true, 0),
      row('heap live after the calls and a full collection, MiB', (r) => r.liveMiB, true),
      row('calls per second', (r) => r.callsPerSecond, false, 0),
    ];
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
}
