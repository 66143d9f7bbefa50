/**
 * The venue's indexer for chain B: reads the order books' events with `getEvents` (the emulator's own
 * implementation of the RPC method, called in-process so that faults injected into the public RPC do not
 * blind the venue), filtered by the books' contract ids, resuming from the persisted cursor after every
 * ledger close. Events are decoded with the order book's own layouts (`contracts/book-events.ts`) and
 * applied in ledger order to each pair's market.
 */
import { xdr } from '@stellar/stellar-sdk';
import type { Logger } from 'pino';
import { decodeBookEvent } from '../wasm/contracts/book-events.ts';
import type { WasmEmulator } from '../wasm/emulator.ts';
import { parseCursor } from '../wasm/events-store.ts';
import { getEvents } from '../wasm/rpc-events.ts';
import type { ScVal } from '../wasm/scval.ts';
import type { PairMarket } from './market.ts';

export interface WasmBook {
  /** C... strkeys. */
  readonly orderBook: string;
  readonly baseToken: string;
  readonly quoteToken: string;
  readonly market: PairMarket;
}

export interface WasmFollowerOptions {
  readonly emulator: WasmEmulator;
  readonly books: readonly WasmBook[];
  /** Sandbox clock: the time the venue saw an event. */
  nowMs(): number;
  readonly logger?: Logger;
}

interface RpcEvent {
  readonly contractId: string;
  readonly txHash?: string;
  readonly ledger?: number;
  readonly topic: string[];
  readonly value: string;
}

const PAGE = 1000;
const IDS_PER_FILTER = 5;
const MAX_FILTERS = 5;

function decodeScVal(b64: string): ScVal {
  return xdr.ScVal.schema.decode(Buffer.from(b64, 'base64')) as ScVal;
}

export class WasmFollower {
  readonly #options: WasmFollowerOptions;
  readonly #books = new Map<string, WasmBook>();
  readonly #filters: { type: string; contractIds: string[] }[];
  #cursor: string | undefined;
  #unsubscribe: (() => void) | undefined;
  processedLedger = 0;
  eventsApplied = 0;

  constructor(options: WasmFollowerOptions) {
    this.#options = options;
    for (const b of options.books) this.#books.set(b.orderBook, b);
    const ids = options.books.map((b) => b.orderBook);
    if (ids.length > IDS_PER_FILTER * MAX_FILTERS)
      throw new RangeError(`at most ${IDS_PER_FILTER * MAX_FILTERS} chain B order books can be followed`);
    this.#filters = [];
    for (let i = 0; i < ids.length; i += IDS_PER_FILTER)
      this.#filters.push({ type: 'contract', contractIds: ids.slice(i, i + IDS_PER_FILTER) });
  }

  /** Follows every ledger close from now on, after catching up with what is already there. */
  start(): void {
    if (this.#unsubscribe !== undefined) return;
    this.#unsubscribe = this.#options.emulator.onLedgerClosed(() => this.sync());
    this.sync();
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** Reads and applies every event up to the latest closed ledger. */
  sync(): number {
    if (this.#filters.length === 0) {
      this.processedLedger = this.#options.emulator.latest.seq;
      return this.processedLedger;
    }
    for (;;) {
      const params =
        this.#cursor === undefined
          ? { startLedger: this.#options.emulator.oldest.seq, filters: this.#filters, pagination: { limit: PAGE } }
          : { filters: this.#filters, pagination: { cursor: this.#cursor, limit: PAGE } };
      let answer: Record<string, unknown>;
      try {
        answer = getEvents(this.#options.emulator, params);
      } catch (e) {
        // Only a cursor that fell out of the retention window is given up (those events are gone); any
        // other failure is retried from the same cursor at the next close, so nothing is applied twice.
        const at = this.#cursor === undefined ? undefined : parseCursor(this.#cursor)?.ledger;
        const lost = at !== undefined && at < this.#options.emulator.oldest.seq;
        this.#options.logger?.warn(
          { err: e, lost },
          lost
            ? 'chain B indexer fell behind the retention window; resuming at the oldest ledger'
            : 'chain B indexer query failed; retrying',
        );
        if (lost) this.#cursor = undefined;
        return this.processedLedger;
      }
      const events = answer.events as RpcEvent[];
      const now = this.#options.nowMs();
      for (const e of events) this.#apply(e, now);
      this.#cursor = answer.cursor as string;
      if (events.length < PAGE) {
        this.processedLedger = answer.latestLedger as number;
        return this.processedLedger;
      }
    }
  }

  #apply(e: RpcEvent, now: number): void {
    const book = this.#books.get(e.contractId);
    if (book === undefined) return;
    try {
      const decoded = decodeBookEvent(e.topic.map(decodeScVal), decodeScVal(e.value), {
        base: book.baseToken,
        quote: book.quoteToken,
      });
      if (decoded === undefined) return;
      const origin = e.txHash === undefined ? undefined : { txHash: e.txHash, height: e.ledger ?? 0 };
      book.market.apply(decoded, now, origin);
      this.eventsApplied += 1;
    } catch (err) {
      this.#options.logger?.warn({ err, contract: e.contractId }, 'chain B event not decodable; skipped');
    }
  }
}
