/**
 * The phases of `startSandbox`, each starting one layer over the ones before and registering every part it
 * starts on the start's disposal stack, so that a failure in a later phase, or `stop()`, stops them in
 * reverse order: the chains (chains-setup.ts), the contracts and the venue state over them, the venue's
 * back end, the market (true values, oracles, simulated traders), the opening, the API, then the run.
 */
import { rpc as stellarRpc } from '@stellar/stellar-sdk';
import type { Logger } from 'pino';
import type { EvmFollower } from '../api/evm-follower.ts';
import type { TokenIssuer } from '../api/token-endpoint.ts';
import { VenueState } from '../api/venue-state.ts';
import type { WasmFollower } from '../api/wasm-follower.ts';
import { sandboxProvider, withAutomine } from '../evm/chain.ts';
import { rpc } from '../evm/node.ts';
import type { SeededRandom } from '../flow/random.ts';
import { startVenueApi, type VenueApi } from './api-setup.ts';
import { buildScheduler, startFollowers } from './backend-setup.ts';
import type { SandboxChains } from './chains-setup.ts';
import type { SandboxClock } from './clock.ts';
import type { SandboxPairDefinition } from './default-pairs.ts';
import { deploySandbox, type DeployedSandbox } from './deploy.ts';
import { buildFlow, type FlowHandle } from './flow-setup.ts';
import type { Manifest } from './manifest.ts';
import type { SandboxConfig } from './options.ts';
import { deployOracles, type SandboxOracles } from './oracle-setup.ts';
import { venuePairs } from './pairs.ts';
import type { TradingScheduler } from './scheduler.ts';
import { buildValueParts, type ValueParts } from './value-setup.ts';

/** What every phase reads: the settings, the sandbox's clock and randomness, and the stack its parts stop by. */
export interface StartContext {
  readonly config: SandboxConfig;
  readonly logger: Logger;
  readonly defs: readonly SandboxPairDefinition[];
  readonly clock: SandboxClock;
  readonly random: SeededRandom;
  readonly tokens: TokenIssuer;
  readonly apiKey: string;
  readonly accessToken: string;
  readonly clientSecret: string;
  /** Base of a relative manifest path. */
  readonly cwd: string;
  /** Every part started is deferred here; disposing of it stops them all, the last started first. */
  readonly stack: AsyncDisposableStack;
}

export interface Contracts {
  readonly deployed: DeployedSandbox;
  readonly state: VenueState;
}

export interface Backend {
  readonly evmFollower: EvmFollower;
  readonly wasmFollower: WasmFollower;
  readonly scheduler: TradingScheduler;
  /** How often the venue's own senders poll for receipts. */
  readonly pollMs: number;
}

export interface Market {
  readonly value: ValueParts;
  readonly oracles: SandboxOracles;
  readonly flow: FlowHandle;
}

/** Every pair and wallet deployed and funded on both chains, and the venue state listing the pairs. */
export async function deployContracts(ctx: StartContext, chains: SandboxChains): Promise<Contracts> {
  const deployed = await deploySandbox(chains.node.rpcUrl, chains.emu, ctx.defs, ctx.config.wasm.channelAccounts);
  const state = new VenueState({
    participantId: ctx.config.api.participantId,
    wallets: deployed.wallets
      .filter((w) => w.role === 'participant')
      .map((w) => ({ name: w.name, chain: w.chain, address: w.address, marketMaker: w.marketMaker })),
    orderLagMs: ctx.config.api.orderLagMs,
    venueNow: () => ctx.clock.nowMs(),
  });
  for (const p of venuePairs(ctx.defs, deployed, ctx.clock.nowMs())) state.addPair(p);
  return { deployed, state };
}

/** The indexers following both chains (started) and the trading scheduler (not yet). */
export function startBackend(ctx: StartContext, chains: SandboxChains, contracts: Contracts): Backend {
  const { config, clock, stack, logger } = ctx;
  const { state, deployed } = contracts;
  const rpcUrl = chains.node.rpcUrl;
  const { evmFollower, wasmFollower } = startFollowers(config, state, rpcUrl, chains.emu, clock, stack, logger);
  const pollMs = Math.max(20, Math.min(100, Math.floor(config.evm.blockTimeMs / 4)));
  const scheduler = buildScheduler(config, state, deployed, rpcUrl, chains.emu, clock, pollMs, stack, logger);
  return { evmFollower, wasmFollower, scheduler, pollMs };
}

/** The true values and their feeds, the price oracles deployed, and the simulated traders (none running yet). */
export async function startMarket(
  ctx: StartContext,
  chains: SandboxChains,
  contracts: Contracts,
  backend: Backend,
): Promise<Market> {
  const { config, clock, stack, logger } = ctx;
  const { state, deployed } = contracts;
  const value = buildValueParts(config, state, clock);
  stack.defer(() => value.stop());
  const oracles = await deployOracles({
    rpcUrl: chains.node.rpcUrl,
    emulator: chains.emu,
    admin: deployed.wasm.operator,
    pairs: state.pairs,
    value: (pairId) => value.values.value(pairId),
    nowMs: () => clock.nowMs(),
    ...config.oracles,
    logger,
  });
  stack.defer(() => oracles.stop());
  const flow = buildFlow({
    config,
    state,
    deployed,
    evmRpcUrl: chains.node.rpcUrl,
    wasmServer: new stellarRpc.Server(chains.wasmRpcUrl, { allowHttp: true }),
    evmFollower: backend.evmFollower,
    value,
    passphrase: chains.emu.passphrase,
    pollMs: backend.pollMs,
    logger,
  });
  stack.defer(() => flow.dispose());
  return { value, oracles, flow };
}

/**
 * The books opened, seeded with the simulated market's first quotes and the oracles' first answers, without
 * waiting for interval blocks or ledger closes; then the ledgers close on their interval and the venue's
 * view catches up with both chains.
 */
export async function openMarkets(ctx: StartContext, chains: SandboxChains, backend: Backend, market: Market) {
  const { emu } = chains;
  const provider = sandboxProvider(chains.node.rpcUrl);
  try {
    await withAutomine(provider, async () => {
      await backend.scheduler.start();
      if (ctx.config.flow.enabled) await market.flow.market.seed(() => emu.closeLedger());
      await market.oracles.publishFirst(() => emu.closeLedger());
    });
  } finally {
    provider.destroy();
  }
  emu.start();
  await backend.evmFollower.sync();
  backend.wasmFollower.sync();
}

/** The REST, WebSocket, token and control endpoints on the API port; `manifest` answers once it is written. */
export async function startApi(
  ctx: StartContext,
  parts: SandboxChains & Contracts & Backend & Market,
  manifest: () => Manifest | undefined,
): Promise<VenueApi> {
  const { node, emu, evmFollower, wasmFollower } = parts;
  const api = await startVenueApi({
    config: ctx.config,
    state: parts.state,
    clock: ctx.clock,
    scheduler: parts.scheduler,
    tokens: ctx.tokens,
    accessToken: ctx.accessToken,
    apiKey: ctx.apiKey,
    random: ctx.random,
    rpc: { evm: parts.evmProxy, wasm: parts.wasmProxy },
    followers: { evm: evmFollower, wasm: wasmFollower },
    chains: {
      closeLedger: () => emu.closeLedger().ledger.seq,
      mineBlock: async () => {
        await rpc(node.rpcUrl, 'evm_mine', []);
        return (await evmFollower.sync()) as number;
      },
    },
    flow: parts.flow,
    value: parts.value,
    oracles: parts.oracles,
    manifest,
    logger: ctx.logger,
  });
  ctx.stack.defer(() => api.close());
  return api;
}

/** The simulated day under way: true values walking, traders trading, oracles answering, the clock running. */
export async function beginRun(ctx: StartContext, market: Market): Promise<void> {
  market.value.start();
  if (ctx.config.flow.enabled) await market.flow.start();
  await market.oracles.start();
  ctx.clock.begin();
}
