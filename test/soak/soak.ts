/**
 * One soak run: a fresh sandbox with the simulated market on, the real `dlt-mm run` as a child process
 * (`config/local.yaml` pointed at that sandbox through a manifest whose chain addresses are the RPC recorders),
 * state samples at a quarter, half and three quarters of the run, SIGTERM at the end as an operator stops it,
 * then the chains, the recorders and the bot's state file are read and the result computed.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { parse, stringify } from 'yaml';
import { parseBotConfig } from '../../src/core/config/load.ts';
import { freePort } from '../../src/sandbox/net.ts';
import { startSandbox, type Sandbox } from '../../src/sandbox/venue/start.ts';
import { BotProcess } from '../support/e2e/bot-process.ts';
import { total } from '../support/e2e/metrics-text.ts';
import { until } from '../support/e2e/poll.ts';
import { SandboxChains } from '../support/e2e/sandbox-chains.ts';
import {
  orderCounts,
  placementsOf,
  placementUses,
  presence,
  responses,
  secondCancels,
  unusedApprovals,
} from './analysis.ts';
import { readBotRecord } from './bot-record.ts';
import { PairIndex } from './calls.ts';
import { readEvm } from './evm-record.ts';
import { incidentsOf } from './incidents.ts';
import type { Chain } from './model.ts';
import { LiveBooks } from './live-books.ts';
import { baseBalances, StateSampler } from './sampler.ts';
import type { SoakResult } from './report.ts';
import { RpcRecorder } from './rpc-record.ts';
import { Timeline } from './timeline.ts';
import { WasmRecord } from './wasm-record.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLE_EVERY_MS = 5_000;
const READY_TIMEOUT_MS = 120_000;

export interface SoakOptions {
  readonly minutes: number;
  /** Seed of the simulated market. */
  readonly seed: number;
  /** Progress lines (stderr). */
  readonly say: (line: string) => void;
}

export interface SoakRun {
  readonly result: SoakResult;
  readonly dir: string;
}

/** Resolves at a wall-clock moment of the run's schedule. */
const at = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms - Date.now())).unref());

/** Resident set size of a process, bytes, from the kernel (independent of what the process reports). */
function rssOf(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? null : Number(m[1]) * 1024;
  } catch {
    return null;
  }
}

/** `config/local.yaml` as an operator runs it, pointed at a running sandbox instead of an embedded one. */
function writeConfig(dir: string, manifest: string, metricsPort: number): string {
  const local = parse(readFileSync(join(ROOT, 'config/local.yaml'), 'utf8')) as Record<string, unknown>;
  const config = {
    ...local,
    sandbox: { manifest, strategy: join(ROOT, 'strategies/ladder.yaml') },
    store: { path: join(dir, 'bot.sqlite') },
    telemetry: { ...(local.telemetry as object), metricsPort, metricsHost: '127.0.0.1', logLevel: 'info' },
  };
  const path = join(dir, 'bot.yaml');
  writeFileSync(path, stringify(config));
  return path;
}

export async function runSoak(o: SoakOptions, signal: AbortSignal): Promise<SoakRun> {
  const dir = mkdtempSync(join(tmpdir(), 'dltmm-soak-'));
  o.say(`run directory ${dir} (bot log, state file, sandbox log, result.json)`);
  const stops: (() => Promise<void> | void)[] = [];
  const stopAll = async () => {
    for (const fn of stops.splice(0).toReversed()) {
      try {
        await fn();
      } catch {
        // Best effort: every part gets its chance to stop.
      }
    }
  };
  signal.addEventListener('abort', () => void stopAll(), { once: true });
  try {
    const logger = pino({ level: 'warn' }, pino.destination({ dest: join(dir, 'sandbox.log'), sync: false }));
    const sandbox: Sandbox = await startSandbox({
      ports: { api: 0, evm: 0, wasm: 0 },
      flow: { enabled: true, seed: o.seed },
      manifest: join(dir, 'manifest.json'),
      logger,
    });
    stops.push(() => sandbox.stop());
    const m = sandbox.manifest;
    o.say(
      `sandbox ready: ${m.pairs.map((p) => `${p.symbol} (${p.chain})`).join(', ')}; a block every ${m.chains.evm.blockTimeMs} ms, a ledger every ${m.chains.wasm.ledgerIntervalMs} ms`,
    );

    const index = new PairIndex(sandbox);
    const chains = new SandboxChains(sandbox);
    stops.push(() => chains.close());
    const timeline = new Timeline(sandbox);
    stops.push(() => timeline.stop());
    await timeline.start();
    const recorder = new RpcRecorder(index, {
      passphrase: m.chains.wasm.networkPassphrase,
      evmWallet: chains.wallets.evm,
    });
    const urls = await recorder.start({ evm: m.chains.evm.rpcUrl, wasm: m.chains.wasm.rpcUrl });
    stops.push(() => recorder.stop());
    const mm = m.wallets.find((w) => w.chain === 'wasm' && w.marketMaker);
    const sources = new Set([
      chains.wallets.wasm,
      ...(mm !== undefined && 'channelAccounts' in mm ? (mm.channelAccounts ?? []) : []).map((c) => c.publicKey),
    ]);
    const wasmRecord = new WasmRecord(sandbox, index, sources, () => recorder.ledgerClosed());
    stops.push(() => wasmRecord.stop());

    const botManifest = join(dir, 'bot-manifest.json');
    writeFileSync(
      botManifest,
      JSON.stringify(
        { ...m, chains: { evm: { ...m.chains.evm, rpcUrl: urls.evm }, wasm: { ...m.chains.wasm, rpcUrl: urls.wasm } } },
        null,
        2,
      ),
    );
    const baseline = await baseBalances(sandbox, chains.wallets, chains.pairs);
    const fromBlock = timeline.head.evm;
    const port = await freePort();
    const configPath = writeConfig(dir, botManifest, port);
    const config = parseBotConfig(readFileSync(configPath, 'utf8'), configPath);

    const bot = new BotProcess(configPath, port, join(dir, 'bot.log'));
    stops.push(() => bot.kill());
    const pid = bot.child.pid as number;
    await until('the bot ready', READY_TIMEOUT_MS, async () => {
      if (!bot.running) throw new Error('the bot exited before it was ready');
      return (await bot.readiness()).ready;
    }).catch((e: unknown) => {
      throw new Error(`${(e as Error).message}\n${bot.tail()}`);
    });
    const readyMs = Date.now();
    o.say(`bot ready (pid ${pid}); trading for ${o.minutes} min`);

    const rss = { first: rssOf(pid) ?? 0, last: 0, max: 0 };
    rss.max = rss.first;
    const lagP99s: number[] = [];
    const scrape = async () => {
      const r = rssOf(pid);
      if (r !== null) rss.max = Math.max(rss.max, r);
      const metrics = await bot.metrics().catch(() => null);
      if (metrics !== null && metrics.some((s) => s.name === 'dltmm_nodejs_eventloop_lag_p99_seconds'))
        lagP99s.push(total(metrics, 'dltmm_nodejs_eventloop_lag_p99_seconds'));
    };
    const scraper = setInterval(() => void scrape(), SAMPLE_EVERY_MS);
    stops.push(() => clearInterval(scraper));

    const live = new LiveBooks(sandbox, chains.wallets);
    const sampler = new StateSampler(
      { sandbox, chains, bot, timeline, recorder, live, crossIdTag: config.engine.crossIdTag },
      baseline,
    );
    const durationMs = o.minutes * 60_000;
    // The schedule of the run; a bot that exits early ends it.
    const scheduled = (ms: number) => Promise.race([at(ms), bot.exited]);
    for (const k of [1, 2, 3]) {
      await scheduled(readyMs + (k * durationMs) / 4);
      if (!bot.running) break;
      await sampler.sample(k);
      o.say(
        `state sample ${k}: ${sampler.samples.at(-1)?.reached === true ? 'gauges compared' : 'no consistent reading'} (${sampler.samples.at(-1)?.note ?? ''})`,
      );
    }
    await scheduled(readyMs + durationMs);
    clearInterval(scraper);
    await scrape();
    // The bot's own account of the run, kept beside the harness's.
    await fetch(`http://127.0.0.1:${port}/metrics`)
      .then(async (res) => writeFileSync(join(dir, 'bot-metrics-at-sigterm.txt'), await res.text()))
      .catch(() => undefined);
    rss.last = rssOf(pid) ?? 0;

    const stopMs = Date.now();
    o.say('SIGTERM');
    bot.signal('SIGTERM');
    const exit = await Promise.race([
      bot.exited,
      at(Date.now() + config.engine.shutdownTimeoutMs + 30_000).then(() => null),
    ]);
    if (exit === null) await bot.kill();
    const exited = exit ?? (await bot.exited);
    const shutdownSeconds = (Date.now() - stopMs) / 1000;
    o.say(`the bot exited (${exited.code ?? exited.signal}) after ${shutdownSeconds.toFixed(1)} s; reading the chains`);
    // Whatever the bot sent before it exited is in a block or a ledger after these.
    await timeline.pass({ evm: 2, wasm: 2 });
    const leftResting = (await chains.restingEverywhere()).length;
    await sandbox.flow.stop();

    await live.catchUp(timeline.head);
    const evm = await readEvm({
      url: sandbox.evmNode.rpcUrl,
      index,
      wallet: chains.wallets.evm,
      tokens: [
        ...new Set(
          m.pairs
            .filter((p) => p.chain === 'evm')
            .flatMap((p) => [p.baseToken.hex.toLowerCase(), p.quoteToken.hex.toLowerCase()]),
        ),
      ],
      fromBlock,
      toBlock: timeline.head.evm,
    });
    const replay = live.replay;
    const botRecord = readBotRecord(join(dir, 'bot.sqlite'), join(dir, 'bot.log'));
    const txs = [...evm.txs, ...wasmRecord.txs];
    // A fresh sandbox: every order of our wallets on its books is the bot's.
    const ours = [...replay.orders.values()];
    const { incidents, cancels } = incidentsOf({
      txs,
      calls: recorder.calls,
      busy: recorder.busyAnswers,
      dropped: wasmRecord.dropped,
      orders: replay.orders,
      halts: replay.halts,
      bot: botRecord,
      evmSimulations: recorder.evmSimulations,
      published: timeline.published,
    });
    const pairs = m.pairs.map((p) => ({ chain: p.chain as Chain, pairId: p.id, symbol: p.symbol }));
    const address = (p: (typeof m.pairs)[number], a: { hex: string; strkey?: string | null }) =>
      p.chain === 'evm' ? a.hex.toLowerCase() : (a.strkey as string);
    const books = new Map(
      m.pairs.map((p) => [
        p.id,
        { orderBook: address(p, p.orderBook), base: address(p, p.baseToken), quote: address(p, p.quoteToken) },
      ]),
    );
    const result: SoakResult = {
      minutes: o.minutes,
      pairs,
      counts: {
        evm: orderCounts(ours.filter((x) => x.chain === 'evm')),
        wasm: orderCounts(ours.filter((x) => x.chain === 'wasm')),
      },
      txs,
      incidents,
      unusedApprovals: unusedApprovals(txs, [
        ...evm.draws,
        ...wasmRecord.draws(chains.wallets.wasm),
        ...placementUses(txs, books),
      ]),
      secondCancels: secondCancels(cancels),
      presence: presence(ours, pairs, timeline.published, readyMs, stopMs),
      responses: responses(placementsOf(ours, botRecord.byClientId), replay.changes, timeline.published, []),
      rss,
      lagP99s,
      checks: sampler.checks,
      samples: sampler.samples,
      shutdown: { code: exited.code, signal: exited.signal, seconds: shutdownSeconds, leftResting },
      botProblems: [...botRecord.problems],
    };
    writeFileSync(
      join(dir, 'result.json'),
      JSON.stringify(
        {
          ...result,
          orders: ours,
          calls: recorder.calls,
          evmSimulations: recorder.evmSimulations,
          published: {
            evm: Object.fromEntries(timeline.published.evm),
            wasm: Object.fromEntries(timeline.published.wasm),
          },
          bookChanges: Object.fromEntries(replay.changes),
          halts: Object.fromEntries(replay.halts),
        },
        (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v),
        2,
      ),
    );
    return { result, dir };
  } finally {
    await stopAll();
  }
}
