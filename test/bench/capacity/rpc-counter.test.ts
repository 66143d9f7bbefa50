import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpTransport as evmTransport } from '../../../src/chains/evm/json-rpc.ts';
import { postText } from '../../../src/chains/json-rpc-http.ts';
import { httpTransport as wasmTransport } from '../../../src/chains/wasm/json-rpc.ts';
import { countRpcRequests, methodsOf } from './rpc-counter.ts';

const answer = (r: unknown) => ({ jsonrpc: '2.0', id: (r as { id?: unknown }).id ?? 1, result: '0x1' });

/** A JSON-RPC node on loopback answering every call (and every member of a batch) with `0x1`. */
function node(): Server {
  return createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const parsed = JSON.parse(body === '' ? '{}' : body) as unknown;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed)));
    });
  });
}

const servers: Server[] = [];
const urls: string[] = [];

beforeAll(async () => {
  for (let i = 0; i < 3; i++) {
    const s = node();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    servers.push(s);
    urls.push(`http://127.0.0.1:${(s.address() as AddressInfo).port}/rpc`);
  }
});
afterAll(() =>
  Promise.all(
    servers.map((s) => {
      s.closeAllConnections();
      return new Promise<void>((r) => s.close(() => r()));
    }),
  ),
);

/** One POST through node:http that bypasses the project's transport. */
function plainPost(url: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the capacity benchmark RPC counter', () => {
  it('counts every request made through both chains’ real transports, by endpoint and method', async () => {
    const [evmUrl, wasmUrl, otherUrl] = urls as [string, string, string];
    const counter = countRpcRequests({ evm: evmUrl, wasm: wasmUrl });
    try {
      const evm = evmTransport(evmUrl, { timeoutMs: 2000 });
      const wasm = wasmTransport(wasmUrl, { timeoutMs: 2000 });
      await Promise.all([
        evm('eth_blockNumber', []),
        evm('eth_call', [{ to: '0x00', data: '0x70a08231000000' }, 'latest']),
        evm('eth_sendRawTransaction', ['0x02']),
        wasm('getLatestLedger', {}),
        wasm('sendTransaction', { transaction: 'AAAA' }),
      ]);
      // Another endpoint is not counted; a request the transport did not write is counted as a request.
      await evmTransport(otherUrl, { timeoutMs: 2000 })('eth_blockNumber', []);
      await plainPost(wasmUrl, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'getHealth' }));
      await fetch(evmUrl, { method: 'POST', body: '{}' }).then((r) => r.text());
      // A batch through the transport's POST: one request, each member counted as a call.
      const batch = JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: ['0x00', 'latest'] },
        { jsonrpc: '2.0', id: 2, method: 'eth_getBalance', params: ['0x01', 'latest'] },
      ]);
      await postText(new URL(evmUrl), { 'content-type': 'application/json' }, batch, 2000);
    } finally {
      counter.stop();
    }
    await evmTransport(evmUrl, { timeoutMs: 2000 })('eth_blockNumber', []);
    expect(counter.read()).toEqual({
      evm: {
        requests: 5,
        transportRequests: 4,
        methods: { eth_blockNumber: 1, 'eth_call 0x70a08231': 1, eth_sendRawTransaction: 1, eth_getBalance: 2 },
        shapes: {
          eth_blockNumber: 1,
          'eth_call 0x70a08231': 1,
          eth_sendRawTransaction: 1,
          'batch of eth_getBalance': 1,
        },
      },
      wasm: {
        requests: 3,
        transportRequests: 2,
        methods: { getLatestLedger: 1, sendTransaction: 1 },
        shapes: { getLatestLedger: 1, sendTransaction: 1 },
      },
    });
  });

  it('reads methods from single calls and batches, and nothing from what is not JSON-RPC', () => {
    expect(methodsOf('{"method":"eth_call","params":[{"data":"0xdeadbeef00"}]}')).toEqual(['eth_call 0xdeadbeef']);
    expect(methodsOf('[{"method":"a"},{"method":"b"},{"id":3}]')).toEqual(['a', 'b']);
    expect(methodsOf('not json')).toEqual([]);
    expect(methodsOf(undefined)).toEqual([]);
  });
});
