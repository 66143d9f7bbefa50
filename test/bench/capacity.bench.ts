/**
 * Capacity of one `dlt-mm run`: the sandbox (its own process) set up with 4, 16 and 64 pairs, half on each
 * chain (chain B up to the 24 books the sandbox's indexer follows), the simulated market on; the bot (a real
 * child process) trades every pair with the sandbox's ladder and its market-maker wallets. After a warm-up,
 * one measuring window is read from the bot's own /metrics: CPU per book message (process CPU over the
 * market updates the venue sent, counted by a subscription of the benchmark's own to every market, the
 * bot's subscription; the 5 s snapshots included), event-loop delay p99 (prom-client's
 * monitor, which includes its 10 ms sampling interval, so it reads about 10 ms on an idle loop) beside that
 * of an idle process sampled the same way in the same window (what the machine's load alone costs), resident
 * memory, and the share of rounds answering a book change whose new quotes all left the process within
 * 100 ms (dltmm_quote_round_seconds), per chain; and, counted by a probe loaded into the bot
 * (capacity/rpc-probe.ts), the chain RPC requests per transaction sent and how many of them read balances.
 *
 * `CAPACITY_PAIRS=4,16` chooses the sizes, `CAPACITY_WINDOW_S` the window (default 60),
 * `CAPACITY_CPU_PROF=<dir>` writes a CPU profile of each bot run there, `CAPACITY_CHANNELS=32` the chain B
 * market maker's channel accounts (default the sandbox's 8).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/sandbox/net.ts';
import { MarketDataClient } from '../../src/venue/market-data/ws-client.ts';
import { writeBotConfig } from '../support/e2e/bot-config.ts';
import { BotProcess } from '../support/e2e/bot-process.ts';
import { series, total, type MetricSample } from '../support/e2e/metrics-text.ts';
import { until } from '../support/e2e/poll.ts';
import { fmt, type Row } from './harness.ts';

export const title = 'capacity';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = fileURLToPath(new URL('../../node_modules/.bin/node', import.meta.url));
const PROBE = fileURLToPath(new URL('./capacity/rpc-probe.ts', import.meta.url));
const CANARY = fileURLToPath(new URL('./capacity/canary.ts', import.meta.url));
/** Balance reads: ERC-20 balanceOf (chain A) and the native balance; chain B reads them as ledger entries. */
const BALANCE_READS = ['eth_call 0x70a08231', 'eth_getBalance'];
const SENDS = ['eth_sendRawTransaction', 'sendTransaction'];
/** Kernel clock ticks per second (`getconf CLK_TCK`, 100 on Linux). */
const CLOCK_TICKS = 100;

/** A process's CPU time so far (user and system), from /proc. */
function cpuSecondsOf(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  // Fields after the command name (which may hold spaces): state is the 3rd field, utime the 14th, stime the 15th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
const SIZES = (process.env.CAPACITY_PAIRS ?? '4,16,64').split(',').map(Number);
const WINDOW_S = Number(process.env.CAPACITY_WINDOW_S ?? 60);
const WARMUP_S = 30;
const PROFILE_DIR = process.env.CAPACITY_CPU_PROF;
/** Risk limits wide enough for every copy of the sandbox pairs (the ladder's sizes on pairs priced 12 to 100). */
const RISK = {
  maxNotional: '5000',
  maxOpenOrders: 8,
  maxOrderValue: '2000',
  dailyLossLimit: '100000',
  maxDrawdown: '100000',
  staleMarketDataMs: 15_000,
};

interface SandboxChild {
  readonly stop: () => Promise<void>;
}

async function startSandboxProcess(pairs: number, manifest: string): Promise<SandboxChild> {
  const child = spawn(NODE, ['test/bench/capacity/sandbox-process.ts', String(pairs), manifest], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, sleep(60_000).then(() => child.kill('SIGKILL'))]);
    await exited;
  };
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => line.startsWith('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`sandbox process exited (${code}) before it was ready`)));
  });
  await ready.catch(async (e: unknown) => {
    await stop();
    throw e;
  });
  return { stop };
}

interface Window {
  readonly pairs: number;
  readonly readyMs: number;
  readonly cpuSeconds: number;
  /** CPU and market updates of the window's first and second halves: cost per update at its start and its end. */
  readonly halves: ReadonlyArray<{ readonly cpuSeconds: number; readonly updates: number }>;
  readonly dataMessages: number;
  readonly bookUpdates: number;
  readonly bookChanges: number;
  readonly lagP99Ms: number;
  readonly canaryP99Ms: number;
  readonly rssMb: number;
  readonly rounds: Record<'evm' | 'wasm', { within: number; count: number }>;
  readonly load: number;
  readonly rpc: Record<string, number>;
}

/** Market updates the venue sends a subscriber of every market (as the bot is), and how many changed the book. */
function countBookUpdates(venue: { wsUrl: string; wsHost: string; apiKey: string; dateHeader: string }): {
  read(): { updates: number; changes: number };
  stop(): { updates: number; changes: number };
} {
  const client = new MarketDataClient({
    url: venue.wsUrl,
    host: venue.wsHost,
    apiKey: venue.apiKey,
    dateHeader: venue.dateHeader,
  });
  const last = new Map<string, string>();
  let updates = 0;
  let changes = 0;
  client.on('book', (book) => {
    updates += 1;
    const levels = JSON.stringify([book.buy, book.sell]);
    if (last.get(book.symbol) !== levels) changes += 1;
    last.set(book.symbol, levels);
  });
  client.subscribe('*');
  client.start();
  return {
    read: () => ({ updates, changes }),
    stop: () => {
      void client.close();
      return { updates, changes };
    },
  };
}

/** The idle canary process: signalled at the start and end of the window, it reports its own delay p99. */
function startCanary(out: string): { read(): Promise<number>; stop(): void } {
  const child = spawn(NODE, [CANARY, out], { cwd: ROOT, stdio: 'ignore' });
  return {
    async read() {
      rmSync(out, { force: true });
      child.kill('SIGUSR2');
      await until('canary delay', 10_000, () => existsSync(out));
      await sleep(100);
      return (JSON.parse(readFileSync(out, 'utf8')) as { p99Ms: number }).p99Ms;
    },
    stop: () => void child.kill('SIGKILL'),
  };
}

async function probeCounts(bot: BotProcess, out: string): Promise<Record<string, number>> {
  rmSync(out, { force: true });
  bot.signal('SIGUSR2');
  await until('rpc probe counts', 10_000, () => existsSync(out));
  await sleep(100);
  return JSON.parse(readFileSync(out, 'utf8')) as Record<string, number>;
}

function bucket(samples: readonly MetricSample[], pairIds: readonly string[], le: string): number {
  return pairIds.reduce((n, pair) => n + total(samples, 'dltmm_quote_round_seconds_bucket', { pair, le }), 0);
}

async function measure(pairs: number): Promise<Window> {
  const dir = mkdtempSync(join(tmpdir(), `dlt-mm-capacity-${pairs}-`));
  const manifestPath = join(dir, 'manifest.json');
  const sandbox = await startSandboxProcess(pairs, manifestPath);
  let bot: BotProcess | undefined;
  try {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
      pairs: { id: string; chain: 'evm' | 'wasm' }[];
      venue: { wsUrl: string; wsHost: string; apiKey: string; dateHeader: string };
    };
    const byChain = {
      evm: manifest.pairs.filter((p) => p.chain === 'evm').map((p) => p.id),
      wasm: manifest.pairs.filter((p) => p.chain === 'wasm').map((p) => p.id),
    };
    const port = await freePort();
    const config = writeBotConfig({
      dir,
      name: 'bot',
      manifest: manifestPath,
      metricsPort: port,
      store: join(dir, 'bot.sqlite'),
      risk: RISK,
      engine: { tickMs: 5000, phasePollMs: 5000, balanceMaxAgeMs: 10_000, inventoryCheckMs: 60_000 },
    });
    const probeOut = join(dir, 'rpc-counts.json');
    process.env.RPC_PROBE_OUT = probeOut;
    const nodeArgs = [
      '--import',
      PROBE,
      ...(PROFILE_DIR === undefined
        ? []
        : ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=capacity-${pairs}.cpuprofile`]),
    ];
    const started = performance.now();
    const b = new BotProcess(config, port, join(dir, 'bot.log'), nodeArgs);
    bot = b;
    await until(`bot on ${pairs} pairs ready`, 300_000, async () => {
      if (!b.running) throw new Error(`bot exited before it was ready\n${b.tail()}`);
      return (await b.readiness()).ready;
    });
    const readyMs = performance.now() - started;
    await sleep(WARMUP_S * 1000);
    // This scrape also restarts the event-loop delay histogram, so the next one covers the window alone.
    const updates = countBookUpdates(manifest.venue);
    const canary = startCanary(join(dir, 'canary.json'));
    await sleep(1000);
    await canary.read();
    const before = await b.metrics();
    const rpcBefore = await probeCounts(b, probeOut);
    const cpuStart = cpuSecondsOf(b.pid);
    await sleep((WINDOW_S * 1000) / 2);
    // Read from the kernel, not scraped: a scrape would restart the event-loop delay histogram.
    const cpuMiddle = cpuSecondsOf(b.pid);
    const seenMiddle = updates.read();
    await sleep((WINDOW_S * 1000) / 2);
    const cpuEnd = cpuSecondsOf(b.pid);
    const after = await b.metrics();
    const rpcAfter = await probeCounts(b, probeOut);
    const seen = updates.stop();
    const canaryP99Ms = await canary.read();
    canary.stop();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      total(after, name, labels) - total(before, name, labels);
    const rounds = (ids: readonly string[]) => ({
      within: bucket(after, ids, '0.1') - bucket(before, ids, '0.1'),
      count: bucket(after, ids, '+Inf') - bucket(before, ids, '+Inf'),
    });
    return {
      pairs,
      readyMs,
      cpuSeconds: delta('dltmm_process_cpu_seconds_total'),
      halves: [
        { cpuSeconds: cpuMiddle - cpuStart, updates: seenMiddle.updates },
        { cpuSeconds: cpuEnd - cpuMiddle, updates: seen.updates - seenMiddle.updates },
      ],
      dataMessages: delta('dltmm_venue_ws_messages_total', { type: 'data' }),
      bookUpdates: seen.updates,
      bookChanges: seen.changes,
      lagP99Ms: (series(after, 'dltmm_nodejs_eventloop_lag_p99_seconds')[0]?.value ?? Number.NaN) * 1000,
      canaryP99Ms,
      rssMb: total(after, 'dltmm_process_resident_memory_bytes') / 2 ** 20,
      rounds: { evm: rounds(byChain.evm), wasm: rounds(byChain.wasm) },
      load: loadavg()[0] ?? Number.NaN,
      rpc: Object.fromEntries(Object.entries(rpcAfter).map(([k, v]) => [k, v - (rpcBefore[k] ?? 0)])),
    };
  } finally {
    if (bot !== undefined) {
      // A profile is written only by a clean exit; otherwise the sandbox is thrown away with the orders on it.
      bot.signal(PROFILE_DIR === undefined ? 'SIGKILL' : 'SIGTERM');
      await Promise.race([bot.exited, sleep(180_000)]);
      await bot.kill();
    }
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const sum = (rpc: Record<string, number>, methods?: readonly string[]) =>
  Object.entries(rpc).reduce((n, [k, v]) => (methods === undefined || methods.includes(k) ? n + v : n), 0);

const share = (r: { within: number; count: number }) =>
  r.count === 0 ? 'no rounds' : `${fmt((100 * r.within) / r.count, 1)} % of ${fmt(r.count)}`;

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const pairs of SIZES) {
    process.stderr.write(`  capacity: ${pairs} pairs ...\n`);
    const w = await measure(pairs);
    const b = `${pairs} pairs`;
    rows.push(
      {
        benchmark: title,
        measure: `${b}: start to ready, s; market updates per s (of which book changes; ${WINDOW_S} s window)`,
        value: `${fmt(w.readyMs / 1000, 1)}; ${fmt(w.bookUpdates / WINDOW_S, 1)} (${fmt(w.bookChanges / WINDOW_S, 1)})`,
      },
      {
        benchmark: title,
        measure: `${b}: CPU per market update, ms; process CPU share of one core`,
        value: `${fmt((1000 * w.cpuSeconds) / Math.max(w.bookUpdates, 1), 2)}; ${fmt((100 * w.cpuSeconds) / WINDOW_S, 1)} %`,
      },
      {
        benchmark: title,
        measure: `${b}: CPU per market update, ms: first half of the window; second half`,
        value: w.halves.map((h) => fmt((1000 * h.cpuSeconds) / Math.max(h.updates, 1), 2)).join('; '),
      },
      {
        benchmark: title,
        measure: `${b}: event-loop delay p99, ms (10 ms sampling interval included); beside it, an idle process's`,
        value: fmt(w.lagP99Ms, 1),
        baseline: `${fmt(w.canaryP99Ms, 1)} (idle process)`,
        ratio: `${fmt(w.lagP99Ms / w.canaryP99Ms, 2)}x`,
      },
      { benchmark: title, measure: `${b}: resident memory, MiB`, value: fmt(w.rssMb, 0) },
      {
        benchmark: title,
        measure: `${b}: rounds with every new quote out within 100 ms: chain A; chain B`,
        value: `${share(w.rounds.evm)}; ${share(w.rounds.wasm)}`,
      },
      {
        benchmark: title,
        measure: `${b}: transactions sent per s; chain RPC requests per transaction (of which balance reads)`,
        value: `${fmt(sum(w.rpc, SENDS) / WINDOW_S, 1)}; ${fmt(sum(w.rpc) / Math.max(sum(w.rpc, SENDS), 1), 2)} (${fmt(sum(w.rpc, BALANCE_READS) / Math.max(sum(w.rpc, SENDS), 1), 2)})`,
      },
      {
        benchmark: title,
        measure: `${b}:   machine load average (1 min) at the end, over 2 CPUs`,
        value: fmt(w.load, 2),
      },
    );
  }
  return rows;
}
