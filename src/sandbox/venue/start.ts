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
import { DEFAULT_CALENDAR } from '../../core/calendar.ts';
import { DltError } from '../../core/errors.ts';
import { EvmFollower } from '../api/evm-follower.ts';
import { RestFaults } from '../api/faults.ts';
import { startApiServer, TOKEN_PATH } from '../api/http-server.ts';
import { TokenIssuer } from '../api/token-endpoint.ts';
import { VenueState } from '../api/venue-state.ts';
import { WasmFollower } from '../api/wasm-follower.ts';
import { MarketDataServer } from '../api/ws-server.ts';
import { sandboxProvider, withAutomine } from '../evm/chain.ts';
import { loadArtifacts, PROJECT_ROOT } from '../evm/compile.ts';
import { rpc, startEvmNode } from '../evm/node.ts';
import { SeededRandom } from '../flow/random.ts';
import { WasmEmulator } from '../wasm/emulator.ts';
import { contractAddress } from '../wasm/deploy.ts';
import { startRpcServer } from '../wasm/rpc-server.ts';
import { evmBookOperator, wasmBookOperator, type BookOperator } from './book-operator.ts';
import { SandboxClock } from './clock.ts';
import { controlHandler } from './control-routes.ts';
import { DEFAULT_PAIRS, type SandboxPairDefinition } from './default-pairs.ts';
import { deploySandbox } from './deploy.ts';
import { EvmSender } from './evm-sender.ts';
import { buildFlow } from './flow-setup.ts';
import { buildManifest, removeManifest, writeManifest } from './manifest.ts';
import { defaultManifestPath, parseSandboxConfig, type SandboxConfig, type SandboxConfigInput } from './options.ts';
import { venuePairs } from './pairs.ts';
import { startRpcProxy } from './rpc-proxy.ts';
import { TradingScheduler } from './scheduler.ts';
import type { Sandbox } from './sandbox.ts';

export type { Sandbox } from './sandbox.ts';

export interface SandboxOptions extends SandboxConfigInput {
  readonly logger?: Logger;
  /** Pair definitions; default the sandbox's own set (default-pairs.ts). */
  readonly pairs?: readonly SandboxPairDefinition[];
  /** Base of a relative manifest path; default the project root. */
  readonly cwd?: string;
}

function forked(random: SeededRandom, label: string): () => number {
  const r = random.fork(label);
  return () => r.next();
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { logger: givenLogger, pairs: givenPairs, cwd, ...settings } = options;
  const config: SandboxConfig = parseSandboxConfig(settings);
  const logger = givenLogger ?? pino({ level: 'silent' });
  const defs = givenPairs ?? DEFAULT_PAIRS;
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
  const undo: (() => Promise<void> | void)[] = [];
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
    // The node boots in its own process while this one compiles the contracts (cached after the first run).
    const nodePromise = startEvmNode({ blockTimeMs: config.evm.blockTimeMs, automine: false });
    undo.push(() =>
      nodePromise.then(
        (n) => n.stop(),
        () => undefined,
      ),
    );
    loadArtifacts();
    const emu = new WasmEmulator({
      passphrase: config.wasm.networkPassphrase,
      ledgerIntervalMs: config.wasm.ledgerIntervalMs,
      retentionLedgers: config.wasm.retentionLedgers,
    });
    undo.push(() => emu.stop());
    const wasmRpc = await startRpcServer(emu, { port: 0 });
    undo.push(() => wasmRpc.close());
    const wasmProxy = await startRpcProxy({
      port: config.ports.wasm,
      target: wasmRpc.url,
      random: forked(random, 'wasm faults'),
    });
    undo.push(() => wasmProxy.close());
    const node = await nodePromise;
    const evmProxy = await startRpcProxy({
      port: config.ports.evm,
      target: node.rpcUrl,
      random: forked(random, 'evm faults'),
    });
    undo.push(() => evmProxy.close());
    logger.info({ ms: Math.round(performance.now() - started) }, 'chain nodes up');

    const deployed = await deploySandbox(node.rpcUrl, emu, defs);
    const participantWallets = deployed.wallets
      .filter((w) => w.role === 'participant')
      .map((w) => ({ name: w.name, chain: w.chain, address: w.address }));
    const state = new VenueState({
      participantId: config.api.participantId,
      wallets: participantWallets,
      orderLagMs: config.api.orderLagMs,
      venueNow: () => clock.nowMs(),
    });
    for (const p of venuePairs(defs, deployed, clock.nowMs())) state.addPair(p);

    const evmFollower = new EvmFollower({
      rpcUrl: node.rpcUrl,
      books: state.pairs
        .filter((p) => p.chain === 'evm')
        .map((p) => ({ orderBook: p.addresses.orderBook.hex, baseToken: p.addresses.base.hex, market: p.market })),
      nowMs: () => clock.nowMs(),
      pollMs: config.indexer.pollMs,
      maxBlockRange: config.indexer.maxBlockRange,
      logger,
    });
    undo.push(() => evmFollower.stop());
    const wasmFollower = new WasmFollower({
      emulator: emu,
      books: state.pairs
        .filter((p) => p.chain === 'wasm')
        .map((p) => ({
          orderBook: p.addresses.orderBook.strkey as string,
          baseToken: p.addresses.base.strkey as string,
          quoteToken: p.addresses.quote.strkey as string,
          market: p.market,
        })),
      nowMs: () => clock.nowMs(),
      logger,
    });
    undo.push(() => wasmFollower.stop());
    evmFollower.start();
    wasmFollower.start();

    const pollMs = Math.max(20, Math.min(100, Math.floor(config.evm.blockTimeMs / 4)));
    const operatorSender = new EvmSender({
      rpcUrl: node.rpcUrl,
      privateKey: deployed.evm.operator.privateKey,
      chainId: deployed.evm.chainId,
      pollMs,
    });
    undo.push(() => operatorSender.stop());
    const operators = new Map<string, BookOperator>();
    for (const p of state.pairs) {
      const book = deployed.wasmBooks.get(p.id);
      operators.set(
        p.id,
        book === undefined
          ? evmBookOperator(operatorSender, node.rpcUrl, p.addresses.orderBook.hex)
          : wasmBookOperator(emu, deployed.wasm, book),
      );
    }
    const scheduler = new TradingScheduler({
      state,
      operators,
      nowMs: () => clock.nowMs(),
      mode: config.trading.mode,
      calendar: {
        ...DEFAULT_CALENDAR,
        holidays: config.trading.holidays,
        open: config.trading.open,
        close: config.trading.close,
        clearingDelayMinutes: config.trading.clearingDelayMinutes,
      },
      firstHaltPauseMs: config.trading.firstHaltPauseMs,
      secondHaltPauseMs: config.trading.secondHaltPauseMs,
      resumeCutoffMs: config.trading.resumeCutoffMs,
      tickMs: config.trading.tickMs,
      logger,
    });
    undo.push(() => scheduler.stop());

    const wasmServer = new stellarRpc.Server(wasmRpc.url, { allowHttp: true });
    const flow = buildFlow({
      config,
      state,
      deployed,
      evmRpcUrl: node.rpcUrl,
      wasmServer,
      evmFollower,
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
      });
    } finally {
      provider.destroy();
    }
    emu.start();
    await evmFollower.sync();
    wasmFollower.sync();

    const restFaults = new RestFaults(forked(random, 'rest faults'));
    const ws = new MarketDataServer({
      state,
      auth: { apiKey, dateHeader: config.api.dateHeader, toleranceMs: config.api.dateToleranceMs },
      nowMs: () => clock.nowMs(),
      // Clients date their authorization by their own clock: checked against wall time, as tokens expire on it.
      authNowMs: () => Date.now(),
      coalesceMs: config.api.wsCoalesceMs,
      snapshotIntervalMs: config.api.wsSnapshotIntervalMs,
      depth: config.api.wsDepth,
      keepAliveMs: config.api.wsKeepAliveMs,
      connectionTimeoutMs: config.api.wsConnectionTimeoutMs,
    });
    undo.push(() => ws.close());
    let manifest: ReturnType<typeof buildManifest> | undefined;
    const status = () => ({
      clock: clock.state(),
      tradingMode: config.trading.mode,
      pairs: state.pairs.map((p) => ({
        id: p.id,
        symbol: p.symbol,
        tradingStatus: p.status.tradingStatus,
        statusChangeReason: p.status.statusChangeReason,
        phase: p.status.phase,
        tradingHaltCounter: p.status.tradingHaltCounter,
        resumeAt:
          scheduler.resumeAt(p.id) === undefined ? null : new Date(scheduler.resumeAt(p.id) as number).toISOString(),
        restingOrders: p.market.book.size,
        trades: p.market.trades.count,
      })),
      indexer: { evmBlock: evmFollower.processedBlock, wasmLedger: wasmFollower.processedLedger },
      tokens: { issued: tokens.issued, refused: tokens.refused, lifetimeSeconds: tokens.lifetimeSeconds },
      websocket: {
        connections: ws.connections,
        dataMessages: ws.sent,
        keepAlives: ws.keepAlives,
        refused: ws.refused,
        stalled: ws.stalled,
        silent: ws.silent,
      },
      clearings: scheduler.clearings,
      flow: flow.describe(),
    });
    const api = await startApiServer({
      port: config.ports.api,
      context: { state, accessToken, tokens, nowMs: () => clock.nowMs() },
      faults: restFaults,
      ws,
      tokens,
      control: controlHandler({
        state,
        clock,
        scheduler,
        restFaults,
        ws,
        tokens,
        rpc: { evm: evmProxy, wasm: wasmProxy },
        flow,
        chains: {
          closeLedger: () => emu.closeLedger().ledger.seq,
          mineBlock: async () => {
            await rpc(node.rpcUrl, 'evm_mine', []);
            return (await evmFollower.sync()) as number;
          },
        },
        status,
        manifest: () => manifest,
      }),
      onError: (e, path) => logger.error({ err: e, path }, 'venue API handler failed'),
    });
    undo.push(() => api.close());

    if (config.flow.enabled) await flow.start();
    clock.begin();
    manifest = buildManifest({
      startedAt: new Date().toISOString(),
      pid: process.pid,
      apiOrigin: api.origin,
      apiKey,
      accessToken,
      oauth: {
        tokenUrl: `${api.origin}${TOKEN_PATH}`,
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
      wallets: deployed.wallets,
      channelAccounts: deployed.channelAccounts,
      flowEnabled: config.flow.enabled,
    });
    const manifestSetting = config.manifest ?? defaultManifestPath(api.port);
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
