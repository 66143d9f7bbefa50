/**
 * The chain A node launcher: a real EDR node in a child process on a loopback port, chain id 80002, automine or
 * interval mining, the JSON-RPC controls tests rely on, clean stop, side-by-side instances, failed starts.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { Wallet, type JsonRpcProvider, type TransactionReceipt } from 'ethers';
import { afterEach, describe, expect, it } from 'vitest';
import { isDltError, type DltError } from '../../../../src/core/errors.ts';
import { fundNative, sandboxProvider, sandboxWallet } from '../../../../src/sandbox/evm/chain.ts';
import { startEvmNode, type EvmNode } from '../../../../src/sandbox/evm/node.ts';
import { LOOPBACK } from '../../../../src/sandbox/net.ts';
import { alive } from '../../../support/processes.ts';

const started: EvmNode[] = [];
const providers: JsonRpcProvider[] = [];
afterEach(async () => {
  for (const p of providers.splice(0)) p.destroy();
  await Promise.all(started.splice(0).map((n) => n.stop()));
});

async function start(
  options: Parameters<typeof startEvmNode>[0] = {},
): Promise<{ node: EvmNode; provider: JsonRpcProvider }> {
  const node = await startEvmNode(options);
  started.push(node);
  const provider = sandboxProvider(node.rpcUrl);
  providers.push(provider);
  return { node, provider };
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, LOOPBACK, () => s.close(() => resolve(true)));
  });
}

/** A self-transfer of 1 wei, the smallest real transaction. */
async function poke(
  provider: JsonRpcProvider,
): Promise<{ hash: string; wait: () => Promise<TransactionReceipt | null> }> {
  const w = sandboxWallet('node test', provider);
  await fundNative(provider, w.address);
  return w.sendTransaction({ to: w.address, value: 1n });
}

/** Waits for the chain to reach a block height (the node mines on its own clock), at most `ms`. */
async function reachBlock(provider: JsonRpcProvider, height: number, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  let n = await provider.getBlockNumber();
  while (n < height && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    n = await provider.getBlockNumber();
  }
  return n;
}

describe('the chain A node launcher', () => {
  it('starts an automining node on 127.0.0.1 with chain id 80002 and the evm_* controls', async () => {
    const { node, provider } = await start();
    expect((await provider.getNetwork()).chainId).toBe(80002n);
    expect(node.rpcUrl).toBe(`http://127.0.0.1:${node.port}/`);
    expect(readFileSync(join(node.instanceDir, 'node.log'), 'utf8')).toContain(
      `server at http://127.0.0.1:${node.port}/`,
    );

    const before = await provider.getBlockNumber();
    const receipt = await (await poke(provider)).wait();
    expect(receipt?.blockNumber).toBe(before + 1);

    const snapshot = (await provider.send('evm_snapshot', [])) as string;
    await provider.send('evm_mine', []);
    expect(await provider.getBlockNumber()).toBe(before + 2);
    expect(await provider.send('evm_revert', [snapshot])).toBe(true);
    expect(await provider.getBlockNumber()).toBe(before + 1);

    const t0 = (await provider.getBlock('latest'))?.timestamp ?? 0;
    await provider.send('evm_increaseTime', [3600]);
    await provider.send('evm_mine', []);
    expect(((await provider.getBlock('latest'))?.timestamp ?? 0) - t0).toBeGreaterThanOrEqual(3600);

    await provider.send('evm_setAutomine', [false]);
    const pending = await poke(provider);
    expect(await provider.getTransactionReceipt(pending.hash)).toBeNull();
    await provider.send('evm_mine', []);
    expect((await provider.getTransactionReceipt(pending.hash))?.status).toBe(1);
    await provider.send('evm_setIntervalMining', [0]);
  });

  it('mines on an interval without transactions, and a transaction waits for the next block', async () => {
    const { provider } = await start({ blockTimeMs: 100 });
    expect(await reachBlock(provider, 3, 10_000)).toBeGreaterThanOrEqual(3);
    // No block is mined for the transaction itself (automine off): it waits for the interval's next block.
    expect(await provider.send('hardhat_getAutomine', [])).toBe(false);
    const tx = await poke(provider);
    expect((await tx.wait())?.status).toBe(1);
  });

  it('runs nodes side by side with separate state; stop ends the process and frees the port', async () => {
    const a = await start();
    const b = await start();
    expect(a.node.port).not.toBe(b.node.port);
    const someone = Wallet.createRandom().address;
    await fundNative(a.provider, someone, 42n);
    expect([await a.provider.getBalance(someone), await b.provider.getBalance(someone)]).toEqual([42n, 0n]);

    await a.node.stop();
    expect(alive(a.node.pid)).toBe(false);
    expect(await portFree(a.node.port)).toBe(true);
    expect(await b.provider.getBlockNumber()).toBe(0);
  });

  it('runs in a process group of its own: a Ctrl-C in the terminal reaches its owner, not the node', async () => {
    const { node, provider } = await start();
    // The group the node leads exists only if the node has a group of its own (a terminal signals the
    // foreground group, which then holds its owner alone).
    expect(() => process.kill(-node.pid, 0)).not.toThrow();
    expect(await provider.getBlockNumber()).toBe(0);
  });

  it('a node that cannot listen fails with E_SANDBOX and leaves no process behind', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, LOOPBACK, resolve));
    const port = (blocker.address() as { port: number }).port;
    let error: DltError | undefined;
    try {
      started.push(await startEvmNode({ port, startTimeoutMs: 30_000 }));
    } catch (e) {
      error = isDltError(e, 'E_SANDBOX') ? e : undefined;
    } finally {
      await new Promise((r) => blocker.close(r));
    }
    expect(error?.details).toMatchObject({ part: 'evm-node', port });
    expect(error?.message).toContain('EADDRINUSE');
    expect(alive(error?.details.pid as number)).toBe(false);
  });

  it('refuses a block time that is not a positive whole number of milliseconds', async () => {
    await expect(startEvmNode({ blockTimeMs: 0.5 })).rejects.toMatchObject({ code: 'E_SANDBOX' });
  });
});
