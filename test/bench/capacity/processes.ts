/**
 * The capacity benchmark's companions of the bot: the sandbox in a process of its own (asked over IPC how the
 * window's quotes reached the chains), a subscription of the benchmark's own to every market, the idle canary
 * process, the RPC probe's counts and a process's CPU time from the kernel.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { MarketDataClient } from '../../../src/venue/market-data/ws-client.ts';
import type { BotProcess } from '../../support/e2e/bot-process.ts';
import { until } from '../../support/e2e/poll.ts';
import type { Inclusion, InclusionRequest } from './inclusion.ts';
import type { RpcCounts } from './rpc-counter.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const NODE = fileURLToPath(new URL('../../../node_modules/.bin/node', import.meta.url));
const CANARY = fileURLToPath(new URL('./canary.ts', import.meta.url));
/** Kernel clock ticks per second (`getconf CLK_TCK`, 100 on Linux). */
const CLOCK_TICKS = 100;

/** A process's CPU time so far (user and system), from /proc. */
export function cpuSecondsOf(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  // Fields after the command name (which may hold spaces): state is the 3rd field, utime the 14th, stime the 15th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

export interface SandboxChild {
  readonly inclusion: (request: InclusionRequest) => Promise<Inclusion>;
  readonly stop: () => Promise<void>;
}

export async function startSandboxProcess(pairs: number, manifest: string): Promise<SandboxChild> {
  const child = spawn(NODE, ['test/bench/capacity/sandbox-process.ts', String(pairs), manifest], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, sleep(60_000).then(() => child.kill('SIGKILL'))]);
    await exited;
  };
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on(
      'line',
      (line) => line.startsWith('ready') && resolve(),
    );
    child.once('exit', (code) => reject(new Error(`sandbox process exited (${code}) before it was ready`)));
  });
  await ready.catch(async (e: unknown) => {
    await stop();
    throw e;
  });
  const inclusion = (request: InclusionRequest) =>
    new Promise<Inclusion>((resolve, reject) => {
      child.once('message', (m: Inclusion | { error: string }) =>
        'error' in m ? reject(new Error(`inclusion: ${m.error}`)) : resolve(m),
      );
      child.send(request);
    });
  return { inclusion, stop };
}

/** Market updates the venue sends a subscriber of every market (as the bot is), and how many changed the book. */
export function countBookUpdates(venue: { wsUrl: string; wsHost: string; apiKey: string; dateHeader: string }): {
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
export function startCanary(out: string): { read(): Promise<number>; stop(): void } {
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

/** The RPC probe's counts in the bot so far (`rpc-probe.ts`, asked by SIGUSR2). */
export async function probeCounts(bot: BotProcess, out: string): Promise<RpcCounts> {
  rmSync(out, { force: true });
  bot.signal('SIGUSR2');
  await until('rpc probe counts', 10_000, () => existsSync(out));
  await sleep(100);
  return JSON.parse(readFileSync(out, 'utf8')) as RpcCounts;
}
