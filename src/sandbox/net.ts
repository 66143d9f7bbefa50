/** Loopback networking helpers shared by the sandbox parts and the tests. */
import { request } from 'node:http';
import { createServer } from 'node:net';

export const LOOPBACK = '127.0.0.1';

/** A TCP port that is free on the loopback interface right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, LOOPBACK, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface HttpAnswer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: Buffer;
}

/**
 * One HTTP exchange with a local part (the chain A node, the emulator's RPC) through node:http and its
 * keep-alive agent. Not WHATWG fetch: fetch ties each request's objects to WeakRefs and finalization
 * registries, which the young-generation collector keeps alive, so at the indexer's and the RPC proxy's call
 * rates every call's garbage was promoted and the heap grew to several times its live size.
 */
export function httpExchange(
  url: URL,
  init: { readonly method: string; readonly contentType?: string; readonly body?: Buffer },
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (init.contentType !== undefined) headers['content-type'] = init.contentType;
    if (init.body !== undefined) headers['content-length'] = String(init.body.length);
    const req = request(url, { method: init.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
      res.on('close', () => {
        if (!res.complete) reject(new Error('the connection closed before the reply was complete'));
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
