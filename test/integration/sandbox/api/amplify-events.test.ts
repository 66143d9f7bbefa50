/**
 * AWS Amplify's own Events client against the sandbox's AppSync Events WebSocket, as a client nobody here
 * wrote: the sandbox's API server speaks TLS with a self-signed certificate made here (Amplify connects to
 * wss:// only), and Amplify runs in a child process on Node 24 that trusts that certificate through
 * NODE_EXTRA_CA_CERTS. Amplify derives the realtime URL (`<endpoint>/realtime`), writes the authorization
 * header subprotocol, runs connection_init / connection_ack, subscribes and decodes the data envelope; with
 * a wrong API key it reports the connection refused.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestFaults } from '../../../../src/sandbox/api/faults.ts';
import { startApiServer, type ApiServer } from '../../../../src/sandbox/api/http-server.ts';
import { MarketDataServer } from '../../../../src/sandbox/api/ws-server.ts';
import { FIRST_PAIR, firstPairState } from '../../../support/sandbox/venue-state.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const NODE = fileURLToPath(new URL('../../../../node_modules/.bin/node', import.meta.url));
const CLIENT = 'test/support/amplify/events-client.ts';
const API_KEY = 'da2-sandboxkey0123456789';
const symbol = FIRST_PAIR.pair.symbol;

const { state, market } = firstPairState('CONTINUOUS_TRADING', 'START_OF_TRADING_DAY');
const ws = new MarketDataServer({
  state,
  auth: { apiKey: API_KEY, dateHeader: 'x-amz-date', toleranceMs: 300_000 },
  nowMs: () => Date.now(),
  coalesceMs: 20,
  snapshotIntervalMs: 600_000,
  depth: 10,
  keepAliveMs: 60_000,
  connectionTimeoutMs: 300_000,
});
let server: ApiServer;
let dir: string;
let caFile: string;

beforeAll(async () => {
  const pem = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: new Date(Date.now() + 86_400_000),
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  dir = mkdtempSync(join(tmpdir(), 'dltmm-amplify-'));
  caFile = join(dir, 'sandbox-ca.pem');
  writeFileSync(caFile, pem.cert);
  server = await startApiServer({
    port: 0,
    context: { state, accessToken: 'fixed-token-1', nowMs: () => Date.now() },
    faults: new RestFaults(() => 1),
    ws,
    tls: { key: pem.private, cert: pem.cert },
  });
  // A resting buy of 1 at 99.5 on the book.
  market.apply({ type: 'NewBuyOrder', client: '0xabc', orderId: 1n, quantity: 10_000n, price: 995_000n }, 0);
});

afterAll(async () => {
  await ws.close();
  await server?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Runs the Amplify client until it exits; its JSON lines. */
function amplify(apiKey: string, channel: string, count: number): Promise<Record<string, unknown>[]> {
  const child = spawn(NODE, [CLIENT, `${server.origin}/event`, apiKey, channel, String(count)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile, NODE_TLS_REJECT_UNAUTHORIZED: '1' },
  });
  const lines: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout }).on('line', (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
  createInterface({ input: child.stderr }).on('line', (l) => stderr.push(l));
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the Amplify client did not finish: ${JSON.stringify(lines)} ${stderr.join('\n')}`));
    }, 60_000);
    child.once('exit', () => {
      clearTimeout(guard);
      resolve(lines);
    });
  });
}

describe('AWS Amplify Events client against the sandbox', () => {
  it(
    'connects over wss://, subscribes to a market and receives its book as an event',
    { timeout: 90_000 },
    async () => {
      const lines = await amplify(API_KEY, `orderbook/bytradingpair/${symbol}`, 1);
      expect(lines.at(-1)).toEqual({ closed: true });
      expect(lines[0]).toEqual({
        event: {
          id: expect.any(String),
          type: 'data',
          event: {
            channel: 'orderbook',
            data: [
              { symbol, buy: [{ limit: 99.5, totalQuantity: 1, orderCount: 1 }], sell: [], time: expect.any(String) },
            ],
          },
        },
      });
    },
  );

  it('is refused with a wrong API key, as AppSync refuses it', { timeout: 90_000 }, async () => {
    const refusedBefore = ws.refused;
    const lines = await amplify('da2-not-the-key', `orderbook/bytradingpair/${symbol}`, 1);
    expect(lines).toEqual([{ error: expect.stringContaining('UnauthorizedException') }]);
    expect(ws.refused).toBeGreaterThan(refusedBefore);
  });
});
