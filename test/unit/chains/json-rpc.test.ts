import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_RPC_CHANNEL } from '../../../src/chains/json-rpc-http.ts';
import { errorData, httpTransport as evmTransport, rpcFailureOf, safeUrl } from '../../../src/chains/evm/json-rpc.ts';
import { httpTransport as wasmTransport, rpcErrorCode, rpcFailureKind } from '../../../src/chains/wasm/json-rpc.ts';

/** Both chains' transports, seen through each chain's own failure readers. */
const CHAINS = [
  {
    chain: 'A',
    transport: evmTransport,
    kind: (e: unknown) => rpcFailureOf(e)?.kind ?? null,
    code: (e: unknown) => rpcFailureOf(e)?.rpcCode ?? null,
  },
  { chain: 'B', transport: wasmTransport, kind: rpcFailureKind, code: rpcErrorCode },
] as const;

let server: Server;
let url: string;
let authorization: string | undefined;
let connections = 0;
const replies: Record<string, () => [number, string]> = {
  ok: () => [200, JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x1' })],
  revert: () => [
    200,
    JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: 3, message: 'execution reverted', data: '0xfb8f41b2' } }),
  ],
  nested: () => [
    200,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: 'reverted', data: { data: '0x08c379a0' } },
    }),
  ],
  html: () => [502, '<html>bad gateway</html>'],
  garbled: () => [200, '<html>not a JSON-RPC answer</html>'],
  empty: () => [200, JSON.stringify({ jsonrpc: '2.0', id: 1 })],
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    authorization = req.headers.authorization;
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { method } = JSON.parse(body) as { method: string };
      if (method === 'hang') return;
      if (method === 'cut') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' }).write('{"jsonrpc":');
        setImmediate(() => res.socket?.destroy());
        return;
      }
      const [status, text] = (replies[method] ?? replies.ok)!();
      res.writeHead(status, { 'content-type': 'application/json' }).end(text);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://user:secret@127.0.0.1:${(server.address() as AddressInfo).port}/rpc?apikey=k`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

describe.each(CHAINS)('chain $chain JSON-RPC transport', ({ transport, kind, code }) => {
  it('sends URL credentials as Basic authorization and answers the result or the node error code', async () => {
    const send = transport(url, { timeoutMs: 2000 });
    expect(await send('ok', [])).toBe('0x1');
    // Credentials never travel in the request line: they go as Basic authorization.
    expect(authorization).toBe(`Basic ${Buffer.from('user:secret').toString('base64')}`);
    const e = await send('revert', []).catch((x: unknown) => x);
    expect([kind(e), code(e)]).toEqual(['rpc', 3]);
  });

  it('reports unreadable replies and unreachable nodes without the credentials or query of the URL', async () => {
    const send = transport(url, { timeoutMs: 2000 });
    for (const method of ['garbled', 'empty']) {
      const e = (await send(method, []).catch((x: unknown) => x)) as Error;
      expect(kind(e)).toBe('malformed');
      expect(e.message).not.toContain('secret');
    }
    // A proxy's error page is the transport failing, not the node answering something unreadable.
    const gateway = (await send('html', []).catch((x: unknown) => x)) as Error;
    expect([kind(gateway), gateway.message.endsWith('HTTP 502')]).toEqual(['transport', true]);
    const down = (await transport('http://user:secret@127.0.0.1:1/?apikey=k', { timeoutMs: 2000 })('ok', []).catch(
      (x: unknown) => x,
    )) as Error;
    expect(kind(down)).toBe('transport');
    expect(JSON.stringify({ message: down.message, cause: String(down.cause) })).not.toMatch(/secret|apikey/);
  });

  it('gives up on a node that does not answer in time or cuts its reply short, as a transport failure', async () => {
    const send = transport(url, { timeoutMs: 150 });
    const hung = (await send('hang', []).catch((x: unknown) => x)) as Error;
    expect(kind(hung)).toBe('transport');
    expect(hung.message).toContain('no answer within 150 ms');
    const cut = (await transport(url, { timeoutMs: 2000 })('cut', []).catch((x: unknown) => x)) as Error;
    expect(kind(cut)).toBe('transport');
    // The transport still works after both.
    expect(await send('ok', [])).toBe('0x1');
  });

  it('keeps the connection open between calls', async () => {
    const send = transport(url, { timeoutMs: 2000 });
    await send('ok', []);
    const before = connections;
    for (let i = 0; i < 5; i++) expect(await send('ok', [])).toBe('0x1');
    expect(connections).toBe(before);
  });

  it('publishes every request it writes to the diagnostics channel, for a probe in the process', async () => {
    const seen: unknown[] = [];
    const listener = (m: unknown) => seen.push(JSON.parse((m as { body: string }).body));
    subscribe(JSON_RPC_CHANNEL, listener);
    try {
      const send = transport(url, { timeoutMs: 2000 });
      await send('ok', ['a']);
      await send('revert', []).catch(() => undefined);
    } finally {
      unsubscribe(JSON_RPC_CHANNEL, listener);
    }
    expect(seen).toMatchObject([
      { method: 'ok', params: ['a'] },
      { method: 'revert', params: [] },
    ]);
  });
});

describe('chain A JSON-RPC failures', () => {
  it('carry the revert data, flat or nested', async () => {
    const send = evmTransport(url, { timeoutMs: 2000 });
    const revert = await send('revert', []).catch((e: unknown) => rpcFailureOf(e));
    expect(revert).toMatchObject({ kind: 'rpc', rpcCode: 3, rpcMessage: 'execution reverted', data: '0xfb8f41b2' });
    expect(await send('nested', []).catch((e: unknown) => rpcFailureOf(e)?.data)).toBe('0x08c379a0');
    expect(safeUrl(url)).toBe(`http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`);
    expect(errorData({ data: 'nothex' })).toBeNull();
  });
});
