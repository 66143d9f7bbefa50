import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Interface } from 'ethers';
import { transportsOf, rpcFailureOf } from '../../../src/chains/evm/json-rpc.ts';
import { EvmReader } from '../../../src/chains/evm/reads.ts';
import { FeeOracle } from '../../../src/chains/evm/fee-oracle.ts';
import { resolveOptions } from '../../../src/chains/evm/options.ts';
import { EvmRpc } from '../../../src/chains/evm/rpc-client.ts';

const WALLET = '0x00000000000000000000000000000000000000aa';
const erc20 = new Interface(['function balanceOf(address) view returns (uint256)']);
/** The token whose `balanceOf` the node refuses. */
const BROKEN = '0x00000000000000000000000000000000000000bb';

interface Call {
  readonly id: number;
  readonly method: string;
  readonly params: readonly unknown[];
}

let server: Server;
let url: string;
/** Every HTTP request's body as it arrived. */
let requests: unknown[] = [];
/** How the node answers a batch: as it should, with one invalid-request error, or (a proxy) with an HTTP error page. */
let batches: 'taken' | 'refused' | 'http' = 'taken';

/** A chain A node: the wallet holds 1000 of every token plus its last address byte, and 5 ether. */
function answer(c: Call) {
  if (c.method === 'eth_getBalance') return { jsonrpc: '2.0', id: c.id, result: '0x5' };
  if (c.method === 'eth_feeHistory')
    return {
      jsonrpc: '2.0',
      id: c.id,
      result: { oldestBlock: '0x1', baseFeePerGas: ['0x7', '0x8'], gasUsedRatio: [0.5] },
    };
  // This node does not know the priority fee suggestion.
  if (c.method === 'eth_maxPriorityFeePerGas')
    return { jsonrpc: '2.0', id: c.id, error: { code: -32601, message: 'method not found' } };
  const { to } = c.params[0] as { to: string };
  if (to === BROKEN) return { jsonrpc: '2.0', id: c.id, error: { code: 3, message: 'execution reverted' } };
  const amount = 1000n + BigInt(`0x${to.slice(-2)}`);
  return { jsonrpc: '2.0', id: c.id, result: erc20.encodeFunctionResult('balanceOf', [amount]) };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const parsed = JSON.parse(body) as Call | Call[];
      requests.push(parsed);
      if (Array.isArray(parsed) && batches === 'http') return res.writeHead(400).end('<html>bad request</html>');
      const reply = !Array.isArray(parsed)
        ? answer(parsed)
        : batches === 'taken'
          ? parsed.map(answer).toReversed()
          : { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

beforeEach(() => {
  requests = [];
  batches = 'taken';
});

function reader() {
  const t = transportsOf({ rpcUrl: url }, 5_000);
  const logger = pino({ level: 'silent' });
  const rpc = new EvmRpc(t.single, null, logger);
  return new EvmReader(rpc, WALLET, logger, rpc.withTransport(t.gathering));
}

const token = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

describe('chain A wallet balances in one JSON-RPC batch', () => {
  it('reads every token and the native balance in one request, each answer matched by its id', async () => {
    const tokens = [1, 2, 3, 4, 5, 6].map(token);
    const w = await reader().walletBalances(tokens);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toHaveLength(7);
    expect([...w.tokens]).toEqual(tokens.map((t, i) => [t, 1001n + BigInt(i)]));
    expect(w).toMatchObject({ native: 5n, failed: new Map() });
  });

  it('a token the node refuses fails alone; the others and the native balance are read in the same request', async () => {
    const w = await reader().walletBalances([token(1), BROKEN]);
    expect(requests).toHaveLength(1);
    expect([...w.tokens]).toEqual([[token(1), 1001n]]);
    expect(rpcFailureOf(w.failed.get(BROKEN))).toMatchObject({
      kind: 'rpc',
      rpcMessage: expect.stringContaining('balanceOf'),
    });
  });

  it.each(['refused', 'http'] as const)(
    'a node that does not take batches (%s) is asked one call at a time, from then on without trying a batch first',
    async (how) => {
      batches = how;
      const r = reader();
      const first = await r.walletBalances([token(1), token(2)]);
      expect(first.tokens.get(token(2))).toBe(1002n);
      expect(requests.map((b) => Array.isArray(b))).toEqual([true, false, false, false]);
      requests = [];
      await r.walletBalances([token(1), token(2)]);
      expect(requests.map((b) => Array.isArray(b))).toEqual([false, false, false]);
    },
  );

  it("the fee suggestion's base fee and priority fee are asked in one request; a suggestion the node lacks fails alone", async () => {
    const t = transportsOf({ rpcUrl: url }, 5_000);
    const logger = pino({ level: 'silent' });
    const fees = resolveOptions({ rpcUrl: url, chainId: 1n, privateKey: '', journal: null as never }).fees;
    const oracle = new FeeOracle(new EvmRpc(t.gathering, null, logger), fees, { now: () => 0 }, logger);
    expect(await oracle.suggest()).toEqual({ maxFeePerGas: 16n, maxPriorityFeePerGas: 0n });
    expect(requests).toEqual([[expect.objectContaining({ method: 'eth_feeHistory' }), expect.anything()]]);
  });

  it('a call made alone leaves as itself, not as a batch of one', async () => {
    const t = transportsOf({ rpcUrl: url }, 5_000);
    await expect(t.gathering('eth_getBalance', [WALLET, 'latest'])).resolves.toBe('0x5');
    expect(requests).toEqual([expect.objectContaining({ method: 'eth_getBalance' })]);
  });

  it('no answer at all fails every call of the batch as a transport failure', async () => {
    const t = transportsOf({ rpcUrl: 'http://127.0.0.1:1/' }, 5_000);
    const calls = await Promise.allSettled([t.gathering('eth_getBalance', []), t.gathering('eth_chainId', [])]);
    expect(calls.map((c) => (c.status === 'rejected' ? rpcFailureOf(c.reason)?.kind : c.status))).toEqual([
      'transport',
      'transport',
    ]);
  });
});
