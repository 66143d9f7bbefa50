/**
 * A sandbox session for an end-to-end test file: a temporary directory, the sandbox started on free ports with
 * its manifest there, optionally the test's own reads of the chains (`SandboxChains`), and the bots the file
 * starts. `sandboxSession()` registers the file's hooks: the session starts before the file's own `beforeAll`
 * hooks run and is taken down after its `afterAll` hooks (the bots still running, the chain reads, the sandbox,
 * then the directory as `keep` says). A test that fails midway leaves its bot running: nothing of the session
 * may outlive the file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { freePort } from '../../../src/sandbox/net.ts';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../../src/sandbox/venue/start.ts';
import { writeBotConfig, type BotRunSettings } from './bot-config.ts';
import { BotProcess } from './bot-process.ts';
import { until } from './poll.ts';
import { SandboxChains } from './sandbox-chains.ts';

/** The sandbox's settings (block and ledger times, flow, ...); its ports and manifest are the session's. */
export type SessionSandbox = Omit<SandboxOptions, 'ports' | 'manifest'>;

export interface SessionOptions {
  /**
   * The test's reads of the chains: `also` further sandbox wallets to follow, `begin` whether they start reading
   * (`SandboxChains.begin`) before the file's tests. None when omitted.
   */
  readonly chains?: { readonly also?: readonly string[]; readonly begin: boolean };
  /** The signal a bot still running at the end is stopped with (default SIGKILL). */
  readonly endSignal?: NodeJS.Signals;
  /** What becomes of the directory at the end: kept (default), removed, or kept only if a test failed. */
  readonly keep?: 'always' | 'never' | 'if-failed';
}

/** Blocks and ledgers a second apart. */
export const SECOND_BLOCKS = { evm: { blockTimeMs: 1_000 }, wasm: { ledgerIntervalMs: 1_000 } } as const;

/**
 * Chain A blocks every half second, chain B ledgers every second. Not faster on chain B: a ledger closes at least a
 * second after the last, so a faster one runs its clock ahead of the wall clock and the bot's transactions would
 * pass their time bounds.
 */
export const HALF_SECOND_BLOCKS = { evm: { blockTimeMs: 500 }, wasm: { ledgerIntervalMs: 1_000 } } as const;

/** A bot's settings; its directory, manifest and metrics port are the session's, its state file `<name>.sqlite`. */
export type SessionBotSettings = Omit<BotRunSettings, 'dir' | 'manifest' | 'metricsPort' | 'name' | 'store'> & {
  readonly store?: string;
};

/** A bot's configuration file written in the session's directory, and the metrics port it names. */
export interface SessionBotConfig {
  readonly config: string;
  readonly port: number;
}

/** A bot process of the session, with its configuration, metrics port and log file. */
export class SessionBot extends BotProcess {
  readonly config: string;
  readonly port: number;
  readonly log: string;

  constructor(config: string, port: number, log: string) {
    super(config, port, log);
    this.config = config;
    this.port = port;
    this.log = log;
  }
}

export class SandboxSession {
  readonly #name: string;
  readonly #sandboxSettings: SessionSandbox;
  readonly #options: SessionOptions;
  readonly #bots: BotProcess[] = [];
  #dir: string | undefined;
  #sandbox: Sandbox | undefined;
  #chains: SandboxChains | undefined;
  #failed = false;

  /** `name`: of the temporary directory, `dltmm-<name>-...`. */
  constructor(name: string, sandbox: SessionSandbox, options: SessionOptions = {}) {
    this.#name = name;
    this.#sandboxSettings = sandbox;
    this.#options = options;
  }

  get dir(): string {
    return started(this.#dir, 'directory');
  }

  get sandbox(): Sandbox {
    return started(this.#sandbox, 'sandbox');
  }

  get chains(): SandboxChains {
    return started(this.#chains, 'chain reads');
  }

  async start(): Promise<void> {
    this.#dir = mkdtempSync(join(tmpdir(), `dltmm-${this.#name}-`));
    this.#sandbox = await startSandbox({
      ...this.#sandboxSettings,
      ports: { api: 0, evm: 0, wasm: 0 },
      manifest: join(this.#dir, 'manifest.json'),
    });
    const chains = this.#options.chains;
    if (chains === undefined) return;
    this.#chains = new SandboxChains(this.#sandbox, chains.also);
    if (chains.begin) await this.#chains.begin();
  }

  /** Writes `<dir>/<name>.yaml` for a bot of the sandbox, on a free metrics port. */
  async writeConfig(name: string, settings: SessionBotSettings): Promise<SessionBotConfig> {
    const port = await freePort();
    const config = writeBotConfig({
      ...settings,
      dir: this.dir,
      name,
      manifest: this.sandbox.manifestPath as string,
      metricsPort: port,
      store: settings.store ?? join(this.dir, `${name}.sqlite`),
    });
    return { config, port };
  }

  /** Starts `dlt-mm run` on `<dir>/<name>.yaml`, its lines kept in `<dir>/<name>.log`; stopped at the end if need be. */
  async startBot(name: string, settings: SessionBotSettings): Promise<SessionBot> {
    const { config, port } = await this.writeConfig(name, settings);
    return this.track(new SessionBot(config, port, join(this.dir, `${name}.log`)));
  }

  /** A bot process started by the test itself, stopped at the end if it is still running. */
  track<B extends BotProcess>(bot: B): B {
    this.#bots.push(bot);
    return bot;
  }

  /** Marks the session failed (its directory is then kept with `keep: 'if-failed'`). */
  failed(): void {
    this.#failed = true;
  }

  async stop(): Promise<void> {
    const signal = this.#options.endSignal ?? 'SIGKILL';
    for (const b of this.#bots) {
      if (b.running) b.signal(signal);
      await b.exited;
    }
    this.#chains?.close();
    await this.#sandbox?.stop();
    if (this.#dir === undefined) return;
    const keep = this.#options.keep ?? 'always';
    if (keep === 'always') return;
    if (keep === 'if-failed' && this.#failed)
      console.error(`the session's logs and state files are kept in ${this.#dir}`);
    else rmSync(this.#dir, { recursive: true, force: true });
  }
}

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the session's ${what} is not there: the session has not started`);
  return value;
}

/**
 * A sandbox session for the file's tests: started in a `beforeAll` (before the file's own), taken down in an
 * `afterAll` (after the file's own); a failed test marks it failed.
 */
export function sandboxSession(name: string, sandbox: SessionSandbox, options: SessionOptions = {}): SandboxSession {
  const session = new SandboxSession(name, sandbox, options);
  beforeAll(() => session.start(), 120_000);
  afterAll(() => session.stop(), 60_000);
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') session.failed();
  });
  return session;
}

/** Waits until `bot` answers ready on `/readyz`; a failure says whether it exited before, with its last lines. */
export async function untilReady(bot: BotProcess, what: string, pollMs?: number): Promise<void> {
  await until(
    `${what} ready`,
    60_000,
    async () => {
      if (!bot.running) throw new Error(`${what} exited before it was ready`);
      return (await bot.readiness()).ready;
    },
    pollMs,
  ).catch((e: unknown) => {
    throw new Error(`${(e as Error).message}\n${bot.tail()}`);
  });
}
