/**
 * The trade events of other clients' incoming orders that filled resting orders of ours. The follower asks the
 * books for lifecycle events by the `client` topic, so another client's `NewBuyInitiatedTrade` /
 * `NewSellInitiatedTrade` never comes with the transfers its fill caused, and without its execution price the
 * quote a pre-funded resting sell receives can fit two fills. Every transaction in which our tokens moved to
 * or from a followed book needs them, except our own placements and cancellations (the only incoming order of
 * the one is ours, whose trade event is followed already; the other trades nothing). One `eth_getLogs` per
 * block holding such a transaction, by block hash (the block whose header the follower checked, never a
 * replacement of it), asks those books for both trade events; the ones of those transactions are kept.
 */
import type { ChainEvent } from '../types.ts';
import { TOPICS } from './abi.ts';
import type { DecodeContext, RawLog } from './log-decoder.ts';
import type { BlockLogFilter } from './rpc-client.ts';

export interface TradeQuery {
  readonly height: bigint;
  readonly filter: BlockLogFilter;
  /** Transaction hash -> the books (lower case) our tokens moved to or from in it. */
  readonly txs: ReadonlyMap<string, ReadonlySet<string>>;
}

const TRADE_TOPICS: readonly string[] = [TOPICS.NewBuyInitiatedTrade, TOPICS.NewSellInitiatedTrade];

function ownTransaction(e: ChainEvent): boolean {
  return e.type === 'OrderReceived' || (e.type === 'OrderCancelled' && e.cancellationType === 'ByParticipant');
}

/** The queries for a range's events (our lifecycle events and our transfers), one per block that needs one. */
export function tradeQueries(events: readonly ChainEvent[], ctx: DecodeContext): TradeQuery[] {
  const own = new Set(events.filter(ownTransaction).map((e) => e.txHash));
  const blocks = new Map<string, { height: bigint; txs: Map<string, Set<string>> }>();
  for (const e of events) {
    if (e.type !== 'Transfer' || e.blockHash === null || own.has(e.txHash)) continue;
    const book = (e.from.toLowerCase() === ctx.wallet ? e.to : e.from).toLowerCase();
    if (!ctx.books.has(book)) continue;
    const block = blocks.get(e.blockHash) ?? { height: e.height, txs: new Map<string, Set<string>>() };
    blocks.set(e.blockHash, block);
    block.txs.set(e.txHash, (block.txs.get(e.txHash) ?? new Set<string>()).add(book));
  }
  return [...blocks].map(([blockHash, b]) => ({
    height: b.height,
    txs: b.txs,
    filter: {
      blockHash,
      address: [...new Set([...b.txs.values()].flatMap((books) => [...books]))],
      topics: [TRADE_TOPICS],
    },
  }));
}

/** Whether a log of the query's reply is a trade event of one of its transactions, from the book our tokens moved with. */
export function isWanted(q: TradeQuery, l: RawLog): boolean {
  return TRADE_TOPICS.includes(l.topics[0] as string) && (q.txs.get(l.txHash)?.has(l.address) ?? false);
}
