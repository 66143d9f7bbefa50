/**
 * One block range of the wallet's chain A events, read with `eth_getLogs`: the order books with the wallet
 * as topic 1 (the `client` of every lifecycle event), the pairs' tokens with the wallet as `from` or `to` of
 * `Transfer`, and, for the transactions where our tokens moved with a book, the trade events of the other
 * clients' incoming orders (`counterparty-trades.ts`). Each event gets its block's time from the header;
 * logs whose block hash disagrees with the header (a reorganisation under way) make the range unreadable for
 * now. Malformed logs are counted and skipped.
 */
import type { Logger } from '../../telemetry/logger.ts';
import type { ChainEvent } from '../types.ts';
import { addressTopic, LIFECYCLE_TOPICS, TOPICS } from './abi.ts';
import type { BlockCache } from './block-cache.ts';
import { isWanted, tradeQueries } from './counterparty-trades.ts';
import { decodeLog, Malformed, parseRawLog, type DecodeContext, type RawLog } from './log-decoder.ts';
import type { EvmMetrics } from './metrics.ts';
import type { EvmRpc } from './rpc-client.ts';

export interface LogReaderDeps {
  readonly rpc: EvmRpc;
  readonly blocks: BlockCache;
  readonly metrics: EvmMetrics | null;
  readonly logger: Logger;
  readonly ctx: DecodeContext;
}

/** An event with the log it came from (its place in chain order). */
interface Decoded {
  readonly log: RawLog;
  readonly event: ChainEvent;
}

type Headers = ReadonlyMap<bigint, { readonly timestampMs: number }>;

const HEADER_BATCH = 16;

const byChainOrder = (a: RawLog, b: RawLog) =>
  a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1;

export class LogReader {
  readonly #deps: LogReaderDeps;

  constructor(deps: LogReaderDeps) {
    this.#deps = deps;
  }

  /**
   * The wallet's events of blocks `from` to `to` in (block, log index) order, or null when the node's logs and
   * blocks disagree with each other (a reorganisation under way: the blocks from `from` on are forgotten).
   */
  async read(from: bigint, to: bigint): Promise<ChainEvent[] | null> {
    const ctx = this.#deps.ctx;
    const wallet = addressTopic(ctx.wallet);
    const books = [...ctx.books.keys()];
    const tokens = [...ctx.tokens.keys()];
    const rpc = this.#deps.rpc;
    const replies = await Promise.all([
      books.length === 0
        ? []
        : rpc.logs({ fromBlock: from, toBlock: to, address: books, topics: [LIFECYCLE_TOPICS, wallet] }),
      tokens.length === 0
        ? []
        : rpc.logs({ fromBlock: from, toBlock: to, address: tokens, topics: [TOPICS.Transfer, wallet] }),
      tokens.length === 0
        ? []
        : rpc.logs({ fromBlock: from, toBlock: to, address: tokens, topics: [TOPICS.Transfer, null, wallet] }),
    ]);
    const seen = new Set<string>();
    const logs = this.#parse(replies.flat(), from, to, seen);
    const headers = await this.#headers(logs);
    if (logs.some((l) => headers.get(l.blockNumber)?.hash !== l.blockHash)) {
      this.#deps.logger.warn(
        { from: from.toString(), to: to.toString() },
        'chain A logs and blocks disagree (reorganisation under way); reading again',
      );
      this.#deps.blocks.forgetFrom(from);
      return null;
    }
    const ours = this.#decode(logs, headers, (e) => e.type === 'Transfer' || e.client.toLowerCase() === ctx.wallet);
    const trades = await this.#counterpartyTrades(ours, headers, seen);
    // The trade events join their transactions in log order, so the engine sees each transaction whole.
    return [...ours, ...trades].toSorted((a, b) => byChainOrder(a.log, b.log)).map((d) => d.event);
  }

  /** Headers give each event its chain time; a catch-up may need hundreds, fetched a few at a time. */
  async #headers(logs: readonly RawLog[]): Promise<Map<bigint, { hash: string; timestampMs: number }>> {
    const heights = [...new Set(logs.map((l) => l.blockNumber))];
    const headers = new Map<bigint, { hash: string; timestampMs: number }>();
    for (let i = 0; i < heights.length; i += HEADER_BATCH) {
      const batch = await Promise.all(heights.slice(i, i + HEADER_BATCH).map((h) => this.#deps.blocks.header(h)));
      for (const h of batch) headers.set(h.number, h);
    }
    return headers;
  }

  /**
   * The trade events of other clients in the transactions where our tokens moved with a book; the block's
   * header was checked, and the query by its hash answers for that block or fails the round.
   */
  async #counterpartyTrades(ours: readonly Decoded[], headers: Headers, seen: Set<string>): Promise<Decoded[]> {
    const queries = tradeQueries(
      ours.map((d) => d.event),
      this.#deps.ctx,
    );
    const out: Decoded[] = [];
    for (let i = 0; i < queries.length; i += HEADER_BATCH) {
      const batch = queries.slice(i, i + HEADER_BATCH);
      const replies = await Promise.all(batch.map((q) => this.#deps.rpc.blockLogs(q.filter)));
      batch.forEach((q, k) => {
        const logs = this.#parse(replies[k] ?? [], q.height, q.height, seen, q.filter.blockHash).filter((l) =>
          isWanted(q, l),
        );
        out.push(...this.#decode(logs, headers, (e) => e.type === 'Trade'));
      });
    }
    return out;
  }

  #parse(items: readonly unknown[], from: bigint, to: bigint, seen: Set<string>, blockHash?: string): RawLog[] {
    const out: RawLog[] = [];
    for (const item of items) {
      try {
        const l = parseRawLog(item);
        if (l.removed) continue;
        if (l.blockNumber < from || l.blockNumber > to)
          throw new Malformed(`log of block ${l.blockNumber} outside the range asked for`);
        if (blockHash !== undefined && l.blockHash !== blockHash)
          throw new Malformed(`log of block ${l.blockHash}, not of the block asked for`);
        const key = `${l.txHash}:${l.logIndex}`;
        // A wallet's transfer to itself answers both token queries.
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(l);
      } catch (e) {
        this.#malformed(e, item);
      }
    }
    return out.toSorted(byChainOrder);
  }

  #decode(logs: readonly RawLog[], headers: Headers, keep: (e: ChainEvent) => boolean): Decoded[] {
    const out: Decoded[] = [];
    for (const l of logs) {
      try {
        const e = decodeLog(l, this.#deps.ctx, headers.get(l.blockNumber)?.timestampMs ?? 0);
        if (e !== null && keep(e)) out.push({ log: l, event: e });
      } catch (err) {
        this.#malformed(err, l);
      }
    }
    return out;
  }

  #malformed(e: unknown, item: unknown): void {
    if (!(e instanceof Malformed)) throw e;
    this.#deps.metrics?.malformed.inc({ source: 'log' });
    this.#deps.logger.warn({ reason: e.message, log: item }, 'malformed chain A log; skipped');
  }
}
