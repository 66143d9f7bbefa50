/**
 * Capacity of one `dlt-mm run`: the sandbox (its own process) set up with 4, 16 and 64 pairs, half on each
 * chain (chain B up to the 24 books the sandbox's indexer follows), the simulated market on; the bot (a real
 * child process) trades every pair with the sandbox's ladder and its market-maker wallets. After a warm-up,
 * one measuring window is read from the bot's own /metrics: CPU per book message (process CPU over the
 * market updates the venue sent, counted by a subscription of the benchmark's own to every market, the
 * bot's subscription; the 5 s snapshots included), event-loop delay p99 (prom-client's
 * monitor, which includes its 10 ms sampling interval, so it reads about 10 ms on an idle loop) beside that
 * of an idle process sampled the same way in the same window (what the machine's load alone costs), resident
 * memory. Per chain: the share of book changes whose new quotes were all included in the next block or
 * ledger (the soak's measure, computed in the sandbox process: capacity/inclusion.ts) beside the share of
 * rounds whose new quotes all left the process within 100 ms (dltmm_quote_round_seconds); and, counted by a
 * probe loaded into the bot that sees every HTTP request leave it (capacity/rpc-probe.ts), the transactions
 * its wallet sent per second and the chain RPC requests per transaction sent, with the largest kinds.
 *
 * `CAPACITY_PAIRS=4,16` chooses the sizes, `CAPACITY_WINDOW_S` the window (default 60),
 * `CAPACITY_CPU_PROF=<dir>` writes a CPU profile of each bot run there, `CAPACITY_CHANNELS=32` the chain B
 * market maker's channel accounts (default the sandbox's 8).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Interface } from 'ethers';
import { loadArtifacts } from '../../src/sandbox/evm/compile.ts';
import { freePort } from '../../src/sandbox/net.ts';
import { writeBotConfig } from '../support/e2e/bot-config.ts';
import { BotProcess } from '../support/e2e/bot-process.ts';
import { series, total, type MetricSample } from '../support/e2e/metrics-text.ts';
import { until } from '../support/e2e/poll.ts';
import { SETTLE, type Inclusion } from './capacity/inclusion.ts';
import { countBookUpdates, cpuSecondsOf, probeCounts, startCanary, startSandboxProcess } from './capacity/processes.ts';
import type { EndpointCounts, RpcCounts } from './capacity/rpc-counter.ts';
import { fmt, type Row } from './harness.ts';

export const title = 'capacity';

const PROBE = fileURLToPath(new URL('./capacity/rpc-probe.ts', import.meta.url));
const SENDS = ['eth_sendRawTransaction', 'sendTransaction'];
/** Chain A reads (`eth_call 0x<selector>`) named by the function of the sandbox's contracts they call. */
const SELECTORS: ReadonlyMap<string, string> = new Map(
  Object.values(loadArtifacts().contracts).flatMap((c) => {
    const names: [string, string][] = [];
    new Interface(c.abi as never).forEachFunction((f) => names.push([`eth_call ${f.selector}`, f.name]));
    return names;
  }),
);
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
const CHAINS = ['evm', 'wasm'] as const;
type Chain = (typeof CHAINS)[number];

interface Window {
  readonly pairs: number;
  readonly pairsOn: Record<Chain, number>;
  readonly readyMs: number;
  readonly cpuSeconds: number;
  /** CPU and market updates of the window's first and second halves: cost per update at its start and its end. */
  readonly halves: ReadonlyArray<{ readonly cpuSeconds: number; readonly updates: number }>;
  readonly bookUpdates: number;
  readonly bookChanges: number;
  readonly lagP99Ms: number;
  readonly canaryP99Ms: number;
  readonly rssMb: number;
  readonly rounds: Record<Chain, { within: number; count: number }>;
  readonly inclusion: Inclusion;
  readonly load: number;
  readonly rpc: RpcCounts;
}

const since = (a: Record<string, number>, b: Record<string, number> | undefined) =>
  Object.fromEntries(Object.entries(a).map(([k, n]) => [k, n - (b?.[k] ?? 0)]));

function countsSince(now: EndpointCounts, then: EndpointCounts | undefined): EndpointCounts {
  return {
    requests: now.requests - (then?.requests ?? 0),
    transportRequests: now.transportRequests - (then?.transportRequests ?? 0),
    methods: since(now.methods, then?.methods),
    shapes: since(now.shapes, then?.shapes),
  };
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
      pairs: { id: string; chain: Chain }[];
      chains: Record<Chain, { rpcUrl: string }>;
      venue: { wsUrl: string; wsHost: string; apiKey: string; dateHeader: string };
    };
    const byChain = {
      evm: manifest.pairs.filter((p) => p.chain === 'evm').map((p) => p.id),
      wasm: manifest.pairs.filter((p) => p.chain === 'wasm').map((p) => p.id),
    };
    const port = await freePort();
    const store = join(dir, 'bot.sqlite');
    const log = join(dir, 'bot.log');
    const config = writeBotConfig({
      dir,
      name: 'bot',
      manifest: manifestPath,
      metricsPort: port,
      store,
      risk: RISK,
      engine: { tickMs: 5000, phasePollMs: 5000, balanceMaxAgeMs: 10_000, inventoryCheckMs: 60_000 },
    });
    const probeOut = join(dir, 'rpc-counts.json');
    process.env.RPC_PROBE_OUT = probeOut;
    process.env.RPC_PROBE_ENDPOINTS = JSON.stringify({
      evm: manifest.chains.evm.rpcUrl,
      wasm: manifest.chains.wasm.rpcUrl,
    });
    const nodeArgs = [
      '--import',
      PROBE,
      ...(PROFILE_DIR === undefined
        ? []
        : ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=capacity-${pairs}.cpuprofile`]),
    ];
    const started = performance.now();
    const b = new BotProcess(config, port, log, nodeArgs);
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
    const fromMs = Date.now();
    await sleep((WINDOW_S * 1000) / 2);
    // Read from the kernel, not scraped: a scrape would restart the event-loop delay histogram.
    const cpuMiddle = cpuSecondsOf(b.pid);
    const seenMiddle = updates.read();
    await sleep((WINDOW_S * 1000) / 2);
    const cpuEnd = cpuSecondsOf(b.pid);
    const toMs = Date.now();
    const after = await b.metrics();
    const rpcAfter = await probeCounts(b, probeOut);
    const seen = updates.stop();
    const canaryP99Ms = await canary.read();
    canary.stop();
    // The bot keeps trading while the sandbox waits for the window's last quotes to land and reads the chains.
    const inclusion = await sandbox.inclusion({ store, log, fromMs, toMs });
    const delta = (name: string, labels: Record<string, string> = {}) =>
      total(after, name, labels) - total(before, name, labels);
    const rounds = (ids: readonly string[]) => ({
      within: bucket(after, ids, '0.1') - bucket(before, ids, '0.1'),
      count: bucket(after, ids, '+Inf') - bucket(before, ids, '+Inf'),
    });
    return {
      pairs,
      pairsOn: { evm: byChain.evm.length, wasm: byChain.wasm.length },
      readyMs,
      cpuSeconds: delta('dltmm_process_cpu_seconds_total'),
      halves: [
        { cpuSeconds: cpuMiddle - cpuStart, updates: seenMiddle.updates },
        { cpuSeconds: cpuEnd - cpuMiddle, updates: seen.updates - seenMiddle.updates },
      ],
      bookUpdates: seen.updates,
      bookChanges: seen.changes,
      lagP99Ms: (series(after, 'dltmm_nodejs_eventloop_lag_p99_seconds')[0]?.value ?? Number.NaN) * 1000,
      canaryP99Ms,
      rssMb: total(after, 'dltmm_process_resident_memory_bytes') / 2 ** 20,
      rounds: { evm: rounds(byChain.evm), wasm: rounds(byChain.wasm) },
      inclusion,
      load: loadavg()[0] ?? Number.NaN,
      rpc: Object.fromEntries(Object.entries(rpcAfter).map(([chain, c]) => [chain, countsSince(c, rpcBefore[chain])])),
    };
  } finally {
    if (bot !== undefined) {
      // A profile is written only by a clean exit; otherwise the sandbox is thrown away with the orders on it.
      bot.signal(PROFILE_DIR === undefined ? 'SIGKILL' : 'SIGTERM');
      await Promise.race([bot.exited, sleep(180_000)]);
      await bot.kill();
    }
    await sandbox.stop();
    if (process.env.CAPACITY_KEEP === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

const perUpdate = (cpuSeconds: number, updates: number) => fmt((1000 * cpuSeconds) / Math.max(updates, 1), 2);

const CHAIN_NAME: Record<Chain, string> = { evm: 'chain A', wasm: 'chain B' };
const BLOCK: Record<Chain, string> = { evm: 'block', wasm: 'ledger' };

const share = (part: number, whole: number, of: string) =>
  whole === 0 ? `no ${of}` : `${fmt((100 * part) / whole, 1)} % of ${fmt(whole)}`;

/** Per transaction sent: HTTP requests to the chain's RPC, and the three largest kinds of call. */
function rpcPerTransaction(c: EndpointCounts | undefined): { sends: number; value: string } {
  if (c === undefined) return { sends: 0, value: 'not counted' };
  const sends = SENDS.reduce((n, m) => n + (c.methods[m] ?? 0), 0);
  const per = (n: number) => fmt(n / Math.max(sends, 1), 2);
  const largest = Object.entries(c.methods)
    .filter(([m]) => !SENDS.includes(m))
    .toSorted((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([m, n]) => `${SELECTORS.get(m) ?? m} ${per(n)}`);
  // Requests that did not go through the transport are counted all the same; say so when there were any.
  const other = c.requests - c.transportRequests;
  if (process.env.CAPACITY_RPC_ALL !== undefined) {
    const named = (counts: Record<string, number>) =>
      JSON.stringify(Object.fromEntries(Object.entries(counts).map(([m, n]) => [SELECTORS.get(m) ?? m, per(n)])));
    console.error(`calls per transaction: ${named(c.methods)}`);
    console.error(`HTTP requests per transaction, by what they carried: ${named(c.shapes)}`);
  }
  return {
    sends,
    value: `${per(c.requests)} (${largest.join(', ')}${other === 0 ? '' : `; ${fmt(other)} requests outside the transport`})`,
  };
}

function chainRows(w: Window, chain: Chain): Row[] {
  const b = `${w.pairs} pairs, ${CHAIN_NAME[chain]} (${w.pairsOn[chain]})`;
  const r = w.inclusion.responses.find((x) => x.chain === chain);
  const rounds = w.rounds[chain];
  const rpc = rpcPerTransaction(w.rpc[chain]);
  return [
    {
      benchmark: title,
      measure: `${b}: book changes whose new quotes were all included in the next ${BLOCK[chain]}; rounds with all sent within 100 ms`,
      value: `${share(r?.inNext ?? 0, r?.answered ?? 0, 'changes')}; ${share(rounds.within, rounds.count, 'rounds')}`,
    },
    {
      benchmark: title,
      measure: `${b}:   orders sent in the window that no ${BLOCK[chain]} carried ${SETTLE[chain]} ${BLOCK[chain]}s after it (left out above); placements a newer decision withdrew before signing`,
      value: `${fmt(w.inclusion.notOnChain[chain])}; ${fmt(w.inclusion.unsent[chain])}`,
    },
    {
      benchmark: title,
      measure: `${b}: transactions sent per s (one wallet); chain RPC HTTP requests per transaction (largest kinds)`,
      value: `${fmt(rpc.sends / WINDOW_S, 2)}; ${rpc.value}`,
    },
  ];
}

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
        measure: `${b}: CPU per market update, ms: window; its first half; its second half; CPU share of one core`,
        value: `${perUpdate(w.cpuSeconds, w.bookUpdates)}; ${w.halves.map((h) => perUpdate(h.cpuSeconds, h.updates)).join('; ')}; ${fmt((100 * w.cpuSeconds) / WINDOW_S, 1)} %`,
      },
      {
        benchmark: title,
        measure: `${b}: event-loop delay p99, ms (10 ms sampling interval included); beside it, an idle process's`,
        value: fmt(w.lagP99Ms, 1),
        baseline: `${fmt(w.canaryP99Ms, 1)} (idle process)`,
        ratio: `${fmt(w.lagP99Ms / w.canaryP99Ms, 2)}x`,
      },
      { benchmark: title, measure: `${b}: resident memory, MiB`, value: fmt(w.rssMb, 0) },
      ...CHAINS.flatMap((chain) => chainRows(w, chain)),
      {
        benchmark: title,
        measure: `${b}:   machine load average (1 min) at the end, over 2 CPUs`,
        value: fmt(w.load, 2),
      },
    );
  }
  return rows;
}
