/**
 * Wires the simulated market to the running sandbox: the simulated traders' wallets (deployed by
 * deploy.ts) become signing traders on the sandbox's internal chain endpoints, each pair gets its rules, and
 * the control endpoints get start, stop and a description (counters, the true values, the maker's lagged view
 * and who the informed and uninformed takers traded with).
 */
import type { rpc } from '@stellar/stellar-sdk';
import type { Logger } from 'pino';
import { derivePairRules } from '../../core/rules.ts';
import type { EvmFollower } from '../api/evm-follower.ts';
import type { VenueState } from '../api/venue-state.ts';
import { EvmTrader } from '../flow/evm-trader.ts';
import { MarketFlow } from '../flow/flow.ts';
import { WasmTrader } from '../flow/wasm-trader.ts';
import { flowWasmNames, type DeployedSandbox } from './deploy.ts';
import { EvmSender } from './evm-sender.ts';
import type { SandboxConfig } from './options.ts';
import type { ValueParts } from './value-setup.ts';

export interface FlowHandle {
  readonly market: MarketFlow;
  running(): boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
  describe(): Record<string, unknown>;
  /** Stops for good: waits for what is in flight and abandons pending receipts. */
  dispose(): Promise<void>;
}

export interface FlowSetup {
  readonly config: SandboxConfig;
  readonly state: VenueState;
  readonly deployed: DeployedSandbox;
  readonly evmRpcUrl: string;
  readonly wasmServer: rpc.Server;
  readonly evmFollower: EvmFollower;
  /** The true values the traders act on. */
  readonly value: ValueParts;
  readonly passphrase: string;
  readonly pollMs: number;
  readonly logger: Logger;
}

export function buildFlow(s: FlowSetup): FlowHandle {
  const key = (name: string) => {
    const w = s.deployed.wallets.find((x) => x.name === name);
    if (w === undefined) throw new Error(`simulated trader wallet ${name} was not deployed`);
    return w.key;
  };
  const evmSender = (name: string) =>
    new EvmSender({ rpcUrl: s.evmRpcUrl, privateKey: key(name), chainId: s.deployed.evm.chainId, pollMs: s.pollMs });
  const hasEvm = s.state.pairs.some((p) => p.chain === 'evm');
  const evmMaker = hasEvm ? new EvmTrader(evmSender('flow-maker-evm')) : undefined;
  // The uninformed taker leaves its cross identifier empty, so chain A carries orders of others with an empty one.
  const evmTaker = hasEvm ? new EvmTrader(evmSender('flow-taker-evm'), { emptyCrossIdentifier: true }) : undefined;
  const evmInformed = hasEvm ? new EvmTrader(evmSender('flow-informed-evm')) : undefined;
  const wasmPollMs = Math.max(20, Math.min(200, Math.floor((s.config.wasm.ledgerIntervalMs || 200) / 4)));
  const wasmTrader = (name: string) =>
    new WasmTrader({ server: s.wasmServer, secret: key(name), passphrase: s.passphrase, pollMs: wasmPollMs });
  const wasm = new Map(
    s.state.pairs
      .filter((p) => p.chain === 'wasm')
      .map((p) => {
        const n = flowWasmNames(p.id);
        const traders = {
          bid: wasmTrader(n.bid),
          ask: wasmTrader(n.ask),
          taker: wasmTrader(n.taker),
          informed: wasmTrader(n.informed),
        };
        return [p.id, traders] as const;
      }),
  );
  const f = s.config.flow;
  const market = new MarketFlow(
    s.state.pairs.map((p) => ({
      pair: p,
      rules: derivePairRules(p.record, p.overrides),
      orderBook: p.chain === 'evm' ? p.addresses.orderBook.hex : (p.addresses.orderBook.strkey as string),
    })),
    {
      ...(evmMaker === undefined ? {} : { evmMaker }),
      ...(evmTaker === undefined ? {} : { evmTaker }),
      ...(evmInformed === undefined ? {} : { evmInformed }),
      evmFollower: s.evmFollower,
      wasm,
    },
    s.value.values,
    {
      seed: f.seed,
      takerIntervalMs: f.takerIntervalMs,
      makerTickMs: f.makerTickMs,
      maker: { levels: f.levels, spreadBps: f.spreadBps, stepBps: f.stepBps },
      informedShare: f.informedShare,
      informedEdgeBps: f.informedEdgeBps,
      makerLagMs: f.makerLagMs,
    },
    s.logger,
  );
  return {
    market,
    running: () => market.running,
    start: async () => market.start(),
    stop: () => market.stop(),
    describe: () => ({
      running: market.running,
      stats: { ...market.stats },
      trueValues: s.value.describe(),
      pairs: market.describe(),
      settings: f,
    }),
    async dispose() {
      // Abandon receipt waits first, so that stopping does not wait for the next block or ledger.
      for (const t of [evmMaker, evmTaker, evmInformed]) t?.sender.stop();
      for (const w of wasm.values()) for (const t of [w.bid, w.ask, w.taker, w.informed]) t.stop();
      await market.stop();
    },
  };
}
