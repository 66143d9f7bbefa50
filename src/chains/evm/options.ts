/**
 * Everything the chain A adapter is configured with, and the default of every knob. Time and waiting are
 * passed in (a clock and a sleep), so tests drive the adapter with the node's blocks and never wait.
 */
import { EVM_DEFAULTS } from '../../core/config/chain-defaults.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import type { ApprovalStore, CursorStore, NonceJournal } from '../ports.ts';
import type { TokenRole } from '../types.ts';
import type { RpcTransport } from './json-rpc.ts';

import type { Clock } from '../../core/clock.ts';
export type { Clock, Sleep } from '../../core/clock.ts';
export { systemClock } from '../../core/system-clock.ts';

export type TxKind = 'place' | 'cancel' | 'approve';

/** When a placement or cancellation is simulated with `eth_call` before it is signed. */
export type SimulationMode = 'always' | 'when-idle' | 'never';

/** Timing of one signed transaction, from the command to the raw transaction being handed to the transport. */
export interface SubmitTiming {
  readonly kind: TxKind;
  readonly toSendMs: number;
}

export interface FeeOptions {
  /** Highest maxFeePerGas the adapter ever signs, wei (default 500 gwei). */
  readonly maxFeePerGasCap: bigint;
  /** Lowest priority fee, wei, whatever the node suggests (default 0: the node's suggestion). */
  readonly minPriorityFeePerGas: bigint;
  /** maxFeePerGas = next base fee x this + priority fee (default 2: survives six full blocks of base fee rises). */
  readonly baseFeeMultiplier: bigint;
  /** A fee suggestion is reused for this long, and refreshed in the background after (default 2000 ms, a block). */
  readonly refreshMs: number;
  /** A replacement raises both fees by this percentage at least (default 15; nodes require 10). */
  readonly bumpPercent: bigint;
}

export interface ReceiptOptions {
  /** Between receipt polls while transactions are in flight (default 1000 ms). */
  readonly pollIntervalMs: number;
  /** An attempt not mined this long after it was sent is replaced (default 30,000 ms, 15 blocks). */
  readonly stuckAfterMs: number;
  /** Fee-bumped replacements before the nonce is cancelled with a zero-value self-transfer (default 3). */
  readonly maxReplacements: number;
  /** The outcome settles as `unknown` this long after sending; the nonce stays tracked (default 300,000 ms). */
  readonly outcomeTimeoutMs: number;
  /** Polls a mined nonce may show none of our hashes before it counts as taken by another transaction (default 3). */
  readonly supersededAfterPolls: number;
}

export interface ApprovalOptions {
  /** Per pair id and token: what a top-up approves beyond the need at hand, native units. */
  readonly budgets: Readonly<Record<string, Partial<Record<TokenRole, bigint>>>>;
  /** Without a configured budget, a top-up approves this many times the need at hand (default 4). */
  readonly multiplier: bigint;
  /** Approve MaxUint256 instead (default false: never unlimited unless configured). */
  readonly unlimited: boolean;
}

export interface FollowerOptions {
  /**
   * Between rounds (default 500 ms, a quarter of a block): a round that finds no new block costs one request,
   * and a fill is known within a fraction of a block of its confirmation. A newer head a receipt poll saw starts
   * the next round at once; a poll that saw the same head restarts the interval (`head-sightings.ts`).
   */
  readonly pollIntervalMs: number;
  /** Blocks per eth_getLogs query (default 500). */
  readonly maxBlockRange: number;
  /** Events are tentative until this many blocks are on top of theirs (default `EVM_DEFAULTS.confirmations`, 2; 0: at once). */
  readonly confirmations: number;
  /** A confirmed cursor whose block hash changed is re-read from this many blocks below it (default 64). */
  readonly reorgLookbackBlocks: number;
  /** An idle follower still reports its advanced cursor every this many blocks (default 100). */
  readonly cursorHeartbeatBlocks: number;
  /** First block of the books' history: a fresh state file reads the wallet's orders from it (default 0). */
  readonly historyFromBlock: bigint;
}

export interface EvmAdapterOptions {
  readonly rpcUrl: string;
  /** The chain the key signs for; checked against the node's `eth_chainId` before the first transaction. */
  readonly chainId: bigint;
  /** The trading wallet's key (0x-prefixed hex). Held only inside the signer, never logged. */
  readonly privateKey: string;
  readonly journal: NonceJournal;
  /** Where the follower persists its confirmed cursor (optional: the engine may keep it itself). */
  readonly state?: CursorStore & ApprovalStore;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  readonly clock?: Clock;
  /** JSON-RPC transport; default HTTP POST to `rpcUrl`. */
  readonly transport?: RpcTransport;
  /** Per RPC request (default 10,000 ms). */
  readonly rpcTimeoutMs?: number;
  /** Default `when-idle`: simulate only when no transaction of the wallet is in flight (see src/chains/README.md). */
  readonly simulation?: SimulationMode;
  /** Gas limit per kind, or `estimate` to estimate once per kind and contract and cache it. */
  readonly gasLimits?: Partial<Record<TxKind, bigint | 'estimate'>>;
  /** An estimated gas limit is raised by this percentage (default 50). */
  readonly gasEstimateHeadroomPercent?: bigint;
  /** Nonce resyncs one command may cause before it is refused (default 3). */
  readonly maxNonceResyncs?: number;
  readonly fees?: Partial<FeeOptions>;
  readonly receipts?: Partial<ReceiptOptions>;
  readonly approvals?: Partial<ApprovalOptions>;
  readonly follower?: Partial<FollowerOptions>;
  /** Called once per signed transaction with its place-to-send timing. */
  readonly onSubmitTiming?: (timing: SubmitTiming) => void;
}

/** Defaults measured on the sandbox order book: a resting placement uses ~194k gas, a sell matching 10 resting buys ~529k. */
export const DEFAULT_GAS_LIMITS: Readonly<Record<TxKind, bigint>> = {
  place: 800_000n,
  cancel: 150_000n,
  approve: 100_000n,
};
export const SELF_TRANSFER_GAS = 21_000n;
/** How the follower, and a book tap, read logs by default: ranges the nodes accept, at a pace they bear. */
export const LOG_READS = { maxBlockRange: 500, pollIntervalMs: 500 } as const;
const GWEI = 1_000_000_000n;

export interface ResolvedOptions {
  readonly rpcTimeoutMs: number;
  readonly simulation: SimulationMode;
  readonly gasLimits: Readonly<Record<TxKind, bigint | 'estimate'>>;
  readonly gasEstimateHeadroomPercent: bigint;
  readonly maxNonceResyncs: number;
  readonly fees: FeeOptions;
  readonly receipts: ReceiptOptions;
  readonly approvals: ApprovalOptions;
  readonly follower: FollowerOptions;
}

export function resolveOptions(options: EvmAdapterOptions): ResolvedOptions {
  return {
    rpcTimeoutMs: options.rpcTimeoutMs ?? 10_000,
    simulation: options.simulation ?? 'when-idle',
    gasLimits: { ...DEFAULT_GAS_LIMITS, ...options.gasLimits },
    gasEstimateHeadroomPercent: options.gasEstimateHeadroomPercent ?? 50n,
    maxNonceResyncs: options.maxNonceResyncs ?? 3,
    fees: {
      maxFeePerGasCap: options.fees?.maxFeePerGasCap ?? EVM_DEFAULTS.maxFeePerGasGwei * GWEI,
      minPriorityFeePerGas: options.fees?.minPriorityFeePerGas ?? 0n,
      baseFeeMultiplier: options.fees?.baseFeeMultiplier ?? 2n,
      refreshMs: options.fees?.refreshMs ?? 2000,
      bumpPercent: options.fees?.bumpPercent ?? 15n,
    },
    receipts: {
      pollIntervalMs: options.receipts?.pollIntervalMs ?? 1000,
      stuckAfterMs: options.receipts?.stuckAfterMs ?? 30_000,
      maxReplacements: options.receipts?.maxReplacements ?? 3,
      outcomeTimeoutMs: options.receipts?.outcomeTimeoutMs ?? 300_000,
      supersededAfterPolls: options.receipts?.supersededAfterPolls ?? 3,
    },
    approvals: {
      budgets: options.approvals?.budgets ?? {},
      multiplier: options.approvals?.multiplier ?? 4n,
      unlimited: options.approvals?.unlimited ?? false,
    },
    follower: {
      pollIntervalMs: options.follower?.pollIntervalMs ?? LOG_READS.pollIntervalMs,
      maxBlockRange: options.follower?.maxBlockRange ?? LOG_READS.maxBlockRange,
      confirmations: options.follower?.confirmations ?? EVM_DEFAULTS.confirmations,
      reorgLookbackBlocks: options.follower?.reorgLookbackBlocks ?? 64,
      cursorHeartbeatBlocks: options.follower?.cursorHeartbeatBlocks ?? 100,
      historyFromBlock: options.follower?.historyFromBlock ?? BigInt(EVM_DEFAULTS.historyFromBlock),
    },
  };
}
