/**
 * The cross identifiers of every order the wallet sent to the books that the node still retains: the
 * `OrderReceived` events whose client (topic 1) is the wallet, from the oldest retained ledger on. A bot starting
 * on a fresh state file reads them to start its identifiers above every one it handed out before.
 */
import type { PairBinding } from '../types.ts';
import { unlessMalformed } from '../unless-malformed.ts';
import { decodeRpcEvent, EventBindings } from './event-decoder.ts';
import type { WasmRpc } from './rpc-client.ts';
import { encodeScVal, Malformed, scv } from './scval.ts';

/** getEvents takes five filters of five contracts each at most. */
const FIVE = 5;

export async function crossIdentifiersOnChain(
  rpc: WasmRpc,
  pairs: readonly PairBinding[],
  wallet: string,
  pageLimit: number,
): Promise<bigint[]> {
  const { oldestLedger } = await rpc.health();
  const me = encodeScVal(scv.address(wallet));
  const books = [...new Set(pairs.map((p) => p.orderBook))];
  const filters = [];
  for (let i = 0; i < books.length; i += FIVE)
    filters.push({ type: 'contract', contractIds: books.slice(i, i + FIVE), topics: [['*', me, '**']] });
  const bindings = new EventBindings(wallet, pairs);
  const ids: bigint[] = [];
  for (let i = 0; i < filters.length; i += FIVE) {
    let request: { startLedger: number } | { cursor: string } = { startLedger: oldestLedger };
    for (;;) {
      const page = await rpc.events({ ...request, filters: filters.slice(i, i + FIVE), limit: pageLimit });
      for (const raw of page.events) {
        const e = unlessMalformed(Malformed, () => decodeRpcEvent(bindings, raw));
        if (e?.type === 'OrderReceived') ids.push(e.crossIdentifier);
      }
      if (page.events.length < pageLimit) break;
      request = { cursor: page.cursor };
    }
  }
  return ids;
}
