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
import type { PairConfig } from '../../core/config/bot-config.ts';
import { budgetsOf } from '../bootstrap/adapters.ts';
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
import type { RecordingData } from '../../store/recording-read.ts';
import { openStore } from '../../store/store.ts';
import { createMetrics } from '../../telemetry/metrics.ts';
import type { CliIo } from '../io.ts';
import type { Setup } from '../bootstrap/setup.ts';
import { writeDayReport, type ReportFiles } from '../commands/report.ts';
import { runSummary, type RunSummary } from './summary.ts';

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
    const n = Number(value);
    doc.setIn(path, value !== '' && Number.isFinite(n) && String(n) === value ? n : value);
  }
  return doc.toString();
}

/** `--balances` in the pair's native units, or null without them. */
function startingBalances(
  given: BacktestRun['balances'],
  b: PairBinding,
): { readonly base: bigint; readonly quote: bigint } | null {
  if (given === undefined) return null;
  const s = b.rules.scales;
  return {
    base: baseToNative(parseDecimalString(given.base, '--balances base'), s),
    quote: quoteToNative(parseDecimalString(given.quote, '--balances quote'), s),
  };
}

function startOf(r: BacktestRun): { startMs?: number } {
  const first = r.data.actions.find((a) => a.stage === 'decided' && a.recvMs >= r.fromMs)?.recvMs;
  return first === undefined ? {} : { startMs: first - 1 };
}

export async function runOne(r: BacktestRun, io: CliIo, wallStart: () => number): Promise<BacktestOutcome> {
  const { config } = r.setup;
  mkdirSync(r.out, { recursive: true });
  const statePath = join(r.out, 'backtest-state.sqlite');
  // A run starts from nothing: the state file and the log of an earlier run in this directory are removed.
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${statePath}${suffix}`, { force: true });
  rmSync(join(r.out, 'backtest.log'), { force: true });
  // Everything the replay writes is stamped with the replay's time: the state file, the log, the report.
  const clock = new VirtualClock(r.fromMs);
  // The state is kept in memory while the replay runs (no file system round trip per change) and written to
  // the file when it ends.
  const store = openStore(':memory:', clock.now);
  const logger = createLogger({
    level: config.telemetry.logLevel,
    name: 'dlt-mm-backtest',
    now: clock.now,
    destination: pino.destination({ dest: join(r.out, 'backtest.log'), sync: false, mkdir: true }),
  });
  const metrics = createMetrics();
  const catalog = new StrategyCatalog((p) => overridden(io.readFile(p), r.overrides, p));
  const strategies: Record<string, string> = {};
  const problems: string[] = [];
  const entries = new Map<string, PairConfig | undefined>();
  const pairs: BacktestPair[] = r.data.pairs.flatMap((row) => {
    const start = recordedStart(row);
    const b = start.binding;
    const entry = config.pairs.find(
      (p) => chainKindOf(p.blockChain) === b.chain && `${p.base}${p.quote}` === b.symbol && p.enabled,
    );
    entries.set(b.pairId, entry);
    const path = r.strategy === undefined ? r.setup.strategyPath(entry) : resolve(io.cwd, r.strategy);
    try {
      catalog.load(path);
    } catch (e) {
      problems.push(e instanceof Error ? e.message : String(e));
      return [];
    }
    strategies[b.symbol] = basename(path);
    // A recording made without trading (`dlt-mm record`) starts from the balances the command line gives.
    const balances = start.balances ?? startingBalances(r.balances, b);
    if (balances === null) {
      problems.push(
        `pair ${b.symbol}: the recording has no balances of a trading wallet (dlt-mm record); give them with --balances <base>,<quote>`,
      );
      return [];
    }
    // Without the book's recorded configuration, the wallet trades as the configuration (or the sandbox) says.
    const marketMaker =
      row.state === null
        ? (config.wallets.find((w) => w.id === row.wallet)?.marketMaker ?? config.sandbox !== undefined)
        : start.marketMaker;
    const limits = resolveLimits(config.risk, entry?.risk);
    return [
      {
        binding: b,
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
      },
    ];
  });
  if (problems.length > 0) throw new DltError('E_USAGE', `backtest cannot start:\n  ${problems.join('\n  ')}`);
  const calendar = {
    enabled: config.calendar.enabled && config.sandbox?.embedded !== true,
    config: { ...DEFAULT_CALENDAR, holidays: config.calendar.holidays },
  };
  const chainFeeRate = {
    evm: new Decimal(config.evaluation.chainFeeRate.evm),
    wasm: new Decimal(config.evaluation.chainFeeRate.wasm),
  };
  const started = wallStart();
  try {
    const result = await runBacktest({
      clock,
      data: r.data,
      pairs,
      fromMs: r.fromMs,
      // A recording of a trading bot: start where it made its first decision (a moment before).
      ...startOf(r),
      toMs: r.toMs,
      store,
      logger,
      metrics,
      timings: {
        tickMs: config.engine.tickMs,
        tradeInfoPollMs: config.venue?.tradeInfoPollMs ?? 5_000,
        phasePollMs: config.engine.phasePollMs,
        balanceMaxAgeMs: config.engine.balanceMaxAgeMs,
        inventoryCheckMs: config.engine.inventoryCheckMs,
      },
      calendar,
      // As the run's adapters have them (bootstrap/adapters.ts tuningOf): a sandbox does not reorganise.
      confirmations: { evm: config.sandbox === undefined ? (config.chains.evm?.confirmations ?? 2) : 1, wasm: 0 },
      approvals: approvalOptions({
        ...(config.chains.wasm === undefined ? {} : { lifetimeLedgers: config.chains.wasm.approvalLedgers }),
        budgets: budgetsOf(pairs.map((p) => ({ binding: p.binding, entry: entries.get(p.binding.pairId) }))),
      }),
      sampleMs: config.report.sampleMs,
      evaluation: { horizonsMs: config.evaluation.markoutHorizonsMs, chainFeeRate },
      seed: r.seed,
      reloadStrategies: () => catalog.reload(),
    });
    const wallMs = wallStart() - started;
    const report = await writeDayReport(store, io, {
      day: toVenueLocal(r.fromMs).date,
      nowMs: r.toMs,
      out: r.out,
      calendar,
      chainFeeRate,
      stem: 'backtest',
      backtest: {
        recordings: r.recordings.map((p) => basename(p)),
        fromMs: r.fromMs,
        toMs: r.toMs,
        strategies,
        overrides: r.overrides,
        latency: result.latency.map((l) => ({ ...l })),
        replayed: { evm: { ...result.replayed.evm }, wasm: { ...result.replayed.wasm } },
      },
    });
    return {
      summary: runSummary(JSON.parse(io.readFile(report.json)) as Parameters<typeof runSummary>[0], r.overrides),
      report,
      simulatedMs: r.toMs - r.fromMs,
      wallMs,
    };
  } finally {
    store.db.exec(`VACUUM INTO '${statePath.replaceAll("'", "''")}'`);
    store.close();
    logger.flush();
  }
}
