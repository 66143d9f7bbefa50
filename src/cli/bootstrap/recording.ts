/**
 * The recording of `dlt-mm run` (config `record`): the recorder, and what feeds it from outside the bot's
 * loops: every book the market-data feed serves, every trade information read, every confirmed chain event
 * of the wallets' followers, every new fair-value reading (through the fair values' `onReading`), and each
 * pair's order actions (through its loop's `record`).
 */
import { resolve } from 'node:path';
import { evmBookTap } from '../../chains/evm/book-tap.ts';
import type { ChainEvent, PairBinding } from '../../chains/types.ts';
import { wasmBookTaps } from '../../chains/wasm/book-tap.ts';
import type { BotConfig } from '../../core/config/bot-config.ts';
import { systemClock } from '../../core/system-clock.ts';
import type { Clock } from '../../core/clock.ts';
import type { SourceReading } from '../../core/fair-value/combine.ts';
import type { RecordedAction } from '../../engine/loop/order-actions.ts';
import type { TradeInfoSource } from '../../market/status.ts';
import { Recorder } from '../../engine/recording/recorder.ts';
import type { WalletEngine } from '../../engine/wallet/wallet-engine.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import type { MarketDataFeed } from '../../market/feed.ts';
import type { Connection } from './connection.ts';

export interface Recording {
  readonly recorder: Recorder;
  /** The trade information source, each read recorded. */
  tradeInfo(rest: TradeInfoSource): TradeInfoSource;
  /** A pair's fair-value readings, recorded. */
  onReading(pairId: string): (reading: SourceReading, nowMs: number) => void;
  /** A pair's order actions, recorded. */
  record(pairId: string): (a: RecordedAction) => void;
  /** Records the feed's books and the engines' confirmed events from now on; returns the unsubscriber. */
  follow(feed: MarketDataFeed, engines: readonly WalletEngine[]): () => void;
  close(): void;
}

/** The recording the configuration asks for, or null when `record.enabled` is false. */
export function startRecording(
  config: BotConfig,
  configDir: string,
  parts: { readonly clock: Clock; readonly logger: Logger; readonly metrics: Metrics },
): Recording | null {
  if (!config.record.enabled) return null;
  const rows = parts.metrics.counter({
    name: 'recording_rows_total',
    help: 'Rows of the recording by table and outcome: written, refused (the day file is full) or error (not written)',
    labelNames: ['table', 'outcome'],
  });
  const recorder = new Recorder({
    dir: resolve(configDir, config.record.dir),
    maxBytes: config.record.maxBytes,
    flushMs: config.record.flushMs,
    clock: parts.clock,
    logger: parts.logger.child({ component: 'recording' }),
    count: (table, outcome, n) => rows.inc({ table, outcome }, n),
  });
  const now = () => parts.clock.now();
  const onBook = (book: Parameters<Recorder['book']>[0]) => recorder.book(book);
  return {
    recorder,
    tradeInfo: (rest) => ({
      getTradeInfo: async (pairId) => {
        const info = await rest.getTradeInfo(pairId);
        recorder.tradeInfo(pairId, info, now());
        return info;
      },
    }),
    onReading: (pairId) => (reading, nowMs) => recorder.fairReading(pairId, nowMs, reading),
    record: (pairId) => (a) => recorder.action({ ...a, pairId }),
    follow(feed, engines) {
      feed.on('book', onBook);
      const offs = engines.map((e) => e.onConfirmedEvents((events) => recorder.chainEvents(e.chain, events, now())));
      return () => {
        feed.off('book', onBook);
        for (const off of offs) off();
      };
    },
    close: () => recorder.close(),
  };
}

/**
 * Book taps for the pairs (chain A one for all its books, chain B one per 25 books), each event of every client
 * recorded as read. Returns how many run and a stop for all of them.
 */
export function startBookTaps(
  c: Pick<Connection, 'evm' | 'wasm'>,
  pairs: readonly PairBinding[],
  recording: Recording,
  o: { readonly confirmations: number; readonly logger: Logger; readonly metrics: Metrics },
): { readonly count: number; stop(): Promise<void> } {
  const onEvents = (chain: 'evm' | 'wasm') => (events: readonly ChainEvent[]) =>
    recording.recorder.chainEvents(chain, events, systemClock.now());
  const on = (chain: 'evm' | 'wasm') => pairs.filter((p) => p.chain === chain);
  const base = { sleep: systemClock.sleep, clock: systemClock, logger: o.logger.child({ component: 'book-tap' }) };
  const taps = [
    ...(c.evm === undefined || on('evm').length === 0
      ? []
      : [
          evmBookTap(c.evm.rpcUrl, {
            ...base,
            pairs: on('evm'),
            confirmations: o.confirmations,
            onEvents: onEvents('evm'),
          }),
        ]),
    ...(c.wasm === undefined || on('wasm').length === 0
      ? []
      : wasmBookTaps(c.wasm.rpcUrl, o.metrics, { ...base, pairs: on('wasm'), onEvents: onEvents('wasm') })),
  ];
  for (const t of taps) t.start();
  return { count: taps.length, stop: async () => void (await Promise.all(taps.map((t) => t.stop()))) };
}
