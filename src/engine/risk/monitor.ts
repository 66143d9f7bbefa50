/**
 * Whether a pair may quote, and why not. Pauses lift by themselves (fresh market data, end of a back-off, the
 * market reopening, an explained inventory); a stop (repeated failures, native balance too low) and the kill
 * switch (daily loss, drawdown) hold until an operator restarts the bot. The kill switch is global: one pair
 * breaking its loss limit stops every pair, and the engine cancels every order.
 */
import { backoff } from '../../core/backoff.ts';
import type { Decimal } from '../../core/decimal.ts';
import type { RiskLimits } from './limits.ts';

export type PauseReason =
  | 'stale-market-data'
  | 'tx-backoff'
  | 'market-closed'
  | 'inventory-mismatch'
  | 'reconciling'
  /** A fair-value guard pulls the pair's quotes (dispersion, jump, deviation with the pull action). */
  | 'fair-value';

export type TradingState =
  | { readonly mode: 'active' }
  | { readonly mode: 'paused'; readonly reasons: readonly PauseReason[]; readonly untilMs: number | null }
  | { readonly mode: 'stopped'; readonly reason: string }
  | { readonly mode: 'killed'; readonly reason: string };

export type RiskEvent =
  | { readonly type: 'killed'; readonly pairId: string; readonly reason: string }
  | { readonly type: 'stopped'; readonly pairId: string; readonly reason: string }
  | {
      readonly type: 'native-low';
      readonly wallet: string;
      readonly balance: Decimal;
      readonly level: 'alert' | 'stop';
    };

interface PairRisk {
  readonly limits: RiskLimits;
  readonly wallet: string;
  lastMarketDataMs: number | null;
  failures: number;
  backoffUntilMs: number;
  flags: Set<PauseReason>;
  stopped: string | null;
  day: string | null;
  dayStartPnl: Decimal | null;
  peakPnl: Decimal | null;
}

export class RiskMonitor {
  readonly #pairs = new Map<string, PairRisk>();
  readonly #listeners: Array<(e: RiskEvent) => void> = [];
  /** The last native fee balance read per wallet. */
  readonly #native = new Map<string, Decimal>();
  #killed: string | null = null;

  addPair(pairId: string, wallet: string, limits: RiskLimits, nowMs: number): void {
    this.#pairs.set(pairId, {
      limits,
      wallet,
      lastMarketDataMs: nowMs,
      failures: 0,
      backoffUntilMs: 0,
      flags: new Set(),
      stopped: null,
      day: null,
      dayStartPnl: null,
      peakPnl: null,
    });
  }

  onEvent(listener: (e: RiskEvent) => void): void {
    this.#listeners.push(listener);
  }

  #emit(e: RiskEvent): void {
    for (const l of this.#listeners) l(e);
  }

  #pair(pairId: string): PairRisk {
    const p = this.#pairs.get(pairId);
    if (p === undefined) throw new Error(`risk: unknown pair ${pairId}`);
    return p;
  }

  marketData(pairId: string, atMs: number): void {
    this.#pair(pairId).lastMarketDataMs = atMs;
  }

  /** External pause reasons (market closed, inventory mismatch, reconciliation running). */
  setFlag(pairId: string, reason: PauseReason, on: boolean): void {
    const flags = this.#pair(pairId).flags;
    if (on) flags.add(reason);
    else flags.delete(reason);
  }

  txSucceeded(pairId: string): void {
    const p = this.#pair(pairId);
    p.failures = 0;
    p.backoffUntilMs = 0;
  }

  /** A failed transaction: back off exponentially, and stop after too many in a row. */
  txFailed(pairId: string, nowMs: number, reason: string): void {
    const p = this.#pair(pairId);
    p.failures++;
    if (p.failures >= p.limits.maxConsecutiveFailures && p.stopped === null) {
      p.stopped = `${p.failures} consecutive transaction failures (last: ${reason})`;
      this.#emit({ type: 'stopped', pairId, reason: p.stopped });
      return;
    }
    const delay = backoff(p.failures - 1, { baseMs: p.limits.failureBackoffMs, capMs: p.limits.failureBackoffMaxMs });
    p.backoffUntilMs = nowMs + delay;
  }

  /**
   * A transaction the venue refused because the book was not open: a halt or close reached the chain before
   * the status polls saw it. Nothing of ours failed, so it does not count towards the stop; the pair backs
   * off once (the status read meanwhile pauses it for the halt itself).
   */
  marketNotOpen(pairId: string, nowMs: number): void {
    const p = this.#pair(pairId);
    p.backoffUntilMs = Math.max(p.backoffUntilMs, nowMs + p.limits.failureBackoffMs);
  }

  /**
   * A command the chain's node or the venue's transport failed before anything reached the book (the node
   * did not answer a simulation or a send): not the pair's failure, so it does not count towards the stop; the
   * pair backs off once, as for a closed market, while the node's incident says what fails.
   */
  transportFailed(pairId: string, nowMs: number): void {
    this.marketNotOpen(pairId, nowMs);
  }

  /** The pair's total PnL (quote units) on trading day `day`: trips the kill switch on loss or drawdown. */
  pnl(pairId: string, day: string, total: Decimal): void {
    const p = this.#pair(pairId);
    if (p.day !== day) {
      p.day = day;
      p.dayStartPnl = total;
    }
    if (p.peakPnl === null || total.gt(p.peakPnl)) p.peakPnl = total;
    const dayLoss = (p.dayStartPnl as Decimal).sub(total);
    const drawdown = p.peakPnl.sub(total);
    if (p.limits.dailyLossLimit !== null && dayLoss.gte(p.limits.dailyLossLimit)) {
      this.#kill(pairId, `daily loss ${dayLoss.toFixed()} reached the limit ${p.limits.dailyLossLimit.toFixed()}`);
    } else if (p.limits.maxDrawdown !== null && drawdown.gte(p.limits.maxDrawdown)) {
      this.#kill(pairId, `drawdown ${drawdown.toFixed()} reached the limit ${p.limits.maxDrawdown.toFixed()}`);
    }
  }

  #kill(pairId: string, reason: string): void {
    if (this.#killed !== null) return;
    this.#killed = `${pairId}: ${reason}`;
    this.#emit({ type: 'killed', pairId, reason });
  }

  /** The wallet's native fee balance: alert below the alert level, stop its pairs below the stop level. */
  nativeBalance(wallet: string, balance: Decimal): void {
    this.#native.set(wallet, balance);
    for (const [pairId, p] of this.#pairs) {
      if (p.wallet !== wallet) continue;
      if (p.limits.nativeStop !== null && balance.lt(p.limits.nativeStop)) {
        if (p.stopped === null) {
          p.stopped = `native fee balance ${balance.toFixed()} below ${p.limits.nativeStop.toFixed()}`;
          this.#emit({ type: 'native-low', wallet, balance, level: 'stop' });
          this.#emit({ type: 'stopped', pairId, reason: p.stopped });
        }
      } else if (p.limits.nativeAlert !== null && balance.lt(p.limits.nativeAlert)) {
        this.#emit({ type: 'native-low', wallet, balance, level: 'alert' });
      }
    }
  }

  /** The wallet's native fee balance as last read (null: not read yet). */
  nativeBalanceOf(wallet: string): Decimal | null {
    return this.#native.get(wallet) ?? null;
  }

  get killed(): string | null {
    return this.#killed;
  }

  state(pairId: string, nowMs: number): TradingState {
    const p = this.#pair(pairId);
    if (this.#killed !== null) return { mode: 'killed', reason: this.#killed };
    if (p.stopped !== null) return { mode: 'stopped', reason: p.stopped };
    const reasons: PauseReason[] = [...p.flags];
    let untilMs: number | null = null;
    if (p.lastMarketDataMs === null || nowMs - p.lastMarketDataMs > p.limits.staleMarketDataMs)
      reasons.push('stale-market-data');
    if (nowMs < p.backoffUntilMs) {
      reasons.push('tx-backoff');
      untilMs = p.backoffUntilMs;
    }
    return reasons.length === 0 ? { mode: 'active' } : { mode: 'paused', reasons: reasons.toSorted(), untilMs };
  }
}

/**
 * Why the pair's quotes come off the book now: stale market data or a fair-value guard pull them; a closed or
 * halted market keeps them for the venue's clearing. Null when they stay.
 */
export function pullReason(state: TradingState): string | null {
  if (state.mode !== 'paused' || state.reasons.includes('market-closed')) return null;
  if (state.reasons.includes('stale-market-data')) return 'stale market data';
  return state.reasons.includes('fair-value') ? 'fair-value guard' : null;
}
