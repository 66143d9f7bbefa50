/**
 * The composition root of `dlt-mm run`: from a bot configuration (and, for the embedded sandbox, a freshly
 * started local venue) to a running bot with its telemetry server. The configuration is checked whole before
 * anything starts; the sandbox's code is loaded only when the configuration embeds it. Every real part is
 * built here or in the bootstrap modules beside it; the engine below sees only interfaces.
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DestinationStream } from 'pino';
import type { BotConfig } from '../../core/config/bot-config.ts';
import { DEFAULT_CALENDAR } from '../../core/calendar.ts';
import { DltError } from '../../core/errors.ts';
import { systemClock } from '../../core/system-clock.ts';
import type { PairBinding } from '../../chains/types.ts';
import { Bot } from '../../engine/loop/bot.ts';
import { StrategyCatalog } from '../../engine/loop/strategy-catalog.ts';
import { obligationRoutes } from '../../engine/obligations/control.ts';
import { fairValueRoutes } from '../../engine/fair-value/report.ts';
import type { CalendarUse } from '../../core/calendar.ts';
import { ObligationTracker, type ObligationPair } from '../../engine/obligations/tracker.ts';
import type { PairFairValue } from '../../engine/fair-value/pair-fair-value.ts';
import type { WalletEngine } from '../../engine/wallet/wallet-engine.ts';
import type { Sandbox } from '../../sandbox/venue/sandbox.ts';
import type { SandboxOptions } from '../../sandbox/venue/start.ts';
import { groupCommits } from '../../store/database.ts';
import { openStore, type Store } from '../../store/store.ts';
import { evmConfirmations } from './adapters.ts';
import { startBookTaps, startRecording, type Recording } from './recording.ts';
import { botOf, runPairsOf } from './run-bot.ts';
import { startTelemetryServer, type TelemetryServer } from '../../telemetry/http-server.ts';
import { createLogger, type Logger } from '../../telemetry/logger.ts';
import { createMetrics, type Metrics } from '../../telemetry/metrics.ts';
import { authSecrets } from '../../venue/auth/venue-auth.ts';
import { createVenueClients, type VenueClients } from '../../market/venue-clients.ts';
import type { CliIo } from '../io.ts';
import { logPathBeside } from '../run/log-output.ts';
import { connectionOf, type Connection } from './connection.ts';
import { embeddedSandboxOptions } from './manifest.ts';
import { buildFairValues, fairValueBuildOf } from './fair-value.ts';
import { checkedSetup, type Setup } from './setup.ts';
import { openTradingWallets, type TradingWallet } from './wallets.ts';

export interface RunParts {
  readonly config: BotConfig;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly store: Store;
  readonly venue: VenueClients;
  readonly bot: Bot;
  readonly telemetry: TelemetryServer;
  readonly sandbox: Sandbox | null;
  readonly engines: readonly WalletEngine[];
  /** Market-making obligations of every pair: `snapshot(pairId)` for the board (see tracker.ts). */
  readonly obligations: ObligationTracker;
  /** Stops everything that was started, in reverse order (the bot must have shut down first). */
  close(): Promise<void>;
}

export interface RunOptions {
  readonly configPath: string;
  readonly io: CliIo;
  readonly tty: boolean;
  /** Extra embedded-sandbox settings (tests use free ports and fast blocks). */
  readonly sandbox?: SandboxOptions;
  /**
   * Where the log's JSON lines go, given the default log file (beside the store). Without it they go to
   * standard output (a short human form when `tty`).
   */
  readonly logTo?: (defaultPath: string) => DestinationStream;
}

type Undo = () => Promise<void> | void;

/** The embedded sandbox when the configuration asks for one (its code loaded only then), else null. */
async function startEmbedded(setup: Setup, options: RunOptions): Promise<Sandbox | null> {
  if (!setup.embedded) return null;
  // Loaded only for the embedded sandbox: a bot against a real venue or a running sandbox starts without it.
  const { startSandbox } = await import('../../sandbox/venue/start.ts');
  return startSandbox(embeddedSandboxOptions(setup.config, options.io.cwd, options.sandbox));
}

/** The run's logger, every secret of the connection redacted, writing where the options say. */
function runLogger(config: BotConfig, connection: Connection, storePath: string, options: RunOptions): Logger {
  const secrets = [
    connection.venue.apiKey,
    ...authSecrets(connection.venue.auth),
    ...connection.wallets.flatMap((wallet) => [wallet.key, ...wallet.channels]),
  ];
  const output =
    options.logTo === undefined
      ? { format: options.tty ? ('human' as const) : ('json' as const) }
      : { format: 'json' as const, destination: options.logTo(logPathBeside(storePath)) };
  return createLogger({ level: config.telemetry.logLevel, name: 'dlt-mm', knownSecrets: secrets, ...output });
}

function openRunStore(storePath: string, embedded: boolean, logger: Logger): Store {
  // An embedded sandbox is a new venue every time: yesterday's state would describe other chains.
  if (embedded) for (const suffix of ['', '-wal', '-shm']) rmSync(`${storePath}${suffix}`, { force: true });
  const store = openStore(storePath, systemClock.now, { clock: systemClock });
  groupCommits(store.db, (err) => {
    // A state file that cannot be written (a full disk): a restart recovers from what it holds and the chains.
    logger.fatal({ err, path: storePath }, 'the state file could not be written; stopping');
    logger.flush();
    process.exit(74); // sysexits' EX_IOERR
  });
  return store;
}

/** The telemetry server: metrics, health and readiness, the obligation and fair-value routes. */
function startRunTelemetry(
  setup: Setup,
  parts: Pick<RunParts, 'metrics' | 'bot' | 'logger' | 'obligations'>,
  fairValues: ReadonlyMap<string, PairFairValue>,
): Promise<TelemetryServer> {
  const { config } = setup;
  const { bot, obligations } = parts;
  return startTelemetryServer({
    metrics: parts.metrics,
    host: setup.embedded ? '127.0.0.1' : config.telemetry.metricsHost,
    port: config.telemetry.metricsPort,
    readiness: () => {
      const readiness = bot.readiness();
      return { ready: readiness.ready, reason: readiness.detail };
    },
    logger: parts.logger,
    routes: (req) => obligationRoutes(obligations, systemClock)(req) ?? fairValueRoutes(() => fairValues.values())(req),
  }).catch((e: unknown) => {
    const code = (e as { code?: unknown }).code;
    if (code !== 'EADDRINUSE') throw e;
    throw new DltError(
      'E_CONFIG_INVALID',
      `telemetry.metricsPort ${config.telemetry.metricsPort} is already in use (another bot?); stop it or choose another port`,
      { cause: e },
    );
  });
}

/** Records the feed and the engines, and taps every book's events, from now on. */
function followRecording(
  recording: Recording,
  connection: Connection,
  run: { venue: VenueClients; engines: readonly WalletEngine[]; bindings: readonly PairBinding[] },
  telemetry: { config: BotConfig; logger: Logger; metrics: Metrics },
  undo: Undo[],
): void {
  undo.push(recording.follow(run.venue.feed, run.engines));
  const taps = startBookTaps(connection, run.bindings, recording, {
    confirmations: evmConfirmations(telemetry.config, false),
    logger: telemetry.logger,
    metrics: telemetry.metrics,
  });
  undo.push(taps.stop);
}

/** What the run has opened before its wallets: the parts the later ones are built from. */
interface Opened {
  readonly setup: Setup;
  readonly connection: Connection;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly store: Store;
  readonly recording: Recording | null;
  readonly venue: VenueClients;
}

/** The venue's clients, their close queued in `undo`; the market-data connection opens now. */
function openVenue(connection: Connection, logger: Logger, metrics: Metrics, undo: Undo[]): VenueClients {
  const venue = createVenueClients(
    connection.venue.config,
    {
      apiKey: connection.venue.apiKey,
      ...(connection.venue.auth === undefined ? {} : { auth: connection.venue.auth }),
    },
    { logger, metrics },
  );
  undo.push(() => venue.close());
  // The connection opens now; the bot's subscriptions go out as it adds its markets (on connect if later).
  venue.marketData.start();
  return venue;
}

async function openWallets({ setup, connection, logger, metrics, store, venue }: Opened) {
  const listed = await venue.rest.listTradingPairs();
  return openTradingWallets({
    config: setup.config,
    connection,
    listed,
    store,
    logger,
    metrics,
    clock: systemClock,
    rest: {
      walletOrders: (address) => venue.rest.getWalletOrders(address),
      walletOrderHistory: (address, pairId) =>
        venue.rest.getWalletOrders(address, { onlyOpen: false, tradingPair: pairId }),
    },
    ensureReady: true,
    walletStatus: venue.rest,
  });
}

/** Every strategy version the bot accepts is recorded, chained, with the operator the environment names. */
function catalogOf(io: CliIo, store: Store): StrategyCatalog {
  const operator = io.env.DLTMM_OPERATOR ?? io.env.USER ?? 'unknown';
  return new StrategyCatalog(
    (path) => io.readFile(path),
    (accepted) => store.parameterChanges.record({ ...accepted, atMs: systemClock.now(), operator }),
  );
}

function fairValuesOf(
  { setup, connection, logger, store, recording, venue }: Opened,
  wallets: readonly TradingWallet[],
  catalog: StrategyCatalog,
): Map<string, PairFairValue> {
  return buildFairValues(
    wallets.flatMap((wallet) =>
      wallet.pairs.map((pair) => ({ ...pair, strategy: catalog.load(setup.strategyPath(pair.entry)) })),
    ),
    {
      ...fairValueBuildOf(connection, setup, venue.rest, logger),
      samples: { everyMs: setup.config.report.sampleMs, write: (sample) => store.fairValues.add(sample) },
      ...(recording === null ? {} : { onReading: recording.onReading }),
    },
  );
}

/** The obligation tracker, reading our quotes from the engines' confirmed events after the engines applied them. */
function obligationTrackerOf(
  { setup, logger, metrics, store }: Opened,
  pairs: readonly ObligationPair[],
  engines: readonly WalletEngine[],
  calendar: CalendarUse,
): ObligationTracker {
  const obligations = new ObligationTracker({
    store,
    pairs,
    calendar,
    sampleMs: setup.config.report.sampleMs,
    clock: systemClock,
    logger: logger.child({ component: 'obligations' }),
    metrics,
  });
  for (const engine of engines)
    engine.onConfirmedEvents((events) => obligations.onChainEvents(engine.chain, engine.wallet, events));
  return obligations;
}

export async function composeRun(options: RunOptions): Promise<RunParts> {
  const { io } = options;
  // Every file the configuration names is read and checked, and conflicting keys refused, before anything opens.
  const setup = checkedSetup(options.configPath, io);
  const { config, embedded } = setup;
  const undo: Undo[] = [];
  const close = async () => {
    for (const fn of undo.splice(0).toReversed()) {
      try {
        await fn();
      } catch {
        // Best effort: one part failing to stop must not keep the others running.
      }
    }
  };
  try {
    const sandbox = await startEmbedded(setup, options);
    if (sandbox !== null) undo.push(() => sandbox.stop());
    const connection = connectionOf(setup, sandbox?.manifest ?? setup.manifest);
    const logger = runLogger(config, connection, setup.statePath, options);
    const metrics = createMetrics({ processMetrics: true });
    const store = openRunStore(setup.statePath, embedded, logger);
    undo.push(() => store.close());
    const recording = startRecording(config, dirname(setup.configPath), { clock: systemClock, logger, metrics });
    if (recording !== null) undo.push(() => recording.close());
    const venue = openVenue(connection, logger, metrics, undo);
    const base: Opened = { setup, connection, logger, metrics, store, recording, venue };
    const opened = await openWallets(base);
    undo.push(() => opened.close());
    const catalog = catalogOf(io, store);
    const fairValues = fairValuesOf(base, opened.wallets, catalog);
    const run = await runPairsOf({ config, setup, wallets: opened.wallets, catalog, fairValues, recording, store });
    const engines = opened.wallets.map((wallet) => wallet.engine);
    const calendar: CalendarUse = {
      enabled: config.calendar.enabled && !embedded,
      config: { ...DEFAULT_CALENDAR, holidays: config.calendar.holidays },
    };
    const obligations = obligationTrackerOf(base, run.obligationPairs, engines, calendar);
    const bot = botOf({ ...base, config, opened, run, catalog, obligations, calendar });
    if (recording !== null) {
      const bindings = opened.wallets.flatMap((wallet) => wallet.pairs.map((pair) => pair.binding));
      followRecording(recording, connection, { venue, engines, bindings }, { config, logger, metrics }, undo);
    }
    const telemetry = await startRunTelemetry(setup, { metrics, bot, logger, obligations }, fairValues);
    undo.push(() => telemetry.close());
    return { config, logger, metrics, store, venue, bot, telemetry, sandbox, engines, obligations, close };
  } catch (e) {
    await close();
    throw e;
  }
}
