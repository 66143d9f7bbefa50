import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpExchange } from '../../../src/sandbox/net.ts';

let server: Server;
let base: string;
let connections = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/cut') {
        res.writeHead(200, { 'content-length': '100' }).write('{"partial":');
        setImmediate(() => res.socket?.destroy());
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      res
        .writeHead(req.url === '/teapot' ? 418 : 200, { 'content-type': 'application/x-echo' })
        .end(JSON.stringify({ method: req.method, type: req.headers['content-type'] ?? null, body }));
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

describe('httpExchange (the sandbox parts talking to each other)', () => {
  it('sends method, content type and body, and answers status, content type and body as sent', async () => {
    const a = await httpExchange(new URL(`${base}/teapot`), {
      method: 'POST',
      contentType: 'application/json',
      body: Buffer.from('{"x":1}'),
    });
    expect(a.status).toBe(418);
    expect(a.contentType).toBe('application/x-echo');
    expect(JSON.parse(a.body.toString('utf8'))).toEqual({ method: 'POST', type: 'application/json', body: '{"x":1}' });
    const g = await httpExchange(new URL(`${base}/friendbot?addr=G`), { method: 'GET' });
    expect(JSON.parse(g.body.toString('utf8'))).toEqual({ method: 'GET', type: null, body: '' });
  });

  it('rejects a reply cut short, and keeps one connection for consecutive exchanges', async () => {
    await expect(httpExchange(new URL(`${base}/cut`), { method: 'GET' })).rejects.toThrow(
      /aborted|closed before the reply was complete/,
    );
    await httpExchange(new URL(`${base}/`), { method: 'GET' });
    const before = connections;
    for (let i = 0; i < 5; i++)
      await httpExchange(new URL(`${base}/`), { method: 'POST', body: Buffer.from(String(i)) });
    expect(connections).toBe(before);
  });
});
