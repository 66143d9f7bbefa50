/**
 * Every order book event of the pairs, of every client (arrivals, resting remainders, trades, rejections,
 * cancellations), for the recording: what a replay needs to rebuild the books in exact first-in-first-out
 * order. Polls `getEvents` for the pairs' order book contracts (five filters of five contracts per request:
 * up to 25 books; more books need more taps), pages through with the node's cursor and delivers each page's
 * events in chain order (Soroban does not reorganise). Starts at the latest ledger when it starts. A malformed
 * event is logged and skipped.
 */
import type { Sleep } from '../../core/clock.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { Polling } from '../polling.ts';
import type { ChainEvent, PairBinding } from '../types.ts';
import { decodeRpcEvent, EventBindings } from './event-decoder.ts';
import { httpTransport } from './json-rpc.ts';
import { WasmRpc } from './rpc-client.ts';
import { createWasmMetrics } from './metrics.ts';
import type { Metrics } from '../../telemetry/metrics.ts';

type Json = Record<string, unknown>;

/** Books one tap reads: five filters of five contracts, the most one getEvents request takes. */
export const BOOKS_PER_TAP = 25;

export interface WasmBookTapOptions {
  readonly rpc: WasmRpc;
  readonly pairs: readonly PairBinding[];
  readonly pageLimit: number;
  readonly pollIntervalMs: number;
  readonly sleep: Sleep;
  readonly logger: Logger;
  /** Events of each page read, in chain order. */
  readonly onEvents: (events: readonly ChainEvent[]) => void;
  readonly fromLedger?: number;
}

export class WasmBookTap {
  readonly #options: WasmBookTapOptions;
  readonly #bindings: EventBindings;
  readonly #filters: Json[];
  readonly #polling: Polling;
  #position: { readonly cursor: string } | { readonly startLedger: number } | null;

  constructor(options: WasmBookTapOptions) {
    const books = [...new Set(options.pairs.map((p) => p.orderBook))];
    if (books.length > BOOKS_PER_TAP) throw new RangeError(`a chain B book tap reads at most ${BOOKS_PER_TAP} books`);
    this.#options = options;
    this.#polling = new Polling(() => this.round(), { ...options, what: 'chain B book tap' });
    this.#bindings = new EventBindings('', options.pairs);
    this.#filters = Array.from({ length: Math.ceil(books.length / 5) }, (_, i) => ({
      type: 'contract',
      contractIds: books.slice(i * 5, i * 5 + 5),
    }));
    this.#position = options.fromLedger === undefined ? null : { startLedger: options.fromLedger };
  }

  start(): this {
    this.#polling.start();
    return this;
  }

  stop(): Promise<void> {
    return this.#polling.stop();
  }

  /** Reads the events after the position, page by page, and delivers them. */
  async round(): Promise<void> {
    if (this.#filters.length === 0) return;
    this.#position ??= { startLedger: (await this.#options.rpc.latestLedger()).sequence };
    for (;;) {
      const page = await this.#options.rpc.events({
        ...this.#position,
        filters: this.#filters,
        limit: this.#options.pageLimit,
      });
      const events: ChainEvent[] = [];
      for (const raw of page.events) {
        try {
          const e = decodeRpcEvent(this.#bindings, raw, true);
          if (e !== null) events.push(e);
        } catch (err) {
          this.#options.logger.warn({ err }, 'chain B book event malformed; skipped');
        }
      }
      if (events.length > 0) this.#options.onEvents(events);
      this.#position = { cursor: page.cursor };
      if (page.events.length < this.#options.pageLimit || this.#polling.signal.aborted) return;
    }
  }
}

/** Chain B book taps on the node at `rpcUrl`, one per 25 books: pages of 200 events, a poll every second. */
export function wasmBookTaps(
  rpcUrl: string,
  metrics: Metrics,
  options: Omit<WasmBookTapOptions, 'rpc' | 'pageLimit' | 'pollIntervalMs'> &
    Partial<Pick<WasmBookTapOptions, 'pageLimit' | 'pollIntervalMs'>>,
): WasmBookTap[] {
  const rpc = new WasmRpc(httpTransport(rpcUrl, { timeoutMs: 10_000 }), createWasmMetrics(metrics));
  const taps: WasmBookTap[] = [];
  for (let i = 0; i < options.pairs.length; i += BOOKS_PER_TAP)
    taps.push(
      new WasmBookTap({
        pageLimit: 200,
        pollIntervalMs: 1_000,
        ...options,
        rpc,
        pairs: options.pairs.slice(i, i + BOOKS_PER_TAP),
      }),
    );
  return taps;
}
