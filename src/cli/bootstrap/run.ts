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
import { Decimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import { systemClock } from '../../core/system-clock.ts';
import { Bot, type BotPair, type BotWallet } from '../../engine/loop/bot.ts';
import { StrategyCatalog } from '../../engine/loop/strategy-catalog.ts';
import { obligationRoutes } from '../../engine/obligations/control.ts';
import { fairValueRoutes } from '../../engine/fair-value/report.ts';
import { ObligationTracker, type ObligationPair } from '../../engine/obligations/tracker.ts';
import { resolveLimits } from '../../engine/risk/limits.ts';
import { Throttle, throttleLimits } from '../../engine/risk/throttle.ts';
import type { WalletEngine } from '../../engine/wallet/wallet-engine.ts';
import type { Sandbox } from '../../sandbox/venue/sandbox.ts';
import type { SandboxOptions } from '../../sandbox/venue/start.ts';
import { openStore, type Store } from '../../store/store.ts';
import { startBookTaps, startRecording } from './recording.ts';
import { tradeChecksOf } from './trade-checks.ts';
import { PairEvaluation } from '../../engine/evaluation/pair-evaluation.ts';
import { startTelemetryServer, type TelemetryServer } from '../../telemetry/http-server.ts';
import { createLogger, type Logger } from '../../telemetry/logger.ts';
import { createMetrics, type Metrics } from '../../telemetry/metrics.ts';
import { authSecrets } from '../../venue/auth/venue-auth.ts';
import { createVenueClients, type VenueClients } from '../../venue/venue-clients.ts';
import type { CliIo } from '../io.ts';
import { logPathBeside } from '../run/log-output.ts';
import { connectionOf } from './connection.ts';
import { embeddedSandboxOptions } from './manifest.ts';
import { buildFairValues, fairValueBuildOf } from './fair-value.ts';
import { checkedSetup } from './setup.ts';
import { openTradingWallets } from './wallets.ts';

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

export async function composeRun(options: RunOptions): Promise<RunParts> {
  const { io } = options;
  // Every file the configuration names is read and checked, and conflicting keys refused, before anything opens.
  const setup = checkedSetup(options.configPath, io);
  const { config, embedded } = setup;

  const undo: Array<() => Promise<void> | void> = [];
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
    let sandbox: Sandbox | null = null;
    if (embedded) {
      // Loaded only for the embedded sandbox: a bot against a real venue or a running sandbox starts without it.
      const { startSandbox } = await import('../../sandbox/venue/start.ts');
      sandbox = await startSandbox(embeddedSandboxOptions(config, io.cwd, options.sandbox));
      const s = sandbox;
      undo.push(() => s.stop());
    }
    const c = connectionOf(setup, sandbox?.manifest ?? setup.manifest);
    const secrets = [c.venue.apiKey, ...authSecrets(c.venue.auth), ...c.wallets.flatMap((w) => [w.key, ...w.channels])];
    const storePath = setup.statePath;
    const output =
      options.logTo === undefined
        ? { format: options.tty ? ('human' as const) : ('json' as const) }
        : { format: 'json' as const, destination: options.logTo(logPathBeside(storePath)) };
    const logger = createLogger({ level: config.telemetry.logLevel, name: 'dlt-mm', knownSecrets: secrets, ...output });
    const metrics = createMetrics({ processMetrics: true });

    // An embedded sandbox is a new venue every time: yesterday's state would describe other chains.
    if (embedded) for (const suffix of ['', '-wal', '-shm']) rmSync(`${storePath}${suffix}`, { force: true });
    const store = openStore(storePath, systemClock.now, { clock: systemClock });
    undo.push(() => store.close());
    const recording = startRecording(config, dirname(setup.configPath), { clock: systemClock, logger, metrics });
    if (recording !== null) undo.push(() => recording.close());

    const venue = createVenueClients(
      c.venue.config,
      { apiKey: c.venue.apiKey, ...(c.venue.auth === undefined ? {} : { auth: c.venue.auth }) },
      { logger, metrics },
    );
    undo.push(() => venue.close());
    // The connection opens now; the bot's subscriptions go out as it adds its markets (on connect if later).
    venue.marketData.start();
    const listed = await venue.rest.listTradingPairs();

    const opened = await openTradingWallets({
      config,
      connection: c,
      listed,
      store,
      logger,
      metrics,
      clock: systemClock,
      rest: {
        walletOrders: (a) => venue.rest.getWalletOrders(a),
        walletOrderHistory: (a, pairId) => venue.rest.getWalletOrders(a, { onlyOpen: false, tradingPair: pairId }),
      },
      ensureReady: true,
      walletStatus: venue.rest,
    });
    undo.push(() => opened.close());
    // Every strategy version the bot accepts is recorded, chained, with the operator the environment names.
    const operator = io.env.DLTMM_OPERATOR ?? io.env.USER ?? 'unknown';
    const catalog = new StrategyCatalog(
      (p) => io.readFile(p),
      (a) => store.parameterChanges.record({ ...a, atMs: systemClock.now(), operator }),
    );
    const obligationPairs: ObligationPair[] = [];
    const wallets: BotWallet[] = [];
    const pairs: BotPair[] = [];
    const fairValues = buildFairValues(
      opened.wallets.flatMap((w) =>
        w.pairs.map((p) => ({ ...p, strategy: catalog.load(setup.strategyPath(p.entry)) })),
      ),
      {
        ...fairValueBuildOf(c, setup, venue.rest, logger),
        samples: { everyMs: config.report.sampleMs, write: (s) => store.fairValues.add(s) },
        ...(recording === null ? {} : { onReading: recording.onReading }),
      },
    );
    // Markouts and PnL attribution: where fills and marks are kept, the horizons, the chain fee rates.
    const evaluation = {
      store: store.evaluation,
      horizonsMs: config.evaluation.markoutHorizonsMs,
      chainFeeRate: {
        evm: new Decimal(config.evaluation.chainFeeRate.evm),
        wasm: new Decimal(config.evaluation.chainFeeRate.wasm),
      },
      clock: systemClock,
    };
    for (const w of opened.wallets) {
      wallets.push({ id: w.id, engine: w.engine, adapter: w.adapter, marketMaker: w.marketMaker });
      const walletThrottle = new Throttle('wallet', () => throttleLimits(config.throttle.wallet));
      for (const { binding, entry } of w.pairs) {
        const strategyPath = setup.strategyPath(entry);
        const limits = resolveLimits(config.risk, entry?.risk);
        // A pair several of our wallets quote is measured on the first of them.
        if (!obligationPairs.some((p) => p.binding.pairId === binding.pairId))
          obligationPairs.push({
            binding,
            wallet: w.adapter.wallet,
            obligations: entry?.obligations ?? (entry === undefined ? (config.sandbox?.obligations ?? null) : null),
          });
        pairs.push({
          binding,
          walletId: w.id,
          strategy: () => catalog.get(strategyPath),
          limits: () => limits,
          refreshCost: new Decimal(entry?.refreshCost ?? '0'),
          throttles: [
            walletThrottle,
            new Throttle('pair', () => throttleLimits(config.throttle.pair, entry?.throttle)),
          ],
          ...(fairValues.has(binding.pairId) ? { fairValue: fairValues.get(binding.pairId) } : {}),
          ...(recording === null ? {} : { record: recording.record(binding.pairId) }),
          evaluation: new PairEvaluation({
            ...evaluation,
            pairId: binding.pairId,
            wallet: w.adapter.wallet,
            scales: binding.rules.scales,
          }),
        });
        if (recording !== null) {
          // What a replay starts from: the book's own configuration and the wallet's balances now.
          const [state, balances] = await Promise.all([
            w.adapter.readPairState(binding),
            w.adapter.readBalances(binding),
          ]);
          recording.recorder.addPair({
            ...binding,
            wallet: w.adapter.wallet,
            binding,
            state: { ...state, marketMaker: w.marketMaker },
            balances,
          });
        }
      }
    }
    const engines = opened.wallets.map((w) => w.engine);
    const calendar = { ...DEFAULT_CALENDAR, holidays: config.calendar.holidays };
    const calendarUse = { enabled: config.calendar.enabled && !embedded, config: calendar };
    const obligations = new ObligationTracker({
      store,
      pairs: obligationPairs,
      calendar: calendarUse,
      sampleMs: config.report.sampleMs,
      clock: systemClock,
      logger: logger.child({ component: 'obligations' }),
      metrics,
    });
    // The obligation tracker reads our quotes from the same confirmed events, after the engine applied them.
    for (const e of engines) e.onConfirmedEvents((events) => obligations.onChainEvents(e.chain, e.wallet, events));
    const bot = new Bot({
      wallets,
      pairs,
      feed: venue.feed,
      rest: recording?.tradeInfo(venue.rest) ?? venue.rest,
      calendar: calendarUse,
      timings: {
        tickMs: config.engine.tickMs,
        tradeInfoPollMs: c.venue.config.tradeInfoPollMs,
        phasePollMs: config.engine.phasePollMs,
        balanceMaxAgeMs: config.engine.balanceMaxAgeMs,
        inventoryCheckMs: config.engine.inventoryCheckMs,
        tradeCheckMs: config.engine.tradeCheckMs,
      },
      clock: systemClock,
      logger,
      metrics,
      reloadStrategies: () => catalog.reload(),
      obligations,
      // The venue's list of each wallet's trades against the fills the engine attributed from the chain.
      tradeChecks: tradeChecksOf(opened.wallets, {
        source: venue.rest,
        store,
        graceMs: config.engine.tradeCheckGraceMs,
        clock: systemClock,
        logger,
        metrics,
      }),
    });
    if (recording !== null) {
      undo.push(recording.follow(venue.feed, engines));
      const bindings = opened.wallets.flatMap((w) => w.pairs.map((p) => p.binding));
      const taps = startBookTaps(c, bindings, recording, {
        confirmations: config.chains.evm?.confirmations ?? 2,
        logger,
        metrics,
      });
      undo.push(taps.stop);
    }
    const telemetry = await startTelemetryServer({
      metrics,
      host: embedded ? '127.0.0.1' : config.telemetry.metricsHost,
      port: config.telemetry.metricsPort,
      readiness: () => {
        const r = bot.readiness();
        return { ready: r.ready, reason: r.detail };
      },
      logger,
      routes: (req) =>
        obligationRoutes(obligations, systemClock)(req) ?? fairValueRoutes(() => fairValues.values())(req),
    }).catch((e: unknown) => {
      const code = (e as { code?: unknown }).code;
      if (code !== 'EADDRINUSE') throw e;
      throw new DltError(
        'E_CONFIG_INVALID',
        `telemetry.metricsPort ${config.telemetry.metricsPort} is already in use (another bot?); stop it or choose another port`,
        { cause: e },
      );
    });
    undo.push(() => telemetry.close());
    return { config, logger, metrics, store, venue, bot, telemetry, sandbox, engines, obligations, close };
  } catch (e) {
    await close();
    throw e;
  }
}
