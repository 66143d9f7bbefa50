/**
 * A bot configuration checked whole, before anything opens: the file and its schema, the cross-field rules,
 * every secret it names (unless a sandbox hands them out), every strategy file, and a running sandbox's
 * manifest. Every problem is listed together, the same way for `dlt-mm config check` and for the commands
 * that act on it, so a command never connects or creates a state file for a configuration it will refuse.
 */
import { dirname, resolve } from 'node:path';
import type { BotConfig, PairConfig } from '../../core/config/bot-config.ts';
import type { StrategyConfig } from '../../core/config/strategy-config.ts';
import {
  parseBotConfig,
  parseStrategyConfig,
  readSecret,
  secretRefsOf,
  type ConfigEnvironment,
} from '../../core/config/load.ts';
import { DltError } from '../../core/errors.ts';
import type { CliIo } from '../io.ts';
import { readManifest, type BotManifest } from './manifest.ts';

export interface Setup {
  /** The configuration file as named on the command line. */
  readonly source: string;
  readonly configPath: string;
  readonly config: BotConfig;
  /** Secrets and files named by the configuration are read relative to its directory. */
  readonly env: ConfigEnvironment;
  /** `sandbox.embedded`: a local venue started with the bot. */
  readonly embedded: boolean;
  /** `sandbox.manifest`: the running sandbox it describes, read and checked. */
  readonly manifest: BotManifest | null;
  /** The state file (the embedded sandbox keeps its own under `.sandbox/` of the working directory). */
  readonly statePath: string;
  /** The strategy file of a configured pair, or of a sandbox pair without a pairs entry. */
  strategyPath(entry: PairConfig | undefined): string;
}

/** Reads a file named by the configuration; an unreadable file is a configuration error naming it. */
export function readConfigFile(path: string, source: string, io: CliIo): string {
  try {
    return io.readFile(path);
  } catch (cause) {
    throw new DltError('E_CONFIG_READ', `${source}: cannot be read (${(cause as Error).message})`, {
      cause,
      details: { path },
    });
  }
}

/** What the configuration needs besides its own file (commands that only read the state file need less). */
export interface SetupNeeds {
  /** Strategy files: what trading uses (default true). */
  readonly strategies?: boolean;
  /** Secrets and a running sandbox's manifest: what connecting uses (default true; false to read the state file only). */
  readonly connection?: boolean;
}

/** The secrets a strategy file names (its fair-value feeds' headers) that cannot be read. */
function strategySecretProblems(strategy: StrategyConfig, where: string, env: ConfigEnvironment): string[] {
  const feeds = (strategy.fairValue?.sources ?? []).flatMap((src, i) => {
    const at = `${where}: fairValue.sources.${i}`;
    if (src.kind === 'feed') return [{ at, headers: src.headers }];
    if (src.kind === 'bond' && 'feed' in src.yield)
      return [{ at: `${at}.yield.feed`, headers: src.yield.feed.headers }];
    return [];
  });
  const problems: string[] = [];
  for (const { at, headers } of feeds)
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value === 'string') continue;
      try {
        readSecret(value, `${at}.headers.${name}`, env);
      } catch (e) {
        problems.push(e instanceof Error ? e.message : String(e));
      }
    }
  return problems;
}

/** Every problem of the configuration beyond its schema, one line each; empty when it can be used. */
function problemsOf(s: Setup, io: CliIo, needs: SetupNeeds): string[] {
  const { config } = s;
  const problems: string[] = [];
  if (needs.connection !== false && !s.embedded && config.sandbox?.manifest === undefined) {
    for (const { where, ref } of secretRefsOf(config)) {
      try {
        readSecret(ref, where, s.env);
      } catch (e) {
        problems.push(e instanceof Error ? e.message : String(e));
      }
    }
  }
  if (needs.strategies !== false) {
    const strategyFile = (path: string, where: string) => {
      try {
        const strategy = parseStrategyConfig(io.readFile(path), where);
        if (needs.connection !== false) problems.push(...strategySecretProblems(strategy, where, s.env));
      } catch (e) {
        problems.push(`${where}: ${e instanceof DltError ? e.message : `cannot be read (${(e as Error).message})`}`);
      }
    };
    config.pairs.forEach((p, i) => strategyFile(s.strategyPath(p), `pairs.${i}.strategy`));
    // Sandbox pairs without a pairs entry of their own trade the sandbox's strategy.
    if (s.embedded || config.sandbox?.manifest !== undefined)
      strategyFile(s.strategyPath(undefined), 'sandbox.strategy');
  }
  return problems;
}

/**
 * The configuration at `source`, checked whole: E_CONFIG_READ when the file cannot be read, E_CONFIG_INVALID
 * listing every problem otherwise. Nothing is opened or connected.
 */
export function checkedSetup(source: string, io: CliIo, needs: SetupNeeds = {}): Setup {
  const configPath = resolve(io.cwd, source);
  const dir = dirname(configPath);
  const config = parseBotConfig(readConfigFile(configPath, source, io), source);
  const embedded = config.sandbox?.embedded === true;
  const problems: string[] = [];
  let manifest: BotManifest | null = null;
  if (needs.connection !== false && config.sandbox?.manifest !== undefined) {
    const path = resolve(dir, config.sandbox.manifest);
    let text: string | null = null;
    try {
      text = io.readFile(path);
    } catch (e) {
      problems.push(
        `sandbox.manifest: ${config.sandbox.manifest} cannot be read (${(e as Error).message}); is the sandbox running?`,
      );
    }
    if (text !== null) {
      const read = readManifest(text, `sandbox.manifest ${config.sandbox.manifest}`);
      manifest = read.manifest;
      problems.push(...read.problems);
    }
  }
  const setup: Setup = {
    source,
    configPath,
    config,
    env: { env: io.env, readFile: (p) => io.readFile(resolve(dir, p)) },
    embedded,
    manifest,
    statePath: embedded ? resolve(io.cwd, '.sandbox', 'embedded-bot.sqlite') : resolve(dir, config.store.path),
    strategyPath: (entry) => resolve(dir, entry?.strategy ?? config.sandbox?.strategy ?? '../strategies/ladder.yaml'),
  };
  problems.push(...problemsOf(setup, io, needs));
  if (problems.length > 0) {
    throw new DltError('E_CONFIG_INVALID', `${source} has ${problems.length} problem(s):\n  ${problems.join('\n  ')}`, {
      details: { source, problems },
    });
  }
  return setup;
}
