/**
 * Live trading and its backtest, side by side: the real `dlt-mm run`
 * trades a fresh sandbox (its simulated market seeded, informed takers, real-time clock) with recording on,
 * quoting `strategies/fair-ladder.yaml` under market-making obligations; after N minutes it stops (SIGTERM,
 * every quote cancelled). Then `dlt-mm backtest` replays that recording with the same configuration. The
 * figures of both come from the same trading-day report code (live: the bot's state file; backtest: its own):
 * fills, traded value, PnL marked to the fair value with its spread capture, markouts and presence.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { runSummary, type RunSummary } from '../../../src/cli/backtest/summary.ts';
import { main } from '../../../src/cli/main.ts';
import { processIo } from '../../../src/cli/process-io.ts';
import { DEFAULT_CALENDAR, toVenueLocal } from '../../../src/core/calendar.ts';
import { Decimal } from '../../../src/core/decimal.ts';
import { checkedSetup } from '../../../src/cli/bootstrap/setup.ts';
import { writeDayReport } from '../../../src/cli/commands/report.ts';
import { openStoreReadOnly } from '../../../src/store/store.ts';
import { readRecordings } from '../../../src/store/recording-read.ts';
import { freePort } from '../../../src/sandbox/net.ts';
import { startSandbox } from '../../../src/sandbox/venue/start.ts';
import { writeBotConfig } from './bot-config.ts';
import { BotProcess } from './bot-process.ts';
import { until } from './poll.ts';
import type { DayReport } from '../../../src/cli/report/data.ts';

const FAIR_LADDER = fileURLToPath(new URL('../../../strategies/fair-ladder.yaml', import.meta.url));
const RISK = { maxOrderValue: '2000', maxNotional: '1000', staleMarketDataMs: 15_000 };
const OBLIGATIONS = { maxSpreadBps: 300, minSize: '1', presenceTarget: 50 };

export interface ParityOutcome {
  readonly dir: string;
  readonly live: RunSummary;
  readonly backtest: RunSummary;
  readonly backtestOutput: string;
  /** The live bot's state file and the backtest's. */
  readonly liveStore: string;
  readonly backtestStore: string;
  readonly liveReport: DayReport;
  readonly backtestReport: DayReport;
  readonly recordings: readonly string[];
}

/** Time the bot needs to get ready and to shut down, besides the session's own length. */
const MARGIN_MS = 120_000;

/** Milliseconds from `nowMs` to the next venue midnight (Europe/Berlin; its offsets are whole minutes). */
function toVenueMidnightMs(nowMs: number): number {
  return (24 * 60 - toVenueLocal(nowMs).minutes) * 60_000 - (nowMs % 60_000);
}

/**
 * Runs the live session and its backtest; `say` reports progress. The trading-day reports compared cover one
 * day: a session that would run past the venue's midnight starts just after it instead.
 */
export async function parity(o: {
  readonly seconds: number;
  readonly seed: number;
  readonly blockMs?: number;
  /** Mean time between two taker decisions of one pair (the sandbox's default without). */
  readonly takerIntervalMs?: number;
  readonly say: (line: string) => void;
}): Promise<ParityOutcome> {
  const left = toVenueMidnightMs(Date.now());
  if (left < o.seconds * 1000 + MARGIN_MS) {
    o.say(
      `waiting ${Math.ceil(left / 1000)} s for the next trading day (Europe/Berlin), so that one day's report covers the session`,
    );
    await new Promise((r) => setTimeout(r, left + 1_000));
  }
  const dir = mkdtempSync(join(tmpdir(), 'dltmm-parity-'));
  const sandbox = await startSandbox({
    ports: { api: 0, evm: 0, wasm: 0 },
    ...(o.blockMs === undefined ? {} : { evm: { blockTimeMs: o.blockMs }, wasm: { ledgerIntervalMs: o.blockMs } }),
    flow: {
      enabled: true,
      seed: o.seed,
      informedShare: 0.5,
      ...(o.takerIntervalMs === undefined ? {} : { takerIntervalMs: o.takerIntervalMs }),
    },
    manifest: join(dir, 'manifest.json'),
    logger: pino({ level: 'warn' }, pino.destination({ dest: join(dir, 'sandbox.log'), sync: false })),
  });
  const port = await freePort();
  const storePath = join(dir, 'bot.sqlite');
  const config = writeBotConfig({
    dir,
    name: 'bot',
    manifest: sandbox.manifestPath as string,
    metricsPort: port,
    store: storePath,
    strategy: FAIR_LADDER,
    risk: RISK,
    obligations: OBLIGATIONS,
    more: { record: { enabled: true, dir: join(dir, 'recordings'), flushMs: 500 } },
  });
  const bot = new BotProcess(config, port, join(dir, 'bot.log'));
  try {
    await until('bot ready', 120_000, async () => bot.running && (await bot.readiness()).ready);
    o.say(`live: trading for ${o.seconds} s (${dir})`);
    await new Promise((r) => setTimeout(r, o.seconds * 1000));
    bot.child.kill('SIGTERM');
    const exit = await bot.exited;
    o.say(`live: stopped (exit ${exit.code}); replaying`);
  } finally {
    if (bot.running) bot.kill();
    await sandbox.stop();
  }
  return compare(dir);
}

/**
 * The comparison of a live session's directory (its `bot.yaml`, state file and `recordings/`): the live
 * day report, the backtest of the recordings with the same configuration, and both figures.
 */
export async function compare(dir: string): Promise<ParityOutcome> {
  const config = join(dir, 'bot.yaml');
  const io = processIo(process.env, dir);
  const liveOut = join(dir, 'live-report');
  const recordings = readdirSync(join(dir, 'recordings'))
    .filter((f) => f.endsWith('.rec.sqlite'))
    .map((f) => join(dir, 'recordings', f));
  let out = '';
  const capture = { ...io, stdout: (t: string) => void (out += t) };
  // The live day up to where the bot began to shut down (else the end of its recording): where the
  // backtest stops quoting and its report ends, so that both measure the same span.
  const data = readRecordings(recordings);
  const span = data.span as { fromMs: number; toMs: number };
  const endMs = data.actions.find((a) => a.type === 'shutdown')?.recvMs ?? span.toMs;
  const day = toVenueLocal(endMs).date;
  if (toVenueLocal(span.fromMs).date !== day)
    throw new Error(
      `the session in ${dir} runs past the end of a trading day (midnight, Europe/Berlin): a day's report covers only part of it`,
    );
  const setup = checkedSetup(config, io, { strategies: false, connection: false });
  const store = openStoreReadOnly(setup.statePath);
  try {
    await writeDayReport(store, io, {
      day,
      nowMs: endMs,
      out: liveOut,
      calendar: { enabled: false, config: DEFAULT_CALENDAR },
      chainFeeRate: { evm: new Decimal(0), wasm: new Decimal(0) },
    });
  } finally {
    store.close();
  }
  const liveReport = JSON.parse(readFileSync(join(liveOut, `dlt-mm-${day}.json`), 'utf8')) as DayReport;
  out = '';
  const btOut = join(dir, 'backtest');
  const bt = await main(['backtest', '--config', config, '--data', ...recordings, '--out', btOut], capture);
  if (bt !== 0) throw new Error(`backtest failed: ${out}`);
  const backtestReport = JSON.parse(readFileSync(join(btOut, 'backtest.json'), 'utf8')) as DayReport;
  return {
    dir,
    live: runSummary(liveReport, {}),
    backtest: runSummary(backtestReport, {}),
    backtestOutput: out,
    liveStore: join(dir, 'bot.sqlite'),
    backtestStore: join(btOut, 'backtest-state.sqlite'),
    liveReport,
    backtestReport,
    recordings,
  };
}
