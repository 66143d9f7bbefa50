/**
 * One backtest run from a bot configuration and recordings: the recorded pairs bound to the configuration's
 * entries (their strategy, risk limits, refresh cost and obligations, as `run` binds them), a fresh state store
 * in the output directory, the replay, and the trading-day report of the replayed span marked as a backtest.
 * Strategy parameters may be changed for the run (`overrides`, a sweep's combination) without touching the
 * files.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pino } from 'pino';
import { parseDocument } from 'yaml';
import { runBacktest, type BacktestPair } from '../../backtest/replay.ts';
import { VirtualClock } from '../../backtest/virtual-clock.ts';
import { approvalOptions } from '../../chains/wasm/options.ts';
import type { BotConfig, PairConfig } from '../../core/config/bot-config.ts';
import { budgetsOf, evmConfirmations } from '../bootstrap/adapters.ts';
import { createLogger } from '../../telemetry/logger.ts';
import { recordedStart } from '../../backtest/recorded-pair.ts';
import { DEFAULT_CALENDAR, toVenueLocal } from '../../core/calendar.ts';
import { chainKindOf } from '../../core/pair.ts';
import { Decimal, parseDecimalString } from '../../core/decimal.ts';
import { baseToNative, quoteToNative } from '../../core/units.ts';
import type { PairBinding } from '../../chains/types.ts';
import { DltError } from '../../core/errors.ts';
import { StrategyCatalog } from '../../engine/loop/strategy-catalog.ts';
import { throttleLimits } from '../../engine/risk/throttle.ts';
import { resolveLimits } from '../../engine/risk/limits.ts';
import type { RecordedPairData, RecordingData } from '../../store/recording-read.ts';
import { openStore } from '../../store/store.ts';
import { createMetrics } from '../../telemetry/metrics.ts';
import type { CliIo } from '../io.ts';
import type { Setup } from '../bootstrap/setup.ts';
import { writeDayReport, type ReportFiles } from '../commands/report.ts';
import { runSummary, type RunSummary } from './summary.ts';
import { VENUE_DEFAULTS } from '../../core/config/venue-defaults.ts';

export interface BacktestRun {
  readonly setup: Setup;
  readonly data: RecordingData;
  readonly recordings: readonly string[];
  readonly fromMs: number;
  readonly toMs: number;
  /** Every pair's strategy file instead of the configuration's. */
  readonly strategy?: string;
  /** Strategy parameters changed for this run: `ladder.bidSpreadBps` -> `20`. */
  readonly overrides: Readonly<Record<string, string>>;
  readonly out: string;
  readonly seed: number;
  /** Each pair's starting base and quote amounts (human units) where the recording has none. */
  readonly balances?: { readonly base: string; readonly quote: string };
}

export interface BacktestOutcome {
  readonly summary: RunSummary;
  readonly report: ReportFiles;
  /** Simulated and wall-clock milliseconds of the replay. */
  readonly simulatedMs: number;
  readonly wallMs: number;
}

/** The strategy file's text with `overrides` set (dotted keys into its YAML), refused when a key is not there. */
export function overridden(text: string, overrides: Readonly<Record<string, string>>, where: string): string {
  if (Object.keys(overrides).length === 0) return text;
  const doc = parseDocument(text);
  for (const [key, value] of Object.entries(overrides)) {
    const path = key.split('.');
    if (!doc.hasIn(path))
      throw new DltError('E_USAGE', `--grid ${key}: ${where} has no ${key} (a sweep changes parameters the file sets)`);
    const asNumber = Number(value);
    doc.setIn(path, value !== '' && Number.isFinite(asNumber) && String(asNumber) === value ? asNumber : value);
  }
  return doc.toString();
}

/** `--balances` in the pair's native units, or null without them. */
function startingBalances(
  given: BacktestRun['balances'],
  binding: PairBinding,
): { readonly base: bigint; readonly quote: bigint } | null {
  if (given === undefined) return null;
  const scales = binding.rules.scales;
  return {
    base: baseToNative(parseDecimalString(given.base, '--balances base'), scales),
    quote: quoteToNative(parseDecimalString(given.quote, '--balances quote'), scales),
  };
}

function startOf(run: BacktestRun): { startMs?: number } {
  const first = run.data.actions.find((action) => action.stage === 'decided' && action.recvMs >= run.fromMs)?.recvMs;
  return first === undefined ? {} : { startMs: first - 1 };
}

/** The output directory made ready, its state file path: a run starts from nothing. */
function freshOutput(out: string): string {
  mkdirSync(out, { recursive: true });
  const statePath = join(out, 'backtest-state.sqlite');
  // The state file and the log of an earlier run in this directory are removed.
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${statePath}${suffix}`, { force: true });
  rmSync(join(out, 'backtest.log'), { force: true });
  return statePath;
}

/** The recorded pairs bound to the configuration's entries, and each pair's strategy file name. */
interface BoundPairs {
  readonly pairs: BacktestPair[];
  readonly entries: Map<string, PairConfig | undefined>;
  readonly strategies: Record<string, string>;
}

/** One recorded pair bound as `run` binds it, or what keeps it from starting. */
function bindPair(
  run: BacktestRun,
  row: RecordedPairData,
  io: CliIo,
  catalog: StrategyCatalog,
  bound: BoundPairs,
): BacktestPair | string {
  const { config } = run.setup;
  const start = recordedStart(row);
  const binding = start.binding;
  const entry = config.pairs.find(
    (pair) =>
      chainKindOf(pair.blockChain) === binding.chain && `${pair.base}${pair.quote}` === binding.symbol && pair.enabled,
  );
  bound.entries.set(binding.pairId, entry);
  const path = run.strategy === undefined ? run.setup.strategyPath(entry) : resolve(io.cwd, run.strategy);
  try {
    catalog.load(path);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  bound.strategies[binding.symbol] = basename(path);
  // A recording made without trading (`dlt-mm record`) starts from the balances the command line gives.
  const balances = start.balances ?? startingBalances(run.balances, binding);
  if (balances === null)
    return `pair ${binding.symbol}: the recording has no balances of a trading wallet (dlt-mm record); give them with --balances <base>,<quote>`;
  // Without the book's recorded configuration, the wallet trades as the configuration (or the sandbox) says.
  const marketMaker =
    row.state === null
      ? (config.wallets.find((wallet) => wallet.id === row.wallet)?.marketMaker ?? config.sandbox !== undefined)
      : start.marketMaker;
  const limits = resolveLimits(config.risk, entry?.risk);
  return {
    binding,
    state: start.state,
    wallet: row.wallet,
    balances,
    marketMaker,
    strategy: () => catalog.get(path),
    limits: () => limits,
    throttle: {
      wallet: throttleLimits(config.throttle.wallet),
      pair: throttleLimits(config.throttle.pair, entry?.throttle),
    },
    refreshCost: new Decimal(entry?.refreshCost ?? '0'),
    obligations: entry?.obligations ?? (entry === undefined ? (config.sandbox?.obligations ?? null) : null),
  };
}

/** Every recorded pair bound; refused with every problem found when one cannot start. */
function bindPairs(run: BacktestRun, io: CliIo, catalog: StrategyCatalog): BoundPairs {
  const bound: BoundPairs = { pairs: [], entries: new Map(), strategies: {} };
  const problems: string[] = [];
  for (const row of run.data.pairs) {
    const pair = bindPair(run, row, io, catalog, bound);
    if (typeof pair === 'string') problems.push(pair);
    else bound.pairs.push(pair);
  }
  if (problems.length > 0) throw new DltError('E_USAGE', `backtest cannot start:\n  ${problems.join('\n  ')}`);
  return bound;
}

/** What the replay runs with besides the recording, as the configuration sets the bot. */
function replaySettings(config: BotConfig, bound: BoundPairs) {
  return {
    timings: {
      tickMs: config.engine.tickMs,
      tradeInfoPollMs: config.venue?.tradeInfoPollMs ?? VENUE_DEFAULTS.tradeInfoPollMs,
      phasePollMs: config.engine.phasePollMs,
      balanceMaxAgeMs: config.engine.balanceMaxAgeMs,
      inventoryCheckMs: config.engine.inventoryCheckMs,
    },
    calendar: {
      enabled: config.calendar.enabled && config.sandbox?.embedded !== true,
      config: { ...DEFAULT_CALENDAR, holidays: config.calendar.holidays },
    },
    // As the run's adapters have them (bootstrap/adapters.ts tuningOf): a sandbox does not reorganise.
    confirmations: { evm: evmConfirmations(config, config.sandbox !== undefined), wasm: 0 },
    approvals: approvalOptions({
      ...(config.chains.wasm === undefined ? {} : { lifetimeLedgers: config.chains.wasm.approvalLedgers }),
      budgets: budgetsOf(
        bound.pairs.map((pair) => ({ binding: pair.binding, entry: bound.entries.get(pair.binding.pairId) })),
      ),
    }),
    sampleMs: config.report.sampleMs,
    chainFeeRate: {
      evm: new Decimal(config.evaluation.chainFeeRate.evm),
      wasm: new Decimal(config.evaluation.chainFeeRate.wasm),
    },
  };
}

export async function runOne(run: BacktestRun, io: CliIo, wallStart: () => number): Promise<BacktestOutcome> {
  const { config } = run.setup;
  const statePath = freshOutput(run.out);
  // Everything the replay writes is stamped with the replay's time: the state file, the log, the report.
  const clock = new VirtualClock(run.fromMs);
  // The state is kept in memory while the replay runs (no file system round trip per change) and written to
  // the file when it ends.
  const store = openStore(':memory:', clock.now);
  const logger = createLogger({
    level: config.telemetry.logLevel,
    name: 'dlt-mm-backtest',
    now: clock.now,
    destination: pino.destination({ dest: join(run.out, 'backtest.log'), sync: false, mkdir: true }),
  });
  const catalog = new StrategyCatalog((path) => overridden(io.readFile(path), run.overrides, path));
  const bound = bindPairs(run, io, catalog);
  const { chainFeeRate, ...settings } = replaySettings(config, bound);
  const started = wallStart();
  try {
    const result = await runBacktest({
      clock,
      data: run.data,
      pairs: bound.pairs,
      fromMs: run.fromMs,
      // A recording of a trading bot: start where it made its first decision (a moment before).
      ...startOf(run),
      toMs: run.toMs,
      store,
      logger,
      metrics: createMetrics(),
      ...settings,
      evaluation: { horizonsMs: config.evaluation.markoutHorizonsMs, chainFeeRate },
      seed: run.seed,
      reloadStrategies: () => catalog.reload(),
    });
    const wallMs = wallStart() - started;
    const report = await writeDayReport(store, io, {
      day: toVenueLocal(run.fromMs).date,
      nowMs: run.toMs,
      out: run.out,
      calendar: settings.calendar,
      chainFeeRate,
      stem: 'backtest',
      backtest: {
        recordings: run.recordings.map((path) => basename(path)),
        fromMs: run.fromMs,
        toMs: run.toMs,
        strategies: bound.strategies,
        overrides: run.overrides,
        latency: result.latency.map((latency) => ({ ...latency })),
        replayed: { evm: { ...result.replayed.evm }, wasm: { ...result.replayed.wasm } },
      },
    });
    return {
      summary: runSummary(JSON.parse(io.readFile(report.json)) as Parameters<typeof runSummary>[0], run.overrides),
      report,
      simulatedMs: run.toMs - run.fromMs,
      wallMs,
    };
  } finally {
    store.db.exec(`VACUUM INTO '${statePath.replaceAll("'", "''")}'`);
    store.close();
    logger.flush();
  }
}
