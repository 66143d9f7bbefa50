/**
 * What moves a replay's time: the next recorded block of either chain, the next recorded fair-value reading,
 * the next recorded book message or the next timer of the bot, whichever comes first. Each moment's work runs
 * until it waits for time or for the chain before the clock moves on, so the bot sees the recording in event
 * time and nothing waits on the wall clock.
 */
import type { PairBinding } from '../chains/types.ts';
import type { BotPair } from '../engine/loop/bot.ts';
import type { PairFairValue } from '../engine/fair-value/pair-fair-value.ts';
import type { RecordingData } from '../store/recording-read.ts';
import type { SimFeed } from './sim-market.ts';
import type { ChainTimeline } from './timeline.ts';
import type { VirtualClock } from './virtual-clock.ts';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface ReplayInputs {
  readonly clock: VirtualClock;
  readonly feed: SimFeed;
  readonly timelines: ReadonlyMap<'evm' | 'wasm', ChainTimeline>;
  readonly data: RecordingData;
  readonly bindings: readonly PairBinding[];
  readonly pairs: readonly BotPair[];
  readonly fromMs: number;
  readonly toMs: number;
}

export class ReplayDriver {
  readonly #in: ReplayInputs;
  readonly #readings: RecordingData['readings'];
  /** The venue's book messages came at these moments (changes and periodic snapshots): served again then. */
  readonly #books: RecordingData['books'];
  readonly #symbols: ReadonlyMap<string, PairBinding>;
  readonly #byId: ReadonlyMap<string, PairBinding>;
  readonly #fairValues: ReadonlyMap<string, PairFairValue>;
  #nextBook = 0;
  #nextReading = 0;
  /** Steps taken: recorded blocks, our blocks, book messages, readings and timers. */
  steps = 0;

  constructor(inputs: ReplayInputs) {
    this.#in = inputs;
    const within = (ms: number) => ms >= inputs.fromMs && ms <= inputs.toMs;
    this.#symbols = new Map(inputs.bindings.map((b) => [b.symbol, b]));
    this.#byId = new Map(inputs.bindings.map((b) => [b.pairId, b]));
    this.#readings = inputs.data.readings.filter((r) => within(r.recvMs));
    this.#books = inputs.data.books.filter((b) => within(b.recvMs) && this.#symbols.has(b.symbol));
    this.#fairValues = new Map(
      inputs.pairs.flatMap((p) => (p.fairValue === undefined ? [] : [[p.binding.pairId, p.fairValue]])),
    );
  }

  /** The chain whose next recorded block comes first, and when (infinity when none is left). */
  #nextChain(recordedUntilMs: number): { atMs: number; timeline: ChainTimeline | null } {
    let atMs = Number.POSITIVE_INFINITY;
    let timeline: ChainTimeline | null = null;
    for (const t of this.#in.timelines.values()) {
      const ms = t.nextMs(recordedUntilMs);
      if (ms !== null && ms < atMs) {
        atMs = ms;
        timeline = t;
      }
    }
    return { atMs, timeline };
  }

  /** Runs events and timers in time order until `done` holds or nothing is left before `untilMs`. */
  async drive(untilMs: number, recordedUntilMs: number, done: () => boolean): Promise<void> {
    const { clock, feed, timelines } = this.#in;
    const recorded = (ms: number | undefined) =>
      ms !== undefined && ms <= recordedUntilMs ? ms : Number.POSITIVE_INFINITY;
    for (;;) {
      await turn();
      if (done()) return;
      const chain = this.#nextChain(recordedUntilMs);
      const reading = this.#readings[this.#nextReading];
      const readingMs = recorded(reading?.recvMs);
      const book = this.#books[this.#nextBook];
      const bookMs = recorded(book?.recvMs);
      const timerMs = clock.nextDue() ?? Number.POSITIVE_INFINITY;
      const at = Math.min(chain.atMs, readingMs, bookMs, timerMs);
      if (at > untilMs || at === Number.POSITIVE_INFINITY) return;
      this.steps++;
      clock.fireNext(at);
      if (timerMs === at) continue;
      if (bookMs === at) {
        this.#nextBook++;
        const b = this.#symbols.get((book as { symbol: string }).symbol) as PairBinding;
        feed.publish((timelines.get(b.chain) as ChainTimeline).chain, b, at);
      } else if (readingMs === at) {
        this.#nextReading++;
        void this.#fairValues.get((reading as { pairId: string }).pairId)?.readNow();
      } else if (chain.timeline !== null) {
        for (const pairId of chain.timeline.mineNext(recordedUntilMs)) {
          const b = this.#byId.get(pairId);
          if (b !== undefined) feed.publish(chain.timeline.chain, b, clock.now());
        }
      }
    }
  }

  /** Drives the replay while `work` runs; its result once it has finished (an error when the recording ends first). */
  async run<T>(work: Promise<T>, untilMs: number, recordedUntilMs: number): Promise<T> {
    const state = { done: false };
    const settled = work.finally(() => {
      state.done = true;
    });
    settled.catch(() => undefined);
    await this.drive(untilMs, recordedUntilMs, () => state.done);
    if (!state.done) throw new Error('backtest: the bot did not finish a step before the recording ended');
    return settled;
  }
}
