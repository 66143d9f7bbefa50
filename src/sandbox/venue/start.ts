/**
 * `startSandbox`: the whole local venue in one call. Starts the chain A node (a child process) and the chain
 * B emulator, each behind its fault-injecting proxy on the public port; deploys and funds every pair and
 * wallet; starts the indexers, the trading scheduler, the REST/WebSocket/control server and the simulated
 * market; writes the manifest. One function per phase (start-phases.ts), each registering what it starts on
 * one disposal stack: `stop()` disposes of all of it in reverse and leaves no process or port behind; a
 * failure in any phase disposes of what the earlier phases started the same way before it throws.
 */
import { randomBytes } from 'node:crypto';
import { isAbsolute, join } from 'node:path';
import { pino, type Logger } from 'pino';
import { DltError } from '../../core/errors.ts';
import { TOKEN_PATH } from '../api/http-server.ts';
import { TokenIssuer } from '../api/token-endpoint.ts';
import { PROJECT_ROOT } from '../evm/compile.ts';
import { SeededRandom } from '../flow/random.ts';
import { contractAddress } from '../wasm/deploy.ts';
import type { VenueApi } from './api-setup.ts';
import { BAND7_PAIR } from './band7-pair.ts';
import { startChains, type SandboxChains } from './chains-setup.ts';
import { SandboxClock } from './clock.ts';
import { DEFAULT_PAIRS, type SandboxPairDefinition } from './default-pairs.ts';
import { buildManifest, removeManifest, writeManifest, type Manifest } from './manifest.ts';
import { defaultManifestPath, parseSandboxConfig, type SandboxConfig, type SandboxConfigInput } from './options.ts';
import type { Sandbox } from './sandbox.ts';
import {
  beginRun,
  deployContracts,
  openMarkets,
  startApi,
  startBackend,
  startMarket,
  type Backend,
  type Contracts,
  type Market,
  type StartContext,
} from './start-phases.ts';

export type { Sandbox } from './sandbox.ts';

export interface SandboxOptions extends SandboxConfigInput {
  readonly logger?: Logger;
  /** Pair definitions; default the sandbox's own set (default-pairs.ts), plus `band7-pair.ts` with `band7Pair`. */
  readonly pairs?: readonly SandboxPairDefinition[];
  /** Base of a relative manifest path; default the project root. */
  readonly cwd?: string;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const started = performance.now();
  const ctx = prepare(options, new AsyncDisposableStack());
  try {
    const chains = await startChains(ctx.config, ctx.random, ctx.stack, ctx.logger);
    const contracts = await deployContracts(ctx, chains);
    const backend = startBackend(ctx, chains, contracts);
    const market = await startMarket(ctx, chains, contracts, backend);
    await openMarkets(ctx, chains, backend, market);
    let manifest: Manifest | undefined;
    const parts = { ...chains, ...contracts, ...backend, ...market };
    const api = await startApi(ctx, parts, () => manifest);
    await beginRun(ctx, market);
    manifest = buildSandboxManifest(ctx, parts, api);
    const manifestPath = publishManifest(ctx, api, manifest);
    ctx.logger.info({ ms: Math.round(performance.now() - started), manifest: manifestPath }, 'sandbox ready');
    return sandboxHandle(ctx, parts, { manifest, manifestPath, readyMs: Math.round(performance.now() - started) });
  } catch (e) {
    await stopParts(ctx.stack, ctx.logger);
    if (e instanceof DltError) throw e;
    throw new DltError('E_SANDBOX', `sandbox did not start: ${(e as Error).message}`, {
      cause: e,
      details: { part: 'sandbox' },
    });
  }
}

/** The settings checked, the clock, the randomness, and the credentials (random unless given). */
function prepare(options: SandboxOptions, stack: AsyncDisposableStack): StartContext {
  const { logger, pairs, cwd, ...settings } = options;
  const config: SandboxConfig = parseSandboxConfig(settings);
  const clientSecret = config.api.clientSecret ?? randomBytes(24).toString('base64url');
  return {
    config,
    logger: logger ?? pino({ level: 'silent' }),
    defs: [...(pairs ?? DEFAULT_PAIRS), ...(config.band7Pair ? [BAND7_PAIR] : [])],
    clock: new SandboxClock({
      mode: config.clock.mode,
      speed: config.clock.speed,
      ...(config.clock.start === undefined ? {} : { startMs: Date.parse(config.clock.start) }),
    }),
    random: new SeededRandom(config.flow.seed),
    tokens: new TokenIssuer({
      clientId: config.api.clientId,
      clientSecret,
      lifetimeSeconds: config.api.tokenLifetimeSeconds,
    }),
    apiKey: config.api.apiKey ?? randomBytes(16).toString('hex'),
    accessToken: config.api.accessToken ?? randomBytes(24).toString('base64url'),
    clientSecret,
    cwd: cwd ?? PROJECT_ROOT,
    stack,
  };
}

/**
 * Runs the stack: every part stops, the last started first; a part that fails to stop is logged and the
 * others still stop.
 */
async function stopParts(stack: AsyncDisposableStack, logger: Logger): Promise<void> {
  try {
    await stack.disposeAsync();
  } catch (e) {
    for (const err of stopFailures(e)) logger.warn({ err }, 'sandbox part did not stop cleanly');
  }
}

/** The errors a disposal collected: each failure after the first wraps the ones before as `suppressed`. */
function stopFailures(e: unknown): unknown[] {
  return e instanceof SuppressedError ? [...stopFailures(e.suppressed), ...stopFailures(e.error)] : [e];
}

type Parts = SandboxChains & Contracts & Backend & Market;

/** What the manifest tells a client: where the venue and both chains answer, with the credentials. */
function buildSandboxManifest(ctx: StartContext, parts: Parts, api: VenueApi): Manifest {
  const { config } = ctx;
  const { deployed, emu } = parts;
  return buildManifest({
    startedAt: new Date().toISOString(),
    pid: process.pid,
    apiOrigin: api.server.origin,
    apiKey: ctx.apiKey,
    accessToken: ctx.accessToken,
    oauth: {
      tokenUrl: `${api.server.origin}${TOKEN_PATH}`,
      clientId: config.api.clientId,
      clientSecret: ctx.clientSecret,
      expiresIn: config.api.tokenLifetimeSeconds,
    },
    participantId: config.api.participantId,
    dateHeader: config.api.dateHeader,
    evm: {
      rpcUrl: parts.evmProxy.url,
      chainId: deployed.evm.chainId,
      registry: deployed.evm.registry,
      commissionWallet: deployed.evm.commissionWallet.address,
      blockTimeMs: config.evm.blockTimeMs,
    },
    wasm: {
      rpcUrl: parts.wasmProxy.url,
      friendbotUrl: `http://127.0.0.1:${parts.wasmProxy.port}/friendbot`,
      networkPassphrase: emu.passphrase,
      registry: contractAddress(deployed.wasm.registry.address),
      ledgerIntervalMs: config.wasm.ledgerIntervalMs,
    },
    trading: { mode: config.trading.mode, clock: config.clock.mode },
    pairs: parts.state.pairs,
    oracles: parts.oracles,
    wallets: deployed.wallets,
    channelAccounts: deployed.channelAccounts,
    flowEnabled: config.flow.enabled,
  });
}

/** Writes the manifest where the settings say (removed again on stop); where, or null when switched off. */
function publishManifest(ctx: StartContext, api: VenueApi, manifest: Manifest): string | null {
  const setting = ctx.config.manifest ?? defaultManifestPath(api.server.port);
  if (setting === false) return null;
  const path = isAbsolute(setting) ? setting : join(ctx.cwd, setting);
  writeManifest(path, manifest);
  ctx.stack.defer(() => removeManifest(path, manifest));
  return path;
}

function sandboxHandle(
  ctx: StartContext,
  parts: Parts,
  ready: Pick<Sandbox, 'manifest' | 'manifestPath' | 'readyMs'>,
): Sandbox {
  const { evmFollower, wasmFollower } = parts;
  let stopping: Promise<void> | undefined;
  return {
    ...ready,
    config: ctx.config,
    clock: ctx.clock,
    state: parts.state,
    scheduler: parts.scheduler,
    flow: parts.flow.market,
    values: parts.value.values,
    feeds: parts.value.feeds,
    oracles: parts.oracles,
    emulator: parts.emu,
    evmNode: parts.node,
    deployed: parts.deployed,
    followers: { evm: evmFollower, wasm: wasmFollower },
    tokens: ctx.tokens,
    async sync() {
      await evmFollower.sync();
      wasmFollower.sync();
    },
    stop: () => (stopping ??= stopParts(ctx.stack, ctx.logger)),
  };
}
