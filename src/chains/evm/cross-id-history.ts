/**
 * The cross identifiers of every order the wallet ever sent to the books: the `OrderReceived` events whose
 * client (topic 1) is the wallet, from the books' first block (`chains.evm.historyFromBlock`, default 0) to the
 * head, in bounded ranges (`maxBlockRange` blocks a query: on a long chain, set the books' deployment block). A bot starting on
 * a fresh state file reads them to start its identifiers above every one it handed out before.
 */
import type { PairBinding } from '../types.ts';
import { unlessMalformed } from '../unless-malformed.ts';
import { addressTopic, TOPICS } from './abi.ts';
import { rpcFailure } from './json-rpc.ts';
import { decodeContextOf, decodeLog, Malformed, parseRawLog } from './log-decoder.ts';
import type { EvmRpc } from './rpc-client.ts';

export async function crossIdentifiersOnChain(
  rpc: EvmRpc,
  pairs: readonly PairBinding[],
  wallet: string,
  options: { readonly maxBlockRange: number; readonly historyFromBlock: bigint },
): Promise<bigint[]> {
  const head = await rpc.block('latest');
  if (head === null) throw rpcFailure('eth_getBlockByNumber', 'malformed', 'the node has no latest block');
  const ctx = decodeContextOf(pairs, wallet);
  const books = [...new Set(pairs.map((p) => p.orderBook))];
  const topics = [TOPICS.OrderReceived, addressTopic(wallet)];
  const ids: bigint[] = [];
  const range = BigInt(options.maxBlockRange);
  for (let from = options.historyFromBlock; from <= head.number; from += range) {
    const to = from + range - 1n < head.number ? from + range - 1n : head.number;
    for (const raw of await rpc.logs({ fromBlock: from, toBlock: to, address: books, topics })) {
      const e = unlessMalformed(Malformed, () => decodeLog(parseRawLog(raw), ctx, 0));
      if (e?.type === 'OrderReceived') ids.push(e.crossIdentifier);
    }
  }
  return ids;
}
