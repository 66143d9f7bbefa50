/**
 * Chain A as the node records it, read after the run (the order book logs are read by `LiveBooks`): every transaction our
 * wallet sent in the run's blocks with its receipt (status 0 = reverted; the revert data comes from
 * `debug_traceTransaction`, which re-executes the transaction in its own block, and is decoded by the project's
 * error decoder), and every token movement out of our wallet (what drew on an approval).
 */
import { Interface, toQuantity, zeroPadValue } from 'ethers';
import { loadArtifacts } from '../../src/sandbox/evm/compile.ts';
import { rpc } from '../../src/sandbox/evm/node.ts';
import { decodeEvmCall, evmReason, type PairIndex } from './calls.ts';
import type { ChainTx, Draw } from './model.ts';

const TRANSFER = new Interface(loadArtifacts().contracts.EMoneyToken.abi as never).getEvent('Transfer')
  ?.topicHash as string;
const RANGE = 2_000;

interface RawLog {
  readonly address: string;
  readonly topics: string[];
  readonly data: string;
  readonly blockNumber: string;
  readonly logIndex: string;
  readonly transactionHash: string;
  readonly transactionIndex: string;
}

export interface EvmRecord {
  readonly txs: ChainTx[];
  readonly draws: Draw[];
}

async function logs(
  url: string,
  filter: { address: string[]; topics?: (string | null)[] },
  from: number,
  to: number,
): Promise<RawLog[]> {
  const out: RawLog[] = [];
  for (let a = from; a <= to; a += RANGE) {
    const b = Math.min(to, a + RANGE - 1);
    out.push(
      ...((await rpc(url, 'eth_getLogs', [
        { ...filter, fromBlock: toQuantity(a), toBlock: toQuantity(b) },
      ])) as RawLog[]),
    );
  }
  return out.toSorted(
    (x, y) => Number(BigInt(x.blockNumber) - BigInt(y.blockNumber)) || Number(BigInt(x.logIndex) - BigInt(y.logIndex)),
  );
}

export async function readEvm(o: {
  url: string;
  index: PairIndex;
  wallet: string;
  tokens: readonly string[];
  fromBlock: number;
  toBlock: number;
}): Promise<EvmRecord> {
  const wallet = o.wallet.toLowerCase();
  const txs: ChainTx[] = [];
  const targets = new Map<string, string>();
  for (let n = o.fromBlock + 1; n <= o.toBlock; n++) {
    const block = (await rpc(o.url, 'eth_getBlockByNumber', [toQuantity(n), true])) as {
      transactions: Array<{ hash: string; from: string; to: string | null; input: string; transactionIndex: string }>;
    };
    for (const tx of block.transactions) {
      if (tx.from.toLowerCase() !== wallet) continue;
      targets.set(tx.hash, (tx.to ?? '').toLowerCase());
      const receipt = (await rpc(o.url, 'eth_getTransactionReceipt', [tx.hash])) as { status: string };
      const success = BigInt(receipt.status) === 1n;
      const selfTransfer = (tx.to ?? '').toLowerCase() === wallet;
      const d = selfTransfer
        ? { call: 'other' as const, fn: 'self-transfer (nonce cancelled)', pairId: null, orderId: null, approval: null }
        : decodeEvmCall(o.index, tx.to, tx.input);
      let reason: { code: string; name: string } | null = null;
      if (!success) {
        const trace = (await rpc(o.url, 'debug_traceTransaction', [
          tx.hash,
          { disableStorage: true, disableMemory: true, disableStack: true },
        ])) as { returnValue?: string };
        const data =
          trace.returnValue === undefined || trace.returnValue === ''
            ? null
            : trace.returnValue.startsWith('0x')
              ? trace.returnValue
              : `0x${trace.returnValue}`;
        reason = evmReason(data);
      }
      txs.push({
        chain: 'evm',
        hash: tx.hash,
        height: n,
        index: Number(BigInt(tx.transactionIndex)),
        ...d,
        success,
        code: selfTransfer ? 'E_CHAIN_TX_EXPIRED' : (reason?.code ?? null),
        name: selfTransfer ? 'nonce cancelled by a self-transfer' : (reason?.name ?? null),
      });
    }
  }

  const draws: Draw[] = [];
  for (const log of await logs(
    o.url,
    { address: [...o.tokens], topics: [TRANSFER, zeroPadValue(wallet, 32)] },
    o.fromBlock + 1,
    o.toBlock,
  )) {
    let spender = targets.get(log.transactionHash);
    if (spender === undefined) {
      const tx = (await rpc(o.url, 'eth_getTransactionByHash', [log.transactionHash])) as { to: string | null };
      spender = (tx.to ?? '').toLowerCase();
      targets.set(log.transactionHash, spender);
    }
    draws.push({
      chain: 'evm',
      token: log.address.toLowerCase(),
      spender,
      height: Number(BigInt(log.blockNumber)),
      index: Number(BigInt(log.transactionIndex)),
    });
  }
  return { txs, draws };
}
