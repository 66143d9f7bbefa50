/**
 * `startSandbox`: the whole local venue in one call. Starts the chain A node (a child process) and the chain
 * B emulator, each behind its fault-injecting proxy on the public port; deploys and funds every pair and
 * wallet; starts the indexers, the trading scheduler, the REST/WebSocket/control server and the simulated
 * market; writes the manifest. `stop()` undoes all of it in reverse and leaves no process or port behind;
 * a failed start cleans up the same way before it throws.
 */
import { randomBytes } from 'node:crypto';
import { isAbsolute, join } from 'node:path';
import { rpc as stellarRpc } from '@stellar/stellar-sdk';
import { pino, type Logger } from 'pino';
import { DltError } from '../../core/errors.ts';
import { TOKEN_PATH } from '../api/http-server.ts';
import { TokenIssuer } from '../api/token-endpoint.ts';
import { VenueState } from '../api/venue-state.ts';
import { sandboxProvider, withAutomine } from '../evm/chain.ts';
import { PROJECT_ROOT } from '../evm/compile.ts';
import { rpc } from '../evm/node.ts';
import { SeededRandom } from '../flow/random.ts';
import { contractAddress } from '../wasm/deploy.ts';
import { startVenueApi } from './api-setup.ts';
import { buildScheduler, startFollowers } from './backend-setup.ts';
import { startChains, type Undo } from './chains-setup.ts';
import { SandboxClock } from './clock.ts';
import { BAND7_PAIR } from './band7-pair.ts';
import { DEFAULT_PAIRS, type SandboxPairDefinition } from './default-pairs.ts';
import { deploySandbox } from './deploy.ts';
import { buildFlow } from './flow-setup.ts';
import { buildManifest, removeManifest, writeManifest } from './manifest.ts';
import { defaultManifestPath, parseSandboxConfig, type SandboxConfig, type SandboxConfigInput } from './options.ts';
import { venuePairs } from './pairs.ts';
import type { Sandbox } from './sandbox.ts';
import { buildValueParts } from './value-setup.ts';
import { deployOracles } from './oracle-setup.ts';

export type { Sandbox } from './sandbox.ts';

export interface SandboxOptions extends SandboxConfigInput {
  readonly logger?: Logger;
  /** Pair definitions; default the sandbox's own set (default-pairs.ts), plus `band7-pair.ts` with `band7Pair`. */
  readonly pairs?: readonly SandboxPairDefinition[];
  /** Base of a relative manifest path; default the project root. */
  readonly cwd?: string;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { logger: givenLogger, pairs: givenPairs, cwd, ...settings } = options;
  const config: SandboxConfig = parseSandboxConfig(settings);
  const logger = givenLogger ?? pino({ level: 'silent' });
  const defs = [...(givenPairs ?? DEFAULT_PAIRS), ...(config.band7Pair ? [BAND7_PAIR] : [])];
  const started = performance.now();
  const clock = new SandboxClock({
    mode: config.clock.mode,
    speed: config.clock.speed,
    ...(config.clock.start === undefined ? {} : { startMs: Date.parse(config.clock.start) }),
  });
  const random = new SeededRandom(config.flow.seed);
  const apiKey = config.api.apiKey ?? randomBytes(16).toString('hex');
  const accessToken = config.api.accessToken ?? randomBytes(24).toString('base64url');
  const clientSecret = config.api.clientSecret ?? randomBytes(24).toString('base64url');
  const tokens = new TokenIssuer({
    clientId: config.api.clientId,
    clientSecret,
    lifetimeSeconds: config.api.tokenLifetimeSeconds,
  });
  const undo: Undo = [];
  const cleanup = async () => {
    for (const fn of undo.splice(0).toReversed()) {
      try {
        await fn();
      } catch (e) {
        logger.warn({ err: e }, 'sandbox part did not stop cleanly');
      }
    }
  };

  try {
    const { node, emu, wasmRpcUrl, evmProxy, wasmProxy } = await startChains(config, random, undo, logger);
    const deployed = await deploySandbox(node.rpcUrl, emu, defs, config.wasm.channelAccounts);
    const participantWallets = deployed.wallets
      .filter((w) => w.role === 'participant')
      .map((w) => ({ name: w.name, chain: w.chain, address: w.address, marketMaker: w.marketMaker }));
    const state = new VenueState({
      participantId: config.api.participantId,
      wallets: participantWallets,
      orderLagMs: config.api.orderLagMs,
      venueNow: () => clock.nowMs(),
    });
    for (const p of venuePairs(defs, deployed, clock.nowMs())) state.addPair(p);

    const { evmFollower, wasmFollower } = startFollowers(config, state, node.rpcUrl, emu, clock, undo, logger);
    const pollMs = Math.max(20, Math.min(100, Math.floor(config.evm.blockTimeMs / 4)));
    const scheduler = buildScheduler(config, state, deployed, node.rpcUrl, emu, clock, pollMs, undo, logger);

    const value = buildValueParts(config, state, clock);
    undo.push(() => value.stop());
    const oracles = await deployOracles({
      rpcUrl: node.rpcUrl,
      emulator: emu,
      admin: deployed.wasm.operator,
      pairs: state.pairs,
      value: (pairId) => value.values.value(pairId),
      nowMs: () => clock.nowMs(),
      ...config.oracles,
      logger,
    });
    undo.push(() => oracles.stop());
    const wasmServer = new stellarRpc.Server(wasmRpcUrl, { allowHttp: true });
    const flow = buildFlow({
      config,
      state,
      deployed,
      evmRpcUrl: node.rpcUrl,
      wasmServer,
      evmFollower,
      value,
      passphrase: emu.passphrase,
      pollMs,
      logger,
    });
    undo.push(() => flow.dispose());
    // Opening the books and the first quotes do not wait for interval blocks or ledger closes.
    const provider = sandboxProvider(node.rpcUrl);
    try {
      await withAutomine(provider, async () => {
        await scheduler.start();
        if (config.flow.enabled) await flow.market.seed(() => emu.closeLedger());
        await oracles.publishFirst(() => emu.closeLedger());
      });
    } finally {
      provider.destroy();
    }
    emu.start();
    await evmFollower.sync();
    wasmFollower.sync();

    let manifest: ReturnType<typeof buildManifest> | undefined;
    const api = await startVenueApi({
      config,
      state,
      clock,
      scheduler,
      tokens,
      accessToken,
      apiKey,
      random,
      rpc: { evm: evmProxy, wasm: wasmProxy },
      followers: { evm: evmFollower, wasm: wasmFollower },
      flow,
      value,
      oracles,
      chains: {
        closeLedger: () => emu.closeLedger().ledger.seq,
        mineBlock: async () => {
          await rpc(node.rpcUrl, 'evm_mine', []);
          return (await evmFollower.sync()) as number;
        },
      },
      manifest: () => manifest,
      logger,
    });
    undo.push(() => api.close());

    value.start();
    if (config.flow.enabled) await flow.start();
    await oracles.start();
    clock.begin();
    manifest = buildManifest({
      startedAt: new Date().toISOString(),
      pid: process.pid,
      apiOrigin: api.server.origin,
      apiKey,
      accessToken,
      oauth: {
        tokenUrl: `${api.server.origin}${TOKEN_PATH}`,
        clientId: config.api.clientId,
        clientSecret,
        expiresIn: config.api.tokenLifetimeSeconds,
      },
      participantId: config.api.participantId,
      dateHeader: config.api.dateHeader,
      evm: {
        rpcUrl: evmProxy.url,
        chainId: deployed.evm.chainId,
        registry: deployed.evm.registry,
        commissionWallet: deployed.evm.commissionWallet.address,
        blockTimeMs: config.evm.blockTimeMs,
      },
      wasm: {
        rpcUrl: wasmProxy.url,
        friendbotUrl: `http://127.0.0.1:${wasmProxy.port}/friendbot`,
        networkPassphrase: emu.passphrase,
        registry: contractAddress(deployed.wasm.registry.address),
        ledgerIntervalMs: config.wasm.ledgerIntervalMs,
      },
      trading: { mode: config.trading.mode, clock: config.clock.mode },
      pairs: state.pairs,
      oracles,
      wallets: deployed.wallets,
      channelAccounts: deployed.channelAccounts,
      flowEnabled: config.flow.enabled,
    });
    const manifestSetting = config.manifest ?? defaultManifestPath(api.server.port);
    const manifestPath =
      manifestSetting === false
        ? null
        : isAbsolute(manifestSetting)
          ? manifestSetting
          : join(cwd ?? PROJECT_ROOT, manifestSetting);
    const written = manifest;
    if (manifestPath !== null) {
      writeManifest(manifestPath, written);
      undo.push(() => removeManifest(manifestPath, written));
    }
    logger.info({ ms: Math.round(performance.now() - started), manifest: manifestPath }, 'sandbox ready');

    let stopping: Promise<void> | undefined;
    return {
      manifest: written,
      manifestPath,
      config,
      clock,
      state,
      scheduler,
      flow: flow.market,
      values: value.values,
      feeds: value.feeds,
      oracles,
      emulator: emu,
      evmNode: node,
      deployed,
      followers: { evm: evmFollower, wasm: wasmFollower },
      tokens,
      readyMs: Math.round(performance.now() - started),
      async sync() {
        await evmFollower.sync();
        wasmFollower.sync();
      },
      stop: () => (stopping ??= cleanup()),
    };
  } catch (e) {
    await cleanup();
    if (e instanceof DltError) throw e;
    throw new DltError('E_SANDBOX', `sandbox did not start: ${(e as Error).message}`, {
      cause: e,
      details: { part: 'sandbox' },
    });
  }
}
