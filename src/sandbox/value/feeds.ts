/**
 * The sandbox's HTTP price feeds (`GET /sandbox/feeds/{symbol}`), as an external market-data vendor shows a
 * value: each sample of the true value is observed with seeded Gaussian noise on the price (`noiseBps`, one
 * standard deviation), and the document served is the observation of `delayMs` ago, stamped with the wall
 * time it was observed at (unix ms). Bonds carry their yield (percent, without noise) beside the price.
 * Faults: `down` (no document: the route answers 503) and `stale` (the document of the moment the fault
 * began, its old timestamp and all, until the fault is cleared).
 */
import { Decimal } from '../../core/decimal.ts';
import type { SeededRandom } from '../flow/random.ts';
import type { ValueSample } from './true-values.ts';

export interface FeedDocument {
  readonly symbol: string;
  /** Quote per base, a decimal string. */
  readonly price: string;
  /** Wall time the value was observed at, unix ms. */
  readonly timestamp: number;
  /** Bonds: percent, a decimal string. */
  readonly yield?: string;
}

export type FeedFaultMode = 'down' | 'stale';

export interface PriceFeedsOptions {
  readonly pairs: readonly { readonly id: string; readonly symbol: string }[];
  readonly delayMs: number;
  readonly noiseBps: number;
  readonly random: SeededRandom;
  readonly wallMs?: () => number;
}

interface Observation {
  readonly wallMs: number;
  readonly price: Decimal;
  readonly yieldPercent: Decimal | null;
}

interface Feed {
  readonly symbol: string;
  readonly random: SeededRandom;
  observations: Observation[];
  fault: { readonly mode: FeedFaultMode; readonly frozen: FeedDocument | null } | null;
}

const PRICE_PLACES = 10;
const YIELD_PLACES = 8;

export class PriceFeeds {
  readonly #options: PriceFeedsOptions;
  readonly #wall: () => number;
  readonly #feeds = new Map<string, Feed>();

  constructor(options: PriceFeedsOptions) {
    this.#options = options;
    this.#wall = options.wallMs ?? Date.now;
    for (const p of options.pairs)
      this.#feeds.set(p.id, { symbol: p.symbol, random: options.random.fork(p.id), observations: [], fault: null });
  }

  /** Records a sample of the true value as the feed observes it (with its noise). */
  observe(pairId: string, sample: ValueSample): void {
    const feed = this.#feeds.get(pairId);
    if (feed === undefined) return;
    const noise = ((this.#options.noiseBps / 10_000) * feed.random.normal()).toFixed(12);
    feed.observations.push({
      wallMs: sample.wallMs,
      price: sample.value.mul(new Decimal(1).add(noise)),
      yieldPercent: sample.yieldPercent,
    });
    // Keep the observation being served and everything after it.
    const served = this.#servedIndex(feed, sample.wallMs);
    if (served > 0) feed.observations = feed.observations.slice(served);
  }

  /** The index of the observation served at `wallMs`: the last one `delayMs` old or older, else the first. */
  #servedIndex(feed: Feed, wallMs: number): number {
    const cutoff = wallMs - this.#options.delayMs;
    const i = feed.observations.findLastIndex((o) => o.wallMs <= cutoff);
    return Math.max(0, i);
  }

  #current(feed: Feed): FeedDocument | null {
    const o = feed.observations[this.#servedIndex(feed, this.#wall())];
    if (o === undefined) return null;
    return {
      symbol: feed.symbol,
      price: o.price.toDecimalPlaces(PRICE_PLACES).toFixed(),
      timestamp: o.wallMs,
      ...(o.yieldPercent === null ? {} : { yield: o.yieldPercent.toDecimalPlaces(YIELD_PLACES).toFixed() }),
    };
  }

  /** The document served now; null when the feed is down (or has observed nothing yet). */
  document(pairId: string): FeedDocument | null {
    const feed = this.#feeds.get(pairId);
    if (feed === undefined) return null;
    if (feed.fault?.mode === 'down') return null;
    if (feed.fault?.mode === 'stale') return feed.fault.frozen;
    return this.#current(feed);
  }

  /** Sets a fault on one feed or on all of them. */
  setFault(mode: FeedFaultMode, pairId?: string): void {
    for (const [id, feed] of this.#feeds) {
      if (pairId !== undefined && id !== pairId) continue;
      const last = feed.fault?.mode === 'stale' ? feed.fault.frozen : this.#current(feed);
      feed.fault = { mode, frozen: mode === 'stale' ? last : null };
    }
  }

  clearFaults(): void {
    for (const feed of this.#feeds.values()) feed.fault = null;
  }

  /** The faulty feeds: mode by pair id. */
  faults(): Record<string, FeedFaultMode> {
    return Object.fromEntries(
      [...this.#feeds].flatMap(([id, f]) => (f.fault === null ? [] : [[id, f.fault.mode] as const])),
    );
  }
}
