/**
 * Everything the chain B adapter is configured with, and the defaults of every knob. Time and waiting are
 * passed in (a clock and a sleep), so tests drive the adapter with the emulator's ledgers and never wait.
 */
import type { Keypair } from '@stellar/stellar-sdk';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import type { ApprovalStore, TxJournal } from '../ports.ts';
import type { TokenRole } from '../types.ts';
import type { RpcTransport } from './json-rpc.ts';
import type { Clock } from '../../core/clock.ts';
import { WASM_DEFAULTS } from '../../core/config/chain-defaults.ts';

export type { Clock, Sleep } from '../../core/clock.ts';
export { systemClock } from '../../core/system-clock.ts';

/** Timing of one submission, from the command to the signed envelope being handed to the transport. */
export interface SubmitTiming {
  readonly kind: 'place' | 'cancel' | 'approve';
  /** From `submit` to the `sendTransaction` request. */
  readonly toSendMs: number;
  /** Of that, the simulation round trips. */
  readonly simulationMs: number;
  /** Of that, waiting for a free source account (all channels busy). */
  readonly sourceWaitMs: number;
}

export interface ApprovalOptions {
  /** Ledgers from now to the `expiration_ledger` of a new approval (default 17,280, about a day). */
  readonly lifetimeLedgers: number;
  /** Renew when fewer ledgers than this are left before the recorded expiry (default 720, about an hour). */
  readonly renewMarginLedgers: number;
  /** Without a budget, a top-up approves this many times the amount needed (default 4). */
  readonly multiplier: number;
  /** Per pair id: the allowance a top-up sets, native units (at least the amount needed). */
  readonly budgets: Readonly<Record<string, Partial<Record<TokenRole, bigint>>>>;
}

export interface FollowerOptions {
  /** Between polls of getEvents (default 1000 ms, a fifth of a ledger). */
  readonly pollIntervalMs: number;
  /** getEvents page size (default 1000; the RPC allows 10,000). */
  readonly pageLimit: number;
  /** Pages fetched per filter group in one round before delivering (default 20). */
  readonly maxPagesPerRound: number;
  /** An idle follower still reports its advanced cursor every this many ledgers, so a stored cursor stays inside the retention window (default 100). */
  readonly cursorHeartbeatLedgers: number;
}

export interface WasmAdapterOptions {
  readonly rpcUrl: string;
  readonly networkPassphrase: string;
  /** The trading account (`user`); it signs authorization entries, and transactions when there are no channels. */
  readonly tradingKey: Keypair;
  /** Channel accounts used as transaction sources; empty: the trading account is the only source. */
  readonly channelKeys?: readonly Keypair[];
  readonly journal: TxJournal;
  readonly state: ApprovalStore;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  readonly clock?: Clock;
  /** JSON-RPC transport; default HTTP POST to `rpcUrl`. */
  readonly transport?: RpcTransport;
  /** Seconds from now to a transaction's upper time bound (default 30). */
  readonly txTimeoutSeconds?: number;
  /** Inclusion fee per transaction, stroops, on top of the simulated resource fee (default 100). */
  readonly inclusionFeeStroops?: number;
  /**
   * Inclusion fee of a cancellation (default 10,000): a higher bid than placements, so that with the network's
   * queue full (surge pricing) a cancel still gets into the next ledger.
   */
  readonly cancelInclusionFeeStroops?: number;
  /** Ledgers ahead of the simulation's latest ledger that an authorization signature stays valid (default 12). */
  readonly authValidityLedgers?: number;
  /** Between getTransaction polls (default 1000). */
  readonly pollIntervalMs?: number;
  /** Expected ledger close interval, to estimate the current ledger between replies (default 5000). */
  readonly ledgerCloseMs?: number;
  /** After the upper time bound, how long an unreachable node may keep the outcome open before it is `unknown` (default 60,000). */
  readonly outcomeGraceMs?: number;
  /** TRY_AGAIN_LATER: attempts and backoff (defaults 8, 500 ms doubling up to 5000 ms). */
  readonly tryAgainLater?: {
    readonly maxAttempts?: number;
    readonly baseDelayMs?: number;
    readonly maxDelayMs?: number;
  };
  /** txBAD_SEQ: sequence reloads before the command is refused (default 3). */
  readonly maxSequenceResyncs?: number;
  /** Per RPC request (default 10,000). */
  readonly rpcTimeoutMs?: number;
  readonly approvals?: Partial<ApprovalOptions>;
  readonly follower?: Partial<FollowerOptions>;
  /** Called once per signed transaction with its place-to-send timing. */
  readonly onSubmitTiming?: (timing: SubmitTiming) => void;
}

export interface ResolvedOptions {
  readonly txTimeoutSeconds: number;
  readonly inclusionFeeStroops: number;
  readonly cancelInclusionFeeStroops: number;
  readonly authValidityLedgers: number;
  readonly pollIntervalMs: number;
  readonly ledgerCloseMs: number;
  readonly outcomeGraceMs: number;
  readonly tryAgainLater: { readonly maxAttempts: number; readonly baseDelayMs: number; readonly maxDelayMs: number };
  readonly maxSequenceResyncs: number;
  readonly rpcTimeoutMs: number;
  readonly approvals: ApprovalOptions;
  readonly follower: FollowerOptions;
}

/** How approvals are sized and renewed, the defaults filled in (the adapter's, and a backtest's simulated one). */
export function approvalOptions(options: Partial<ApprovalOptions> = {}): ApprovalOptions {
  return {
    lifetimeLedgers: options.lifetimeLedgers ?? WASM_DEFAULTS.approvalLedgers,
    renewMarginLedgers: options.renewMarginLedgers ?? 720,
    multiplier: options.multiplier ?? 4,
    budgets: options.budgets ?? {},
  };
}

export function resolveOptions(options: WasmAdapterOptions): ResolvedOptions {
  return {
    txTimeoutSeconds: options.txTimeoutSeconds ?? 30,
    inclusionFeeStroops: options.inclusionFeeStroops ?? 100,
    cancelInclusionFeeStroops: options.cancelInclusionFeeStroops ?? 10_000,
    authValidityLedgers: options.authValidityLedgers ?? 12,
    pollIntervalMs: options.pollIntervalMs ?? 1000,
    ledgerCloseMs: options.ledgerCloseMs ?? 5000,
    outcomeGraceMs: options.outcomeGraceMs ?? 60_000,
    tryAgainLater: {
      maxAttempts: options.tryAgainLater?.maxAttempts ?? 8,
      baseDelayMs: options.tryAgainLater?.baseDelayMs ?? 500,
      maxDelayMs: options.tryAgainLater?.maxDelayMs ?? 5000,
    },
    maxSequenceResyncs: options.maxSequenceResyncs ?? 3,
    rpcTimeoutMs: options.rpcTimeoutMs ?? 10_000,
    approvals: approvalOptions(options.approvals),
    follower: {
      pollIntervalMs: options.follower?.pollIntervalMs ?? 1000,
      pageLimit: options.follower?.pageLimit ?? 1000,
      maxPagesPerRound: options.follower?.maxPagesPerRound ?? 20,
      cursorHeartbeatLedgers: options.follower?.cursorHeartbeatLedgers ?? 100,
    },
  };
}
