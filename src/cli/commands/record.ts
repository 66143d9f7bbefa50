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
import { createLogger } from '../../telemetry/logger.ts';
import { Metrics } from '../../telemetry/metrics.ts';
import { createVenueClients } from '../../venue/venue-clients.ts';
import { usageArgs } from '../args.ts';
import { connectionOf } from '../bootstrap/connection.ts';
import { authSecrets } from '../../venue/auth/venue-auth.ts';
import { buildFairValues, fairValueBuildOf } from '../bootstrap/fair-value.ts';
import { runningEmbeddedManifest } from '../bootstrap/manifest.ts';
import { walletPairs, type WalletPair } from '../bootstrap/pairs.ts';
import { startBookTaps, startRecording } from '../bootstrap/recording.ts';
import { checkedSetup } from '../bootstrap/setup.ts';
import { EXIT_OK, type CliIo } from '../io.ts';

export const RECORD_USAGE = `  dlt-mm record --config <file> [--for <seconds>]
                                      record books, trade information, every client's order book events and
                                      fair-value readings of the configured pairs without trading (record.dir)`;

export interface RecordSignals {
  once(signal: 'SIGINT' | 'SIGTERM', fn: () => void): unknown;
  off(signal: 'SIGINT' | 'SIGTERM', fn: () => void): unknown;
}

export async function recordCommand(args: string[], io: CliIo, signals: RecordSignals = process): Promise<number> {
  const { values } = usageArgs(
    () => parseArgs({ args, options: { config: { type: 'string' }, for: { type: 'string' } }, strict: true }),
    RECORD_USAGE,
  );
  if (values.config === undefined) throw new DltError('E_USAGE', `--config is required\n${RECORD_USAGE}`);
  const seconds = values.for === undefined ? null : Number(values.for);
  if (seconds !== null && !(Number.isFinite(seconds) && seconds > 0))
    throw new DltError('E_USAGE', `--for: ${JSON.stringify(values.for)} is not a positive number of seconds`);
  const setup = checkedSetup(values.config, io);
  const { config } = setup;
  const c = connectionOf(setup, setup.embedded ? runningEmbeddedManifest(io) : setup.manifest);
  const logger = createLogger({
    level: config.telemetry.logLevel,
    name: 'dlt-mm',
    knownSecrets: [c.venue.apiKey, ...authSecrets(c.venue.auth)],
    destination: { write: (line: string) => io.stderr(line) },
  });
  const metrics = new Metrics();
  const venue = createVenueClients(
    c.venue.config,
    { apiKey: c.venue.apiKey, ...(c.venue.auth === undefined ? {} : { auth: c.venue.auth }) },
    { logger, metrics },
  );
  const stops: Array<() => Promise<void> | void> = [() => venue.close()];
  try {
    venue.marketData.start();
    const listed = await venue.rest.listTradingPairs();
    const byId = new Map<string, WalletPair & { wallet: string }>();
    for (const w of c.wallets)
      for (const p of walletPairs(listed, w, config)) byId.set(p.binding.pairId, { ...p, wallet: w.id });
    const pairs = [...byId.values()];
    const recording = startRecording(
      { ...config, record: { ...config.record, enabled: true } },
      dirname(setup.configPath),
      {
        clock: systemClock,
        logger,
        metrics,
      },
    );
    if (recording === null) throw new Error('record: the recording did not start');
    stops.push(() => recording.close());
    for (const p of pairs) recording.recorder.addPair({ ...p.binding, wallet: p.wallet, binding: p.binding });
    stops.push(recording.follow(venue.feed, []));
    for (const p of pairs) venue.feed.add({ symbol: p.binding.symbol, pairId: p.binding.pairId });
    const tradeInfo = recording.tradeInfo(venue.rest);
    const poll = systemClock.setRepeating(() => {
      for (const p of pairs)
        tradeInfo
          .getTradeInfo(p.binding.pairId)
          .catch((e: unknown) => logger.warn({ err: e, pair: p.binding.pairId }, 'trade information not read'));
    }, c.venue.config.tradeInfoPollMs);
    stops.push(() => poll.cancel());
    const catalog = new StrategyCatalog((path) => io.readFile(path));
    const fairValues = buildFairValues(
      pairs.map((p) => ({ ...p, strategy: catalog.load(setup.strategyPath(p.entry)) })),
      {
        ...fairValueBuildOf(c, setup, venue.rest, logger),
        onReading: recording.onReading,
      },
    );
    for (const fv of fairValues.values()) {
      stops.push(() => fv.stop());
      await fv.start();
    }
    const taps = startBookTaps(
      c,
      pairs.map((p) => p.binding),
      recording,
      { confirmations: config.chains.evm?.confirmations ?? 2, logger, metrics },
    );
    stops.push(taps.stop);
    io.stdout(
      `recording ${pairs.length} pair(s) into ${config.record.dir} (${taps.count} book tap(s)); ${seconds === null ? 'SIGINT or SIGTERM stops' : `for ${seconds} s`}\n`,
    );
    await new Promise<void>((done) => {
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
