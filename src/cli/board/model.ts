/**
 * What the live board shows, as plain data: one row per pair, one per wallet, the last warnings. Built from
 * the running bot by `snapshot.ts`, drawn by `render.ts`; neither knows about the other's sources.
 */
import type { Decimal } from '../../core/decimal.ts';
import type { BotPhase } from '../../engine/loop/bot.ts';
import type { TradingState } from '../../engine/risk/monitor.ts';
import type { ObligationStatus } from './obligations.ts';

/** Our best order on one side as it rests on the book: its price and the quantity left at that price. */
export interface Level {
  readonly price: Decimal;
  readonly size: Decimal;
}

export type PairStateKind = 'starting' | 'active' | 'paused' | 'halted' | 'closed' | 'stopping' | 'stopped' | 'killed';

export interface PairState {
  readonly kind: PairStateKind;
  /** Why (the pause reasons, the venue's halt reason, the stop or kill reason); empty when active. */
  readonly detail: string;
}

export interface PairRow {
  readonly pairId: string;
  readonly symbol: string;
  readonly chain: 'evm' | 'wasm';
  readonly bid: Level | null;
  readonly ask: Level | null;
  /** Spread between our best resting bid and ask, basis points of their mid (null: not both sides). */
  readonly spreadBps: Decimal | null;
  /** The pair's fair value in its last round, its source and the guards in force; null: it has none configured. */
  readonly fair: FairCell | null;
  /** From the obligations provider; null: the pair has no obligations, or no provider is connected. */
  readonly obligations: ObligationStatus | null;
  readonly position: Decimal;
  /** Realised plus unrealised at the mark, fees deducted, quote units. */
  readonly pnl: Decimal;
  readonly fills: number;
  /** Volume-weighted markout of our fills at the board's horizon; null: no evaluation. */
  readonly markout: MarkoutCell | null;
  readonly state: PairState;
}

export interface MarkoutCell {
  readonly horizonMs: number;
  /** Null until a fill has been valued at the horizon. */
  readonly bps: Decimal | null;
}

export interface FairCell {
  /** Null when no source is usable or the sources disagree. */
  readonly value: Decimal | null;
  readonly source: string | null;
  readonly guards: readonly string[];
}

export interface WalletRow {
  readonly chain: 'evm' | 'wasm';
  readonly address: string;
  /** The native fee balance last read (null: not read yet). */
  readonly native: Decimal | null;
  /** Transactions signed or sent whose fate the chain has not settled yet. */
  readonly inFlight: number;
}

export interface WarningLine {
  readonly level: 'warn' | 'error' | 'fatal';
  readonly text: string;
}

export interface BoardModel {
  readonly atMs: number;
  readonly phase: BotPhase;
  readonly logPath: string | null;
  readonly pairs: readonly PairRow[];
  readonly wallets: readonly WalletRow[];
  readonly warnings: readonly WarningLine[];
  /** Warnings and errors logged since the start, shown or not. */
  readonly warningCount: number;
}

/** Statuses of the venue (REST `tradingStatus`) that are a halt, volatility or manual. */
const HALTED = /HALT/;

/**
 * A pair's state for the board: the bot's own stop or kill first, then the venue's halt (which the risk
 * monitor only sees as a closed market), then the risk monitor's pause and its reasons.
 */
export function pairState(input: {
  readonly phase: BotPhase;
  readonly risk: TradingState | null;
  readonly tradingStatus: string | null;
  readonly statusReason: string | null;
  /** When the venue expects the halt to end (epoch ms), shown with it. */
  readonly haltEndMs?: number | null;
  /** What holds an active pair's placements back, while something does. */
  readonly held?: string | null;
}): PairState {
  const { phase, risk, tradingStatus, statusReason } = input;
  const until = input.haltEndMs == null ? '' : `, until ${new Date(input.haltEndMs).toISOString().slice(11, 16)} UTC`;
  if (risk?.mode === 'killed') return { kind: 'killed', detail: risk.reason };
  if (risk?.mode === 'stopped') return { kind: 'stopped', detail: risk.reason };
  if (phase === 'stopping') return { kind: 'stopping', detail: 'cancelling every order' };
  if (phase === 'stopped') return { kind: 'stopped', detail: 'shut down' };
  if (risk === null || phase === 'starting') return { kind: 'starting', detail: 'reconciling' };
  if (tradingStatus !== null && HALTED.test(tradingStatus))
    return { kind: 'halted', detail: `${statusReason ?? tradingStatus}${until}` };
  if (risk.mode === 'active') return { kind: 'active', detail: input.held == null ? '' : `placements ${input.held}` };
  const others = risk.reasons.filter((r) => r !== 'market-closed');
  if (others.length === 0 && tradingStatus !== null && tradingStatus !== 'CONTINUOUS_TRADING')
    return { kind: 'closed', detail: statusReason ?? tradingStatus };
  return { kind: 'paused', detail: risk.reasons.join(', ') };
}
