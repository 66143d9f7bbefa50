/**
 * A transaction that reverted on chain is replayed (`eth_call` at its block) to read why. A replay the node did
 * not answer is asked again, so that a cancel that met an order already gone reads as that, not as an
 * unexplained revert.
 */
import { describe, expect, it } from 'vitest';
import { errorsInterface } from '../../../../src/chains/evm/abi.ts';
import { rpcFailure } from '../../../../src/chains/evm/json-rpc.ts';
import { outcomeOfReceipt, type MinedCommand, type OutcomeDeps } from '../../../../src/chains/evm/receipt-outcome.ts';
import type { EvmRpc, Receipt } from '../../../../src/chains/evm/rpc-client.ts';
import { silentLogger } from '../../../../src/telemetry/logger.ts';

const WALLET = '0x5174c2b8cb5aaed0303ce69793dc3f1ee00de8df';
const notFound = errorsInterface.encodeErrorResult('OrderBook_OrderNotFound', []);
const receipt: Receipt = {
  txHash: `0x${'ab'.repeat(32)}`,
  blockNumber: 354n,
  blockHash: `0x${'cd'.repeat(32)}`,
  status: 0,
  gasUsed: 40_000n,
  logs: [],
};
const command: MinedCommand = {
  kind: 'cancel',
  nonce: 7n,
  payload: { to: '0x000000000000000000000000000000000000b00c', data: '0x1234', value: 0n, gasLimit: 200_000n },
  cancelledBySelfTransfer: false,
  context: { orderId: '137' },
};

/** A node whose replays fail `dropped` times in transport before answering with the revert. */
function deps(dropped: number): { deps: OutcomeDeps; calls: bigint[] } {
  const calls: bigint[] = [];
  const rpc = {
    call: (_tx: unknown, at: bigint) => {
      calls.push(at);
      if (calls.length <= dropped) return Promise.reject(rpcFailure('eth_call', 'transport', 'socket hang up'));
      return Promise.reject(rpcFailure('eth_call', 'rpc', 'execution reverted', { rpcCode: 3, data: notFound }));
    },
  } as unknown as EvmRpc;
  return { deps: { rpc, blocks: null as never, metrics: null, logger: silentLogger(), wallet: WALLET }, calls };
}

describe('the reason of a revert, replayed', () => {
  it('is read although the node dropped the first replays, and a cancel that met an order gone says so', async () => {
    const { deps: d, calls } = deps(3);
    const outcome = await outcomeOfReceipt(receipt, command, { wallet: WALLET } as never, d);
    expect(outcome).toMatchObject({ kind: 'rejected', included: true, error: { code: 'E_VENUE_ORDER_NOT_FOUND' } });
    expect(calls).toEqual([354n, 354n, 354n, 354n]);
  });

  it('gives up on a block the node never answers and replays the one before', async () => {
    const { deps: d, calls } = deps(4);
    const outcome = await outcomeOfReceipt(receipt, command, { wallet: WALLET } as never, d);
    expect(outcome).toMatchObject({ kind: 'rejected', error: { code: 'E_VENUE_ORDER_NOT_FOUND' } });
    expect(calls).toEqual([354n, 354n, 354n, 354n, 353n]);
  });
});
