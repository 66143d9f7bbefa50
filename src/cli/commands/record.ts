/**
 * `dlt-mm record --config <file> [--for <seconds>]`: records what the venue and the chains show for the
 * configuration's pairs, without trading and without a state file: every order book the market-data feed
 * serves, the trade information (polled like the bot does), every order book event of every client read by the
 * book taps (confirmed blocks on chain A, every ledger on chain B), and each fair-value reading of pairs whose
 * strategy has a fairValue block. Into `record.dir`, one file per trading day (see src/engine/recording/README.md).
 * Runs until SIGINT or SIGTERM, or for `--for` seconds.
 */
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { DltError } from '../../core/errors.ts';
import { systemClock } from '../../core/system-clock.ts';
import { StrategyCatalog } from '../../engine/loop/strategy-catalog.ts';
import type { BotConfig } from '../../core/config/bot-config.ts';
import { createLogger, type Logger } from '../../telemetry/logger.ts';
import { Metrics } from '../../telemetry/metrics.ts';
import { createVenueClients, type VenueClients } from '../../market/venue-clients.ts';
import { usageArgs } from '../args.ts';
import { evmConfirmations } from '../bootstrap/adapters.ts';
import { connectionOf, type Connection } from '../bootstrap/connection.ts';
import { authSecrets } from '../../venue/auth/venue-auth.ts';
import { buildFairValues, fairValueBuildOf } from '../bootstrap/fair-value.ts';
import { runningEmbeddedManifest } from '../bootstrap/manifest.ts';
import { walletPairs, type WalletPair } from '../bootstrap/pairs.ts';
import { startBookTaps, startRecording, type Recording } from '../bootstrap/recording.ts';
import { checkedSetup, type Setup } from '../bootstrap/setup.ts';
import { EXIT_OK, type CliIo } from '../io.ts';

export const RECORD_USAGE = `  dlt-mm record --config <file> [--for <seconds>]
                                      record books, trade information, every client's order book events and
                                      fair-value readings of the configured pairs without trading (record.dir)`;

export interface RecordSignals {
  once(signal: 'SIGINT' | 'SIGTERM', fn: () => void): unknown;
  off(signal: 'SIGINT' | 'SIGTERM', fn: () => void): unknown;
}

type Stop = () => Promise<void> | void;
type RecordedPair = WalletPair & { wallet: string };

/** The configuration file and how long to record (null: until a signal). */
function parseRecordArgs(args: string[]): { config: string; seconds: number | null } {
  const { values } = usageArgs(
    () => parseArgs({ args, options: { config: { type: 'string' }, for: { type: 'string' } }, strict: true }),
    RECORD_USAGE,
  );
  if (values.config === undefined) throw new DltError('E_USAGE', `--config is required\n${RECORD_USAGE}`);
  const seconds = values.for === undefined ? null : Number(values.for);
  if (seconds !== null && !(Number.isFinite(seconds) && seconds > 0))
    throw new DltError('E_USAGE', `--for: ${JSON.stringify(values.for)} is not a positive number of seconds`);
  return { config: values.config, seconds };
}

/** The configured pairs the venue lists, each once, with the wallet that trades it. */
async function recordedPairs(venue: VenueClients, connection: Connection, config: BotConfig): Promise<RecordedPair[]> {
  const listed = await venue.rest.listTradingPairs();
  const byId = new Map<string, RecordedPair>();
  for (const wallet of connection.wallets)
    for (const pair of walletPairs(listed, wallet, config))
      byId.set(pair.binding.pairId, { ...pair, wallet: wallet.id });
  return [...byId.values()];
}

/** Polls each pair's trade information as the bot does, into the recording; returns the stop. */
function pollTradeInfo(
  recording: Recording,
  venue: VenueClients,
  pairs: readonly RecordedPair[],
  pollMs: number,
  logger: Logger,
): Stop {
  const tradeInfo = recording.tradeInfo(venue.rest);
  const poll = systemClock.setRepeating(() => {
    for (const pair of pairs)
      tradeInfo
        .getTradeInfo(pair.binding.pairId)
        .catch((e: unknown) => logger.warn({ err: e, pair: pair.binding.pairId }, 'trade information not read'));
  }, pollMs);
  return () => poll.cancel();
}

/** Resolves at SIGINT or SIGTERM, or after `seconds` when given. */
function untilStopped(signals: RecordSignals, seconds: number | null): Promise<void> {
  return new Promise<void>((done) => {
    const stop = () => {
      signals.off('SIGINT', stop);
      signals.off('SIGTERM', stop);
      timer?.cancel();
      done();
    };
    const timer = seconds === null ? null : systemClock.setTimer(stop, seconds * 1000);
    signals.once('SIGINT', stop);
    signals.once('SIGTERM', stop);
  });
}

/** Starts every part of the recording, each stop added to `stops` as soon as its part runs. */
async function startParts(
  setup: Setup,
  connection: Connection,
  venue: VenueClients,
  telemetry: { logger: Logger; metrics: Metrics },
  stops: Stop[],
  io: CliIo,
): Promise<{ recording: Recording; pairs: RecordedPair[]; taps: number }> {
  const { config } = setup;
  const { logger, metrics } = telemetry;
  venue.marketData.start();
  const pairs = await recordedPairs(venue, connection, config);
  const recording = startRecording(
    { ...config, record: { ...config.record, enabled: true } },
    dirname(setup.configPath),
    { clock: systemClock, logger, metrics },
  );
  if (recording === null) throw new Error('record: the recording did not start');
  stops.push(() => recording.close());
  for (const pair of pairs) recording.recorder.addPair({ ...pair.binding, wallet: pair.wallet, binding: pair.binding });
  stops.push(recording.follow(venue.feed, []));
  for (const pair of pairs) venue.feed.add({ symbol: pair.binding.symbol, pairId: pair.binding.pairId });
  stops.push(pollTradeInfo(recording, venue, pairs, connection.venue.config.tradeInfoPollMs, logger));
  const catalog = new StrategyCatalog((path) => io.readFile(path));
  const fairValues = buildFairValues(
    pairs.map((pair) => ({ ...pair, strategy: catalog.load(setup.strategyPath(pair.entry)) })),
    { ...fairValueBuildOf(connection, setup, venue.rest, logger), onReading: recording.onReading },
  );
  for (const fairValue of fairValues.values()) {
    stops.push(() => fairValue.stop());
    await fairValue.start();
  }
  const taps = startBookTaps(
    connection,
    pairs.map((pair) => pair.binding),
    recording,
    { confirmations: evmConfirmations(config, false), logger, metrics },
  );
  stops.push(taps.stop);
  return { recording, pairs, taps: taps.count };
}

export async function recordCommand(args: string[], io: CliIo, signals: RecordSignals = process): Promise<number> {
  const { config: configSource, seconds } = parseRecordArgs(args);
  const setup = checkedSetup(configSource, io);
  const { config } = setup;
  const connection = connectionOf(setup, setup.embedded ? runningEmbeddedManifest(io) : setup.manifest);
  const logger = createLogger({
    level: config.telemetry.logLevel,
    name: 'dlt-mm',
    knownSecrets: [connection.venue.apiKey, ...authSecrets(connection.venue.auth)],
    destination: { write: (line: string) => io.stderr(line) },
  });
  const metrics = new Metrics();
  const venue = createVenueClients(
    connection.venue.config,
    {
      apiKey: connection.venue.apiKey,
      ...(connection.venue.auth === undefined ? {} : { auth: connection.venue.auth }),
    },
    { logger, metrics },
  );
  const stops: Stop[] = [() => venue.close()];
  try {
    const { recording, pairs, taps } = await startParts(setup, connection, venue, { logger, metrics }, stops, io);
    io.stdout(
      `recording ${pairs.length} pair(s) into ${config.record.dir} (${taps} book tap(s)); ${seconds === null ? 'SIGINT or SIGTERM stops' : `for ${seconds} s`}\n`,
    );
    await untilStopped(signals, seconds);
    io.stdout(`recorded into ${recording.recorder.path ?? '(nothing recorded)'}\n`);
    return EXIT_OK;
  } finally {
    for (const stop of stops.toReversed()) {
      try {
        await stop();
      } catch (e) {
        logger.warn({ err: e }, 'record: stopping a part failed');
      }
    }
  }
}
