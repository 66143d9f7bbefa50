/**
 * The sandbox's price oracles, wired: a Chainlink-compatible aggregator per chain A pair
 * (`deployEvmOracles`, on the node itself, not behind the fault proxy) and one SEP-40 contract for the chain B
 * pairs (`deployWasmOracles`, administered by the chain B venue operator), quoting each pair's base token
 * (`Stellar(<base token contract>)`) in its quote currency. Their value is the pair's true value; their
 * operators publish on deviation and heartbeat (sandbox clock). The first answers are published while the
 * sandbox starts (chain A under automine, chain B by closing a ledger), so a reader never meets an empty
 * oracle; the operators run once the market does.
 */
import type { Keypair } from '@stellar/stellar-sdk';
import type { Logger } from 'pino';
import type { Decimal } from '../../core/decimal.ts';
import type { VenuePair } from '../api/venue-state.ts';
import { deployEvmOracles, type EvmOracles } from '../oracle/evm.ts';
import type { OracleFeedState, OracleOperator, PublishedUpdate } from '../oracle/operator.ts';
import { deployWasmOracles, type WasmOracles } from '../oracle/wasm.ts';
import type { WasmEmulator } from '../wasm/emulator.ts';

export interface OraclesSetup {
  /** The chain A node's own RPC URL. */
  readonly rpcUrl: string;
  readonly emulator: WasmEmulator;
  /** The chain B oracle's admin: the venue operator. */
  readonly admin: Keypair;
  readonly pairs: readonly VenuePair[];
  /** A pair's true value now. */
  readonly value: (pairId: string) => Decimal;
  /** The sandbox clock. */
  readonly nowMs: () => number;
  readonly deviationBps: number;
  readonly heartbeatMs: number;
  readonly pollMs: number;
  /** Chain B: seconds per SEP-40 tick. */
  readonly resolutionSeconds: number;
  readonly logger: Logger;
}

/** Where a pair's oracle is: chain A the aggregator; chain B the SEP-40 contract and the asset it prices. */
export interface PairOracle {
  readonly address: string;
  readonly asset?: string;
}

export interface SandboxOracles {
  readonly evm: EvmOracles | null;
  readonly wasm: WasmOracles | null;
  oracleOf(pairId: string): PairOracle | undefined;
  /** Publishes every feed's first answer; `closeLedger` closes the chain B ledger that applies it. */
  publishFirst(closeLedger: () => void): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** One round of both operators now. */
  poll(): Promise<readonly PublishedUpdate[]>;
  /** Faults, for every pair's oracle or one pair's. */
  freeze(pairId?: string): Promise<void>;
  unfreeze(pairId?: string): void;
  jump(bps: number, pairId?: string): Promise<readonly PublishedUpdate[]>;
  state(): readonly OracleFeedState[];
}

export async function deployOracles(setup: OraclesSetup): Promise<SandboxOracles> {
  const common = {
    nowMs: setup.nowMs,
    deviationBps: setup.deviationBps,
    heartbeatMs: setup.heartbeatMs,
    pollMs: setup.pollMs,
    logger: setup.logger,
  };
  const evmPairs = setup.pairs.filter((p) => p.chain === 'evm');
  const wasmPairs = setup.pairs.filter((p) => p.chain === 'wasm');
  const evm =
    evmPairs.length === 0
      ? null
      : await deployEvmOracles({
          ...common,
          rpcUrl: setup.rpcUrl,
          feeds: evmPairs.map((p) => ({
            id: p.id,
            description: `${p.record.baseTokenData?.symbol ?? p.symbol} / ${p.record.quoteTokenSymbol ?? ''}`,
            value: () => setup.value(p.id),
          })),
        });
  const wasm =
    wasmPairs.length === 0
      ? null
      : deployWasmOracles({
          ...common,
          emulator: setup.emulator,
          admin: setup.admin,
          resolutionSeconds: setup.resolutionSeconds,
          base: { other: wasmPairs[0]?.record.quoteTokenSymbol ?? 'EURe' },
          feeds: wasmPairs.map((p) => ({
            id: p.id,
            asset: { stellar: p.addresses.base.strkey as string },
            value: () => setup.value(p.id),
          })),
        });
  const operators = [evm?.operator, wasm?.operator].filter((x): x is OracleOperator => x !== undefined);
  /** The operators concerned: all, or the one with the pair's feed. */
  const of = (pairId: string | undefined) =>
    pairId === undefined ? operators : operators.filter((op) => op.state().some((f) => f.id === pairId));
  return {
    evm,
    wasm,
    oracleOf(pairId) {
      const a = evm?.feeds.find((f) => f.id === pairId);
      if (a !== undefined) return { address: a.address };
      const b = wasm?.feeds.find((f) => f.id === pairId);
      if (wasm === null || b === undefined || !('stellar' in b.asset)) return undefined;
      return { address: wasm.contract.strkey, asset: b.asset.stellar };
    },
    async publishFirst(closeLedger) {
      const first = Promise.all(operators.map((op) => op.poll()));
      // The chain B update is queued within this turn; the ledger that applies it can close now.
      await new Promise((resolve) => setImmediate(resolve));
      if (wasm !== null) closeLedger();
      await first;
    },
    async start() {
      await Promise.all(operators.map((op) => op.start()));
    },
    async stop() {
      await Promise.all(operators.map((op) => op.stop()));
    },
    async poll() {
      return (await Promise.all(operators.map((op) => op.poll()))).flat();
    },
    async freeze(pairId) {
      await Promise.all(of(pairId).map((op) => op.freeze(pairId)));
    },
    unfreeze: (pairId) => {
      for (const op of of(pairId)) op.unfreeze(pairId);
    },
    async jump(bps, pairId) {
      return (await Promise.all(of(pairId).map((op) => op.jump(bps, pairId)))).flat();
    },
    state: () => operators.flatMap((op) => op.state()),
  };
}
