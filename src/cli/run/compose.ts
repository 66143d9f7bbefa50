/**
 * The composition root of `dlt-mm run`: from a bot configuration (and, for the embedded sandbox, a freshly
 * started local venue) to a running bot with its telemetry server. Every real part is built here and nowhere
 * else; the engine below sees only interfaces.
 */
import { rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { BotConfig } from '../../core/config/bot-config.ts';
import { checkSecrets, parseBotConfig, readSecret, type ConfigEnvironment } from '../../core/config/load.ts';
import { DEFAULT_CALENDAR } from '../../core/calendar.ts';
import { Decimal } from '../../core/decimal.ts';
import { baseToNative, quoteToNative, toScaled } from '../../core/units.ts';
import { DltError } from '../../core/errors.ts';
import { chainKindOf, resolvePair, type TradingPair } from '../../core/pair.ts';
import { Bot, type BotPair, type BotWallet } from '../../engine/loop/bot.ts';
import { obligationRoutes } from '../../engine/obligations/control.ts';
import { ObligationTracker, type ObligationPair } from '../../engine/obligations/tracker.ts';
import { StrategyCatalog } from '../../engine/loop/strategy-catalog.ts';
import { resolveLimits } from '../../engine/risk/limits.ts';
import { WalletEngine } from '../../engine/wallet/wallet-engine.ts';
import type { SandboxOptions } from '../../sandbox/venue/start.ts';
import type { Sandbox } from '../../sandbox/venue/sandbox.ts';
import { openStore, type Store } from '../../store/store.ts';
import { startTelemetryServer, type TelemetryServer } from '../../telemetry/http-server.ts';
import { createLogger, type Logger } from '../../telemetry/logger.ts';
import { createMetrics, type Metrics } from '../../telemetry/metrics.ts';
import { createVenueClients, type VenueClients, type VenueConfig } from '../../venue/venue-clients.ts';
import type { CliIo } from '../io.ts';
import { authSecrets, venueAuthOf, type VenueAuth } from '../../venue/auth/venue-auth.ts';
import { adapterOf, bindingOf, manifestAuth, type Connection, type WalletSetup } from '../wiring.ts';
import { systemClock } from '../../core/system-clock.ts';
import type { DestinationStream } from 'pino';
import { logPathBeside } from './log-output.ts';

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

interface VenueAccess {
  readonly config: VenueConfig;
  readonly apiKey: string;
  readonly auth: VenueAuth | undefined;
}

/** The venue section and chain endpoints of an embedded or manifest-described sandbox. */
function fromSandbox(config: BotConfig, m: Sandbox['manifest']): { venue: VenueAccess; connection: Connection } {
  const venueConfig: VenueConfig = {
    restUrl: m.venue.restUrl,
    wsUrl: m.venue.wsUrl,
    wsHost: m.venue.wsHost,
    dateHeader: m.venue.dateHeader,
    apiKey: { env: 'UNUSED' },
    participantId: m.venue.participantId,
    requestTimeoutMs: config.venue?.requestTimeoutMs ?? 10_000,
    tradeInfoPollMs: config.venue?.tradeInfoPollMs ?? 5_000,
    marketDataStaleMs: config.venue?.marketDataStaleMs ?? 10_000,
  };
  const wallets: WalletSetup[] = m.wallets
    .filter((w) => w.marketMaker)
    .map((w) => ({
      id: w.name,
      chain: w.chain,
      key: w.key,
      channels: ('channelAccounts' in w ? (w.channelAccounts ?? []) : []).map((c) => c.secret),
      marketMaker: true,
      pairs: w.pairIds.map((id) => ({ id })),
    }));
  const auth = manifestAuth(m.venue);
  return {
    venue: { config: venueConfig, apiKey: m.venue.apiKey, auth },
    connection: {
      restUrl: m.venue.restUrl,
      auth,
      timeoutMs: venueConfig.requestTimeoutMs,
      evm: { rpcUrl: m.chains.evm.rpcUrl, chainId: m.chains.evm.chainId },
      wasm: { rpcUrl: m.chains.wasm.rpcUrl, networkPassphrase: m.chains.wasm.networkPassphrase },
      wallets,
    },
  };
}

function fromConfig(config: BotConfig, env: ConfigEnvironment): { venue: VenueAccess; connection: Connection } {
  const v = config.venue;
  if (v === undefined) throw new DltError('E_CONFIG_INVALID', 'venue: required unless sandbox.embedded or sandbox.manifest is set');
  const apiKey = readSecret(v.apiKey, 'venue.apiKey', env);
  const auth = venueAuthOf(v, (ref, where) => readSecret(ref, where, env));
  const enabled = config.pairs.filter((p) => p.enabled);
  return {
    venue: { config: v, apiKey, auth },
    connection: {
      restUrl: v.restUrl,
      auth,
      timeoutMs: v.requestTimeoutMs,
      ...(config.chains.evm === undefined ? {} : { evm: { rpcUrl: config.chains.evm.rpcUrl, chainId: config.chains.evm.chainId } }),
      ...(config.chains.wasm === undefined ? {} : { wasm: { rpcUrl: config.chains.wasm.rpcUrl, networkPassphrase: config.chains.wasm.networkPassphrase } }),
      wallets: config.wallets.map((w, i) => ({
        id: w.id,
        chain: w.chain,
        key: readSecret(w.key, `wallets.${i}.key`, env),
        channels: w.channelAccounts.map((c, j) => readSecret(c, `wallets.${i}.channelAccounts.${j}`, env)),
        marketMaker: w.marketMaker,
        pairs: enabled.filter((p) => p.wallet === w.id).map((p) => ({ blockChain: p.blockChain, base: p.base, quote: p.quote })),
      })),
    },
  };
}

export async function composeRun(options: RunOptions): Promise<RunParts> {
  const { io } = options;
  const configPath = resolve(io.cwd, options.configPath);
  const dir = dirname(configPath);
  const config = parseBotConfig(io.readFile(configPath), options.configPath);
  const env: ConfigEnvironment = { env: io.env, readFile: (p) => io.readFile(resolve(dir, p)) };
  const embedded = config.sandbox?.embedded === true;
  if (!embedded && config.sandbox?.manifest === undefined) checkSecrets(config, options.configPath, env);

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
    let access: { venue: VenueAccess; connection: Connection };
    if (embedded) {
      const base = config.sandbox?.portBase;
      // Loaded only for the embedded sandbox: a bot against a real venue or a running sandbox starts without it.
      const { startSandbox } = await import('../../sandbox/venue/start.ts');
      sandbox = await startSandbox({
        ports: base === undefined ? { api: 0, evm: 0, wasm: 0 } : { api: base, evm: base + 1, wasm: base + 2 },
        flow: { enabled: config.sandbox?.flow ?? true },
        manifest: resolve(io.cwd, '.sandbox', 'embedded-manifest.json'),
        cwd: io.cwd,
        ...options.sandbox,
      });
      const s = sandbox;
      undo.push(() => s.stop());
      access = fromSandbox(config, sandbox.manifest);
    } else if (config.sandbox?.manifest !== undefined) {
      access = fromSandbox(config, JSON.parse(io.readFile(resolve(dir, config.sandbox.manifest))) as Sandbox['manifest']);
    } else {
      access = fromConfig(config, env);
    }
    const c = access.connection;
    const secrets = [access.venue.apiKey, ...authSecrets(access.venue.auth), ...c.wallets.flatMap((w) => [w.key, ...w.channels])];
    const storePath = embedded ? resolve(io.cwd, '.sandbox', 'embedded-bot.sqlite') : resolve(dir, config.store.path);
    const output = options.logTo === undefined ? { format: options.tty ? ('human' as const) : ('json' as const) } : { format: 'json' as const, destination: options.logTo(logPathBeside(storePath)) };
    const logger = createLogger({ level: config.telemetry.logLevel, name: 'dlt-mm', knownSecrets: secrets, ...output });
    const metrics = createMetrics({ processMetrics: true });

    // An embedded sandbox is a new venue every time: yesterday's state would describe other chains.
    if (embedded) for (const suffix of ['', '-wal', '-shm']) rmSync(`${storePath}${suffix}`, { force: true });
    const store = openStore(storePath);
    undo.push(() => store.close());

    const venue = createVenueClients(access.venue.config, { apiKey: access.venue.apiKey, ...(access.venue.auth === undefined ? {} : { auth: access.venue.auth }) }, { logger, metrics });
    undo.push(() => venue.close());
    // The connection opens now; the bot's subscriptions go out as it adds its markets (on connect if later).
    venue.marketData.start();
    const listed: TradingPair[] = await venue.rest.listTradingPairs();

    const catalog = new StrategyCatalog((p) => io.readFile(p));
    const defaultStrategy = resolve(dir, config.sandbox?.strategy ?? '../strategies/ladder.yaml');
    const obligationPairs: ObligationPair[] = [];
    const wallets: BotWallet[] = [];
    const pairs: BotPair[] = [];
    const engines: WalletEngine[] = [];
    for (const w of c.wallets) {
      const bindings = w.pairs.map((q) => {
        const p = 'id' in q ? listed.find((x) => x.id === q.id) : resolvePair(listed, { blockChain: q.blockChain, baseSymbol: q.base, quoteSymbol: q.quote });
        if (p === undefined || p.blockChain === undefined || chainKindOf(p.blockChain) !== w.chain) {
          throw new DltError('E_PAIR_NOT_FOUND', `wallet ${w.id}: pair ${JSON.stringify(q)} is not listed on ${w.chain}`, { details: { wallet: w.id } });
        }
        return { pair: p, binding: bindingOf(p, config) };
      })
      // A sandbox pair whose pairs entry is disabled is not traded either (the manifest lists every pair).
      .filter(({ pair }) => !config.pairs.some((c) => !c.enabled && c.wallet === w.id && c.base === pair.baseTokenData?.symbol && c.quote === pair.quoteTokenSymbol));
      if (bindings.length === 0) continue;
      const budgets: Record<string, Partial<Record<'base' | 'quote', bigint>>> = {};
      for (const { pair, binding } of bindings) {
        const b = config.pairs.find((p) => p.enabled && p.wallet === w.id && p.base === pair.baseTokenData?.symbol && p.quote === pair.quoteTokenSymbol)?.allowanceBudget;
        if (b === undefined) continue;
        const s = binding.rules.scales;
        budgets[binding.pairId] = {
          ...(b.base === undefined ? {} : { base: baseToNative(new Decimal(b.base), s) }),
          ...(b.quote === undefined ? {} : { quote: quoteToNative(new Decimal(b.quote), s) }),
        };
      }
      const gwei = config.chains.evm?.maxFeePerGasGwei;
      const adapter = adapterOf(
        w,
        c,
        store,
        { logger, metrics },
        {
          evmConfirmations: embedded || config.sandbox?.manifest !== undefined ? 1 : (config.chains.evm?.confirmations ?? 2),
          ...(gwei === undefined ? {} : { maxFeePerGasCap: toScaled(new Decimal(gwei), 10n ** 9n, 'chains.evm.maxFeePerGasGwei') }),
          ...(config.chains.wasm === undefined ? {} : { approvalLedgers: config.chains.wasm.approvalLedgers }),
          ...(Object.keys(budgets).length === 0 ? {} : { budgets }),
        },
      );
      undo.push(() => adapter.close());
      await Promise.all(bindings.map((b) => adapter.ensureReady(b.binding)));
      const engine = await WalletEngine.create({
        adapter,
        pairs: bindings.map((b) => b.binding),
        store,
        marketMaker: w.marketMaker,
        logger,
        metrics,
        clock: systemClock,
        crossIdTag: config.engine.crossIdTag,
        rest: { walletOrders: (a) => venue.rest.getWalletOrders(a) },
      });
      undo.push(() => engine.stop());
      engines.push(engine);
      wallets.push({ id: w.id, engine, adapter, marketMaker: w.marketMaker, nativeDecimals: w.chain === 'evm' ? 18 : 7 });
      for (const { pair, binding } of bindings) {
        const configured = config.pairs.find((p) => p.enabled && p.wallet === w.id && p.base === pair.baseTokenData?.symbol && p.quote === pair.quoteTokenSymbol);
        const strategyPath = configured === undefined ? defaultStrategy : resolve(dir, configured.strategy);
        catalog.load(strategyPath);
        const limits = resolveLimits(config.risk, configured?.risk);
        obligationPairs.push({ binding, wallet: adapter.wallet, obligations: configured?.obligations ?? (configured === undefined ? (config.sandbox?.obligations ?? null) : null) });
        pairs.push({
          binding,
          walletId: w.id,
          strategy: () => catalog.get(strategyPath),
          limits: () => limits,
          refreshCost: new Decimal(configured?.refreshCost ?? '0'),
        });
      }
    }
    const calendar = { ...DEFAULT_CALENDAR, holidays: config.calendar.holidays };
    const calendarUse = { enabled: config.calendar.enabled && !embedded, config: calendar };
    const obligations = new ObligationTracker({ store, pairs: obligationPairs, calendar: calendarUse, sampleMs: config.report.sampleMs, clock: systemClock, logger: logger.child({ component: 'obligations' }), metrics });
    // The obligation tracker reads our quotes from the same confirmed events, after the engine applied them.
    for (const e of engines) e.onConfirmedEvents((events) => obligations.onChainEvents(e.chain, e.wallet, events));
    const created = new Bot({
      wallets,
      pairs,
      feed: venue.feed,
      rest: venue.rest,
      calendar: calendarUse,
      timings: {
        tickMs: config.engine.tickMs,
        tradeInfoPollMs: access.venue.config.tradeInfoPollMs,
        phasePollMs: config.engine.phasePollMs,
        balanceMaxAgeMs: config.engine.balanceMaxAgeMs,
        inventoryCheckMs: config.engine.inventoryCheckMs,
      },
      clock: systemClock,
      logger,
      metrics,
      reloadStrategies: () => catalog.reload(),
      obligations,
    });
    const telemetry = await startTelemetryServer({
      metrics,
      host: embedded ? '127.0.0.1' : config.telemetry.metricsHost,
      port: config.telemetry.metricsPort,
      readiness: () => {
        const r = created.readiness();
        return { ready: r.ready, reason: r.detail };
      },
      logger,
      routes: obligationRoutes(obligations, systemClock),
    }).catch((e: unknown) => {
      const code = (e as { code?: unknown }).code;
      if (code !== 'EADDRINUSE') throw e;
      throw new DltError('E_CONFIG_INVALID', `telemetry.metricsPort ${config.telemetry.metricsPort} is already in use (another bot?); stop it or choose another port`, { cause: e });
    });
    undo.push(() => telemetry.close());
    return { config, logger, metrics, store, venue, bot: created, telemetry, sandbox, engines, obligations, close };
  } catch (e) {
    await close();
    throw e;
  }
}
