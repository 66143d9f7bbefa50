/**
 * A short smoke of the soak's pieces on a real sandbox (the full soak is `npm run soak`): the RPC recorder in
 * front of chain A sees a participant's transactions with their decoded calls, the chain A record decodes a
 * mined revert through the node's own trace, unused approvals are found on real data, and the live book replay
 * of every participant's events agrees with both chains' own views of the books.
 */
import { MaxUint256 } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractAt, sandboxProvider } from '../../src/sandbox/evm/chain.ts';
import { EvmSender } from '../../src/sandbox/venue/evm-sender.ts';
import { startSandbox, type Sandbox } from '../../src/sandbox/venue/start.ts';
import { unusedApprovals } from './analysis.ts';
import { restingAt } from './book-replay.ts';
import { decodeEvmCall, PairIndex } from './calls.ts';
import { readEvm } from './evm-record.ts';
import { LiveBooks } from './live-books.ts';
import { RpcRecorder } from './rpc-record.ts';
import { Timeline } from './timeline.ts';

let sandbox: Sandbox;
let timeline: Timeline;
let recorder: RpcRecorder;

beforeAll(async () => {
  sandbox = await startSandbox({
    ports: { api: 0, evm: 0, wasm: 0 },
    evm: { blockTimeMs: 250 },
    wasm: { ledgerIntervalMs: 500 },
    flow: { enabled: true, takerIntervalMs: 500, makerTickMs: 500 },
    manifest: false,
  });
  timeline = new Timeline(sandbox);
  await timeline.start();
}, 120_000);

afterAll(async () => {
  timeline?.stop();
  await recorder?.stop();
  await sandbox?.stop();
});

describe('soak pieces on a real sandbox', () => {
  it('records a participant’s chain A transactions, decodes a mined revert and finds an approval nothing used', async () => {
    const m = sandbox.manifest;
    const trader = m.wallets.find((w) => w.name === 'evm-trader');
    const pair = m.pairs.find((p) => p.chain === 'evm');
    if (trader === undefined || pair === undefined)
      throw new Error('the sandbox has no evm-trader wallet or chain A pair');
    const index = new PairIndex(sandbox);
    recorder = new RpcRecorder(index, { passphrase: m.chains.wasm.networkPassphrase, evmWallet: trader.address });
    const urls = await recorder.start({ evm: m.chains.evm.rpcUrl, wasm: m.chains.wasm.rpcUrl });
    const from = timeline.head.evm;
    const sender = new EvmSender({
      rpcUrl: urls.evm,
      privateKey: trader.key,
      chainId: m.chains.evm.chainId,
      pollMs: 50,
    });
    const provider = sandboxProvider(sandbox.evmNode.rpcUrl);
    try {
      const approve = contractAt('EMoneyToken', pair.quoteToken.hex, provider).interface.encodeFunctionData('approve', [
        pair.orderBook.hex,
        MaxUint256,
      ]);
      const cancel = contractAt('OrderBook', pair.orderBook.hex, provider).interface.encodeFunctionData(
        'cancelBuyOrder',
        [999_999n],
      );
      const approved = await sender.send(pair.quoteToken.hex, approve, 200_000n);
      const cancelled = await sender.send(pair.orderBook.hex, cancel, 200_000n);
      expect([approved.status, cancelled.status]).toEqual([true, false]);
      expect(decodeEvmCall(index, pair.orderBook.hex, cancel)).toEqual({
        call: 'cancel',
        fn: 'cancelBuyOrder',
        pairId: pair.id,
        orderId: '999999',
        approval: null,
      });

      // A simulation of the same cancel through the recorder is written down with its decoded revert.
      const simulated = await fetch(urls.evm, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'eth_call',
          params: [{ from: trader.address, to: pair.orderBook.hex, data: cancel }, 'latest'],
        }),
      });
      expect(((await simulated.json()) as { error?: unknown }).error).toBeDefined();
      expect(recorder.evmSimulations.map((c) => [c.call, c.orderId, c.ok, c.code])).toEqual([
        ['cancel', '999999', false, 'E_VENUE_ORDER_NOT_FOUND'],
      ]);

      expect(recorder.calls.map((c) => [c.hash, c.call, c.orderId, c.ok])).toEqual([
        [approved.hash, 'approve', null, true],
        [cancelled.hash, 'cancel', '999999', true],
      ]);
      await timeline.pass({ evm: 1, wasm: 0 });
      const record = await readEvm({
        url: sandbox.evmNode.rpcUrl,
        index,
        wallet: trader.address,
        tokens: [pair.quoteToken.hex.toLowerCase()],
        fromBlock: from,
        toBlock: timeline.head.evm,
      });
      expect(record.txs.map((t) => [t.hash, t.call, t.success, t.code, t.name])).toEqual([
        [approved.hash, 'approve', true, null, null],
        [cancelled.hash, 'cancel', false, 'E_VENUE_ORDER_NOT_FOUND', 'OrderBook_OrderNotFound'],
      ]);
      // The trader approved and placed nothing: nothing used its approval.
      expect(unusedApprovals(record.txs, record.draws).map((t) => t.hash)).toEqual([approved.hash]);
    } finally {
      sender.stop();
      provider.destroy();
    }
  }, 60_000);

  it('the live replay of every event agrees with both chains’ own views of the books', async () => {
    const m = sandbox.manifest;
    const makers = { evm: m.simulatedTraders.find((t) => t.name === 'flow-maker-evm')?.address as string, wasm: '' };
    const wasmPair = m.pairs.find((p) => p.chain === 'wasm');
    makers.wasm = m.simulatedTraders.find((t) => t.name === `flow-maker-bid-${wasmPair?.id}`)?.address as string;
    const live = new LiveBooks(sandbox, makers);
    // Let the market trade for a while, then compare at one block and one ledger.
    await timeline.pass({ evm: 8, wasm: 4 });
    const ledger = sandbox.emulator.latest.seq;
    const wasmBook = [...m.pairs.filter((p) => p.chain === 'wasm')].flatMap((p) => {
      const book = sandbox.deployed.wasmBooks.get(p.id)?.book.book;
      return [...(book?.buys ?? []), ...(book?.sells ?? [])]
        .filter((o) => o.wallet === makers.wasm)
        .map((o) => `${p.id}:${o.id}`);
    });
    const block = timeline.head.evm;
    await live.catchUp({ evm: block, wasm: ledger });
    const provider = sandboxProvider(sandbox.evmNode.rpcUrl);
    const evmBook: string[] = [];
    try {
      for (const p of m.pairs.filter((x) => x.chain === 'evm')) {
        const book = contractAt('OrderBook', p.orderBook.hex, provider);
        for (const side of [1, 2]) {
          for (const id of (await book.getFunction('getOrderIds')(side, 1000, { blockTag: block })) as bigint[]) {
            const [client] = (await book.getFunction('getOrder')(id, { blockTag: block })) as [string];
            if (client.toLowerCase() === makers.evm.toLowerCase()) evmBook.push(`${p.id}:${id}`);
          }
        }
      }
    } finally {
      provider.destroy();
    }
    const orders = [...live.replay.orders.values()];
    const replayed = (chain: 'evm' | 'wasm', h: number) =>
      restingAt(orders, chain, h)
        .map((o) => `${o.pairId}:${o.orderId}`)
        .toSorted();
    expect(evmBook.length).toBeGreaterThan(0);
    expect(replayed('evm', block)).toEqual(evmBook.toSorted());
    expect(replayed('wasm', ledger)).toEqual(wasmBook.toSorted());
    // Others (the takers) changed the books while we watched.
    expect([...live.replay.changes.values()].some((heights) => heights.length > 0)).toBe(true);
  }, 60_000);
});
