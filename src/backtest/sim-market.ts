/**
 * What the bot reads of the venue during a backtest. The market data: every change to a replayed book is
 * served as the venue's WebSocket would serve it (price levels of everyone's orders, ours included), at the
 * moment of its block. The venue status: the recorded trade information, each as of its receive time. The
 * fair-value sources: each recorded reading of a source, as of the moment it was read. A read under way at the
 * start answers the first recorded answer, as the live read did a moment later.
 */
import { EventEmitter } from 'node:events';
import type { PairBinding } from '../chains/types.ts';
import type { Clock } from '../core/clock.ts';
import type { FairValueSourceKind } from '../core/config/fair-value-config.ts';
import { Decimal } from '../core/decimal.ts';
import type { SourceReading } from '../core/fair-value/combine.ts';
import { priceFromRaw, quantityFromRaw } from '../core/units.ts';
import type { FairValueSource } from '../engine/fair-value/sources.ts';
import type { TradeInfoSource } from '../market/status.ts';
import type { RecordedReading, RecordedTradeInfo } from '../store/recording-read.ts';
import type { FeedMarket, MarketDataFeedEvents } from '../market/feed.ts';
import type { MarketBook } from '../venue/market-data/book.ts';
import { parseTradeInfo, type TradeInfo } from '../venue/payload/trade-info.ts';
import type { SimChain } from './sim-chain.ts';

/** Levels per side the venue's market data shows. */
const DEPTH = 50;

/** The market-data feed of a backtest: books of the replayed chains. */
export class SimFeed extends EventEmitter<MarketDataFeedEvents> {
  readonly #books = new Map<string, MarketBook>();
  readonly #symbols = new Set<string>();

  add(market: FeedMarket): void {
    this.#symbols.add(market.symbol);
  }

  book(symbol: string): MarketBook | undefined {
    return this.#books.get(symbol);
  }

  /** Serves the pair's book as the chain holds it now. */
  publish(chain: SimChain, binding: PairBinding, nowMs: number): void {
    const s = binding.rules.scales;
    const l = chain.levels(binding.pairId, DEPTH);
    const side = (levels: ReadonlyArray<{ price: bigint; quantity: bigint }>) =>
      levels.map((x) => ({ limit: priceFromRaw(x.price, s), quantity: quantityFromRaw(x.quantity, s) }));
    const book: MarketBook = {
      symbol: binding.symbol,
      buy: side(l.buy),
      sell: side(l.sell),
      receivedAt: nowMs,
      source: 'ws',
    };
    this.#books.set(binding.symbol, book);
    if (this.#symbols.has(binding.symbol)) this.emit('book', book);
  }
}

/** The last of `rows` (in time order) received at or before `nowMs`; the first when none was yet. */
function asOf<T extends { readonly recvMs: number }>(rows: readonly T[], nowMs: number): T | undefined {
  let lo = 0;
  let hi = rows.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((rows[mid] as T).recvMs <= nowMs) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return rows[Math.max(found, 0)];
}

/** The recorded trade information of each pair, answered as of the clock's time. */
export function recordedTradeInfo(rows: readonly RecordedTradeInfo[], clock: Clock): TradeInfoSource {
  const byPair = new Map<string, Array<RecordedTradeInfo & { info?: TradeInfo }>>();
  for (const r of rows) byPair.set(r.pairId, [...(byPair.get(r.pairId) ?? []), { ...r }]);
  return {
    getTradeInfo: async (pairId) => {
      const row = asOf(byPair.get(pairId) ?? [], clock.now());
      if (row === undefined) throw new Error(`backtest: no trade information of pair ${pairId} was recorded`);
      row.info ??= parseTradeInfo(
        (JSON.parse(row.status) as { raw: unknown }).raw,
        `recorded trade information of ${pairId}`,
      );
      return row.info;
    },
  };
}

/** A fair-value source answering the recorded readings of one source kind of one pair. */
export class RecordedSource implements FairValueSource {
  readonly kind: FairValueSourceKind;
  readonly pollMs: number;
  readonly maxAgeMs: number;
  readonly origin: string;
  readonly #rows: readonly RecordedReading[];
  readonly #clock: Clock;
  #current: RecordedReading | undefined;
  /** The current reading's value, parsed once per reading (the pair loop asks at every round). */
  #value: { readonly of: RecordedReading; readonly value: Decimal | null } | null = null;

  constructor(kind: FairValueSourceKind, pollMs: number, rows: readonly RecordedReading[], clock: Clock) {
    this.kind = kind;
    this.pollMs = pollMs;
    this.maxAgeMs = rows[0]?.maxAgeMs ?? 0;
    this.origin = 'recording';
    this.#rows = rows;
    this.#clock = clock;
  }

  async refresh(): Promise<boolean> {
    const now = this.#clock.now();
    const first = this.#rows[0];
    let next = first !== undefined && first.recvMs <= now ? asOf(this.#rows, now) : undefined;
    // A read under way when the replay starts answers what the live read answered, recorded when it came back
    // (within a poll): the live bot waited for its sources' first reads before it quoted, and so does this one.
    if (next === undefined && this.#current === undefined && first !== undefined && first.recvMs - now <= this.pollMs)
      next = first;
    const changed = next !== this.#current;
    this.#current = next;
    return changed;
  }

  #valueOf(r: RecordedReading): Decimal | null {
    if (this.#value?.of !== r) this.#value = { of: r, value: r.value === null ? null : new Decimal(r.value) };
    return this.#value.value;
  }

  reading(): SourceReading {
    const r = this.#current;
    if (r === undefined)
      return { kind: this.kind, value: null, atMs: null, error: 'not read yet', maxAgeMs: this.maxAgeMs };
    return {
      kind: this.kind,
      value: this.#valueOf(r),
      atMs: r.valueTimeMs,
      error: r.error,
      maxAgeMs: r.maxAgeMs,
    };
  }
}
