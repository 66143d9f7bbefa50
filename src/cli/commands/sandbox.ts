/**
 * `dlt-mm sandbox`: the local venue in the foreground. Settings come from `config/sandbox.yaml` (or
 * `--config <file>`), then the flags below; it prints where everything is, writes the manifest, and on
 * Ctrl-C or SIGTERM stops every part (the chain A node's child process included) before it exits.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pino } from 'pino';
import { DltError } from '../../core/errors.ts';
import { mergeSettings, readSandboxYaml } from '../../sandbox/venue/options.ts';
import { startSandbox } from '../../sandbox/venue/start.ts';
import { sandboxSummary } from '../../sandbox/venue/summary.ts';
import { EXIT_OK, type CliIo } from '../io.ts';

export const SANDBOX_USAGE = `Usage:
  dlt-mm sandbox [--config <file>] [--port-base <n>] [--api-port <n>] [--evm-port <n>] [--wasm-port <n>]
                 [--block-time <ms>] [--ledger-interval <ms>] [--channel-accounts <n>]
                 [--mode always-open|calendar]
                 [--clock real|accelerated|manual] [--speed <n>] [--start <iso time>]
                 [--no-flow] [--seed <n>] [--order-lag <ms>] [--token-lifetime <s>] [--manifest <path>]
                 [--band7-pair] [--log-level <level>]
  --port-base <n> puts the API on n, chain A on n+1 and chain B on n+2 (a second sandbox beside the first).
  --channel-accounts <n> gives the chain B market maker n channel accounts (default 8): n transactions per ledger.`;

const DEFAULT_CONFIG = 'config/sandbox.yaml';

type Setter = (v: string) => Record<string, unknown>;

function int(flag: string, v: string): number {
  if (!/^[0-9]{1,10}$/.test(v))
    throw new DltError('E_USAGE', `${flag} takes a whole number, got ${JSON.stringify(v)}\n${SANDBOX_USAGE}`);
  return Number(v);
}

const FLAGS: Record<string, Setter> = {
  '--port-base': (v) => {
    const n = int('--port-base', v);
    return { ports: { api: n, evm: n + 1, wasm: n + 2 } };
  },
  '--api-port': (v) => ({ ports: { api: int('--api-port', v) } }),
  '--evm-port': (v) => ({ ports: { evm: int('--evm-port', v) } }),
  '--wasm-port': (v) => ({ ports: { wasm: int('--wasm-port', v) } }),
  '--block-time': (v) => ({ evm: { blockTimeMs: int('--block-time', v) } }),
  '--ledger-interval': (v) => ({ wasm: { ledgerIntervalMs: int('--ledger-interval', v) } }),
  '--channel-accounts': (v) => ({ wasm: { channelAccounts: int('--channel-accounts', v) } }),
  '--mode': (v) => ({ trading: { mode: v } }),
  '--clock': (v) => ({ clock: { mode: v } }),
  '--speed': (v) => ({ clock: { speed: Number(v) } }),
  '--start': (v) => ({ clock: { start: v } }),
  '--seed': (v) => ({ flow: { seed: int('--seed', v) } }),
  '--order-lag': (v) => ({ api: { orderLagMs: int('--order-lag', v) } }),
  '--token-lifetime': (v) => ({ api: { tokenLifetimeSeconds: int('--token-lifetime', v) } }),
  '--manifest': (v) => ({ manifest: v }),
};

export interface SandboxArgs {
  readonly configFile: string | undefined;
  readonly settings: Record<string, unknown>;
  readonly logLevel: string;
}

export function parseSandboxArgs(args: readonly string[]): SandboxArgs {
  let configFile: string | undefined;
  let logLevel = 'warn';
  const layers: Record<string, unknown>[] = [];
  for (let i = 0; i < args.length; i++) {
    const flag = args[i] as string;
    if (flag === '--no-flow') {
      layers.push({ flow: { enabled: false } });
      continue;
    }
    if (flag === '--band7-pair') {
      layers.push({ band7Pair: true });
      continue;
    }
    const value = args[i + 1];
    if (value === undefined || (!['--config', '--log-level'].includes(flag) && FLAGS[flag] === undefined)) {
      throw new DltError(
        'E_USAGE',
        `${FLAGS[flag] === undefined && flag !== '--config' && flag !== '--log-level' ? 'unknown option' : 'missing value for'} ${flag}\n${SANDBOX_USAGE}`,
      );
    }
    i++;
    if (flag === '--config') configFile = value;
    else if (flag === '--log-level') logLevel = value;
    else layers.push((FLAGS[flag] as Setter)(value));
  }
  return { configFile, settings: mergeSettings(...layers), logLevel };
}

/** Resolves when a stop signal arrives (a second one ends the process at once). */
function stopSignal(io: CliIo): Promise<string> {
  return new Promise((resolvePromise) => {
    const onSignal = (signal: string) => {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      process.once('SIGINT', () => process.exit(130));
      io.stderr(`\n${signal}: stopping the sandbox...\n`);
      resolvePromise(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

export async function sandboxCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(`${SANDBOX_USAGE}\n`);
    return EXIT_OK;
  }
  const parsed = parseSandboxArgs(args);
  const file = parsed.configFile ?? (existsSync(resolve(io.cwd, DEFAULT_CONFIG)) ? DEFAULT_CONFIG : undefined);
  let fromFile: Record<string, unknown> = {};
  if (file !== undefined) {
    let text: string;
    try {
      text = io.readFile(resolve(io.cwd, file));
    } catch (cause) {
      throw new DltError('E_CONFIG_READ', `${file}: cannot be read (${(cause as Error).message})`, {
        cause,
        details: { path: file },
      });
    }
    fromFile = readSandboxYaml(text, file);
  }
  const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
  if (!levels.includes(parsed.logLevel))
    throw new DltError('E_USAGE', `--log-level must be one of ${levels.join(', ')}\n${SANDBOX_USAGE}`);
  const logger = pino({ level: parsed.logLevel }, pino.destination(2));
  const signal = stopSignal(io);
  const sandbox = await startSandbox({ ...mergeSettings(fromFile, parsed.settings), logger, cwd: io.cwd });
  io.stdout(sandboxSummary(sandbox.manifest, sandbox.manifestPath, sandbox.readyMs));
  await signal;
  await sandbox.stop();
  io.stdout('sandbox stopped\n');
  return EXIT_OK;
}
