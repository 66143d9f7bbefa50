/**
 * Every order book event of the pairs, of every client (arrivals, resting remainders, trades, rejections,
 * cancellations), for the recording: what a replay needs to rebuild the books in exact first-in-first-out
 * order. Reads only confirmed blocks (`confirmations` below the head) with bounded `eth_getLogs` ranges, so it
 * never delivers an event a reorganisation could withdraw; each event carries its block's time. Starts at the
 * confirmed head when it starts (or at `fromBlock`). A malformed log is counted by the caller's `onMalformed`,
 * logged and skipped.
 */
import type { Clock, Sleep } from '../../core/clock.ts';
import { EVM_DEFAULTS } from '../../core/config/chain-defaults.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { Polling } from '../polling.ts';
import type { ChainEvent, PairBinding } from '../types.ts';
import { LIFECYCLE_TOPICS } from './abi.ts';
import { decodeLog, parseRawLog, type RawLog } from './log-decoder.ts';
import { BlockCache } from './block-cache.ts';
import { httpTransport } from './json-rpc.ts';
import { LOG_READS } from './options.ts';
import { EvmRpc } from './rpc-client.ts';

export interface EvmBookTapOptions {
  readonly rpc: EvmRpc;
  readonly blocks: BlockCache;
  readonly pairs: readonly PairBinding[];
  readonly confirmations: number;
  readonly maxBlockRange: number;
  readonly pollIntervalMs: number;
  readonly sleep: Sleep;
  readonly clock: Pick<Clock, 'now'>;
  readonly logger: Logger;
  /** Events of each confirmed range, in chain order. */
  readonly onEvents: (events: readonly ChainEvent[]) => void;
  readonly fromBlock?: bigint;
}

const byChainOrder = (a: RawLog, b: RawLog) =>
  a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1;

export class EvmBookTap {
  readonly #options: EvmBookTapOptions;
  readonly #books: ReadonlyMap<string, string>;
  readonly #polling: Polling;
  /** The last block read (null: not started). */
  #cursor: bigint | null;

  constructor(options: EvmBookTapOptions) {
    this.#options = options;
    this.#polling = new Polling(() => this.round(), { ...options, what: 'chain A book tap' });
    this.#books = new Map(options.pairs.map((p) => [p.orderBook.toLowerCase(), p.pairId]));
    this.#cursor = options.fromBlock === undefined ? null : options.fromBlock - 1n;
  }

  /** The last block read. */
  get cursor(): bigint | null {
    return this.#cursor;
  }

  start(): this {
    this.#polling.start();
    return this;
  }

  stop(): Promise<void> {
    return this.#polling.stop();
  }

  /** Reads the confirmed blocks not read yet (at most `maxBlockRange` at a time) and delivers their events. */
  async round(): Promise<void> {
    const head = await this.#options.rpc.block('latest');
    if (head === null) return;
    const confirmed = head.number - BigInt(this.#options.confirmations);
    let cursor = this.#cursor ?? confirmed;
    this.#cursor = cursor;
    const range = BigInt(this.#options.maxBlockRange);
    while (cursor < confirmed && !this.#polling.signal.aborted) {
      const from: bigint = cursor + 1n;
      const to: bigint = confirmed < from + range - 1n ? confirmed : from + range - 1n;
      const items = await this.#options.rpc.logs({
        fromBlock: from,
        toBlock: to,
        address: [...this.#books.keys()],
        topics: [LIFECYCLE_TOPICS],
      });
      const logs = this.#parse(items, from, to);
      const times = new Map<bigint, number>();
      for (const h of new Set(logs.map((l) => l.blockNumber)))
        times.set(h, (await this.#options.blocks.header(h)).timestampMs);
      const ctx = { books: this.#books, tokens: new Map(), wallet: '' };
      const events: ChainEvent[] = [];
      for (const l of logs) {
        try {
          const e = decodeLog(l, ctx, times.get(l.blockNumber) ?? 0);
          if (e !== null) events.push(e);
        } catch (err) {
          this.#options.logger.warn(
            { err, txHash: l.txHash, logIndex: l.logIndex },
            'chain A book event malformed; skipped',
          );
        }
      }
      if (events.length > 0) this.#options.onEvents(events);
      cursor = to;
      this.#cursor = to;
    }
  }

  #parse(items: readonly unknown[], from: bigint, to: bigint): RawLog[] {
    const out: RawLog[] = [];
    for (const item of items) {
      try {
        const l = parseRawLog(item);
        if (l.removed || l.blockNumber < from || l.blockNumber > to) continue;
        out.push(l);
      } catch (err) {
        this.#options.logger.warn({ err }, 'chain A book log malformed; skipped');
      }
    }
    return out.toSorted(byChainOrder);
  }
}

/** A chain A book tap on the node at `rpcUrl`: the configuration's default confirmations, the follower's log reads. */
export function evmBookTap(
  rpcUrl: string,
  options: Omit<EvmBookTapOptions, 'rpc' | 'blocks' | 'confirmations' | 'maxBlockRange' | 'pollIntervalMs'> &
    Partial<Pick<EvmBookTapOptions, 'confirmations' | 'maxBlockRange' | 'pollIntervalMs'>>,
): EvmBookTap {
  const rpc = new EvmRpc(httpTransport(rpcUrl, { timeoutMs: 10_000 }), null, options.logger);
  return new EvmBookTap({
    confirmations: EVM_DEFAULTS.confirmations,
    maxBlockRange: LOG_READS.maxBlockRange,
    pollIntervalMs: LOG_READS.pollIntervalMs,
    ...options,
    rpc,
    blocks: new BlockCache(rpc),
  });
}
