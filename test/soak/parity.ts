/**
 * `npm run parity [-- --minutes N] [--seed S]`: does the backtest reproduce live trading? The real `dlt-mm run`
 * trades a fresh sandbox (its simulated market seeded, informed takers, real-time clock) with recording on,
 * quoting `strategies/fair-ladder.yaml` under market-making obligations; after N minutes it stops (SIGTERM,
 * every quote cancelled). Then `dlt-mm backtest` replays that recording with the same configuration. The
 * figures of both come from the same trading-day report code (live: the bot's state file; backtest: its own):
 * fills, traded value, PnL marked to the fair value with its spread capture, markouts and presence.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { runSummary, type RunSummary } from '../../src/cli/backtest/summary.ts';
import { main } from '../../src/cli/main.ts';
import { processIo } from '../../src/cli/process-io.ts';
import { toVenueLocal } from '../../src/core/calendar.ts';
import { freePort } from '../../src/sandbox/net.ts';
import { startSandbox } from '../../src/sandbox/venue/start.ts';
import { writeBotConfig } from '../support/e2e/bot-config.ts';
import { BotProcess } from '../support/e2e/bot-process.ts';
import { until } from '../support/e2e/poll.ts';
import { readFileSync } from 'node:fs';
import type { DayReport } from '../../src/cli/report/data.ts';

const FAIR_LADDER = fileURLToPath(new URL('../../strategies/fair-ladder.yaml', import.meta.url));
const RISK = { maxOrderValue: '2000', maxNotional: '1000', staleMarketDataMs: 15_000 };
const OBLIGATIONS = { maxSpreadBps: 300, minSize: '1', presenceTarget: 50 };

export interface ParityOutcome {
  readonly dir: string;
  readonly live: RunSummary;
  readonly backtest: RunSummary;
  readonly backtestOutput: string;
}

/** Runs the live session and its backtest; `say` reports progress. */
export async function parity(o: {
  readonly seconds: number;
  readonly seed: number;
  readonly blockMs?: number;
  readonly say: (line: string) => void;
}): Promise<ParityOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'dltmm-parity-'));
  const sandbox = await startSandbox({
    ports: { api: 0, evm: 0, wasm: 0 },
    ...(o.blockMs === undefined ? {} : { evm: { blockTimeMs: o.blockMs }, wasm: { ledgerIntervalMs: o.blockMs } }),
    flow: { enabled: true, seed: o.seed, informedShare: 0.5 },
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
  const io = processIo(process.env, dir);
  const liveOut = join(dir, 'live-report');
  const recordings = readdirSync(join(dir, 'recordings'))
    .filter((f) => f.endsWith('.rec.sqlite'))
    .map((f) => join(dir, 'recordings', f));
  let out = '';
  const capture = { ...io, stdout: (t: string) => void (out += t) };
  const day = toVenueLocal(Date.now()).date;
  const code = await main(['report', '--config', config, '--day', day, '--out', liveOut], capture);
  if (code !== 0) throw new Error(`live report failed: ${out}`);
  const live = runSummary(JSON.parse(readFileSync(join(liveOut, `dlt-mm-${day}.json`), 'utf8')) as DayReport, {});
  out = '';
  const btOut = join(dir, 'backtest');
  const bt = await main(['backtest', '--config', config, '--data', ...recordings, '--out', btOut], capture);
  if (bt !== 0) throw new Error(`backtest failed: ${out}`);
  const backtest = runSummary(JSON.parse(readFileSync(join(btOut, 'backtest.json'), 'utf8')) as DayReport, {});
  return { dir, live, backtest, backtestOutput: out };
}

const n = (s: string) => Number(s);

export function parityTable(p: ParityOutcome): string {
  const rows: Array<[string, (s: RunSummary) => string]> = [
    ['fills', (s) => String(s.fills)],
    ['traded value', (s) => n(s.volume).toFixed(2)],
    ['PnL (marked to fair value)', (s) => n(s.pnl).toFixed(2)],
    ['spread capture', (s) => n(s.spreadCapture).toFixed(2)],
    [`markout ${s0(p.live)}`, (s) => (s.markoutBps === null ? '-' : `${n(s.markoutBps).toFixed(2)} bp`)],
    ['presence', (s) => (s.presence === null ? '-' : `${(s.presence * 100).toFixed(1)} %`)],
  ];
  const lines = ['| | live | backtest |', '|---|---|---|'];
  for (const [name, f] of rows) lines.push(`| ${name} | ${f(p.live)} | ${f(p.backtest)} |`);
  const pairs = p.live.pairs.map((l) => {
    const b = p.backtest.pairs.find((x) => x.symbol === l.symbol);
    return `| ${l.symbol} | ${l.fills} / ${b?.fills ?? '-'} | ${n(l.volume).toFixed(2)} / ${b === undefined ? '-' : n(b.volume).toFixed(2)} | ${n(l.pnl).toFixed(2)} / ${b === undefined ? '-' : n(b.pnl).toFixed(2)} | ${l.presence === null ? '-' : (l.presence * 100).toFixed(1)} / ${b?.presence == null ? '-' : (b.presence * 100).toFixed(1)} |`;
  });
  return [
    ...lines,
    '',
    '| pair | fills live / backtest | value | PnL | presence % |',
    '|---|---|---|---|---|',
    ...pairs,
  ].join('\n');
}

const s0 = (s: RunSummary) => (s.horizonMs % 60_000 === 0 ? `${s.horizonMs / 60_000} min` : `${s.horizonMs / 1000} s`);

if (import.meta.main) {
  const { values } = parseArgs({
    options: { minutes: { type: 'string', default: '30' }, seed: { type: 'string', default: '7' } },
    strict: true,
  });
  const outcome = await parity({
    seconds: Number(values.minutes) * 60,
    seed: Number(values.seed),
    say: (line) => process.stderr.write(`[parity ${new Date().toISOString().slice(11, 19)}] ${line}\n`),
  });
  console.log(parityTable(outcome));
  console.log(`\n${outcome.backtestOutput}`);
}
