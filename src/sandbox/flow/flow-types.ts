/**
 * What the simulated market's parts share: its settings, its pairs and traders, its counters, and each
 * pair's runtime (its random source, its maker's lagged view, the actions in flight).
 */
import type { Decimal } from '../../core/decimal.ts';
import type { PairRules } from '../../core/rules.ts';
import type { EvmFollower } from '../api/evm-follower.ts';
import type { VenuePair } from '../api/venue-state.ts';
import type { EvmTrader } from './evm-trader.ts';
import type { LaggedReference } from './lagged.ts';
import type { MakerSettings } from './quotes.ts';
import type { SeededRandom } from './random.ts';
import type { WasmTrader } from './wasm-trader.ts';

export interface FlowSettings {
  readonly seed: number;
  /** Mean wall time between two taker orders of one pair. */
  readonly takerIntervalMs: number;
  /** Wall time between two maker decisions. */
  readonly makerTickMs: number;
  readonly maker: MakerSettings;
  /** Share of the taker decisions that are informed (0..1). */
  readonly informedShare: number;
  /** An informed taker trades only against a level mispriced by more than this (basis points of the true value). */
  readonly informedEdgeBps: number;
  /** Half-life of the maker's view of the true value, wall milliseconds (0: no lag). */
  readonly makerLagMs: number;
}

/** The true value the traders act on (the sandbox's hidden value). */
export interface FlowValues {
  value(pairId: string): Decimal;
}

export interface FlowPair {
  readonly pair: VenuePair;
  readonly rules: PairRules;
  /** Order book address the traders send to (chain A 0x address, chain B C... strkey). */
  readonly orderBook: string;
}

export interface WasmFlowTraders {
  readonly bid: WasmTrader;
  readonly ask: WasmTrader;
  readonly taker: WasmTrader;
  readonly informed: WasmTrader;
}

export interface FlowTraders {
  readonly evmMaker?: EvmTrader;
  readonly evmTaker?: EvmTrader;
  readonly evmInformed?: EvmTrader;
  readonly evmFollower?: EvmFollower;
  /** Chain B: per pair id, one wallet per maker side, an uninformed and an informed taker. */
  readonly wasm?: ReadonlyMap<string, WasmFlowTraders>;
}

export interface FlowStats {
  placed: number;
  cancelled: number;
  takerOrders: number;
  failures: number;
}

export interface Runtime {
  readonly fp: FlowPair;
  readonly random: SeededRandom;
  /** The background maker's lagged view of the true value. */
  readonly maker: LaggedReference;
  readonly busy: Set<string>;
  takerTimer?: NodeJS.Timeout;
}

/** Runs `fn` unless an action of the same key is in flight on the pair (then does nothing). */
export async function exclusive(rt: Runtime, key: string, fn: () => Promise<void>): Promise<void> {
  if (rt.busy.has(key)) return;
  rt.busy.add(key);
  try {
    await fn();
  } finally {
    rt.busy.delete(key);
  }
}
