/** Loopback networking helpers shared by the sandbox parts and the tests. */
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
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
