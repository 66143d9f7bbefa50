/**
 * What one recomputation of a pair writes down: the decision a placement is recorded with (market snapshot,
 * strategy parameters and config hash, risk checks), and the trading mode as logged. What it starts from, the
 * market as the strategy sees it, is `market/view.ts`.
 */
import type { Inventory, StrategyResult } from '../../strategy/types.ts';
import type { MarketBook } from '../../venue/market-data/book.ts';
import type { RiskLimits } from '../risk/limits.ts';
import type { TradingState } from '../risk/monitor.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { FairValueVerdict } from '../fair-value/guards.ts';
import type { Decision } from './order-actions.ts';
import type { StrategyHandle } from './pair-loop.ts';
import type { PairStatus } from '../../market/status.ts';

export interface DecisionInputs {
  readonly pairId: string;
  readonly strategy: StrategyHandle;
  readonly result: StrategyResult;
  readonly book: MarketBook;
  readonly status: PairStatus;
  readonly inventory: Inventory;
  readonly state: TradingState;
  readonly limits: RiskLimits;
  /** The fair value's verdict of the round, when the pair has one. */
  readonly fair: FairValueVerdict | null;
}

/** The decision every placement of the round is recorded with, before it is signed. */
export function decisionOf(d: DecisionInputs): Decision {
  const r = d.result;
  return {
    pairId: d.pairId,
    strategy: d.strategy.name,
    configHash: d.strategy.hash,
    params: d.strategy.config,
    market: {
      reference: r.reference,
      bestBid: d.book.buy[0] ?? null,
      bestAsk: d.book.sell[0] ?? null,
      lastPrice: d.status.lastPrice,
      inventory: d.inventory,
      diagnostics: r.diagnostics,
      ...(d.fair === null
        ? {}
        : {
            fairValue: {
              value: d.fair.value?.toFixed() ?? null,
              source: d.fair.source,
              othersMid: d.fair.othersMid?.toFixed() ?? null,
              action: d.fair.action,
              guards: Object.fromEntries(d.fair.guards),
              sources: d.fair.combined.sources.map((x) => ({
                kind: x.kind,
                value: x.value?.toFixed() ?? null,
                ageMs: x.ageMs,
              })),
            },
          }),
    },
    risk: { state: d.state.mode, limits: d.limits, reasons: r.reasons.filter((x) => x.rule === 'risk') },
  };
}

/** A pair's trading mode as logged: a pause once when it starts (or its reasons change), and once when the pair is active again. */
export class ModeLog {
  readonly #logger: Logger;
  readonly #pairId: string;
  /** The trading mode and reasons last logged. */
  #logged = 'active';

  constructor(logger: Logger, pairId: string) {
    this.#logger = logger;
    this.#pairId = pairId;
  }

  log(state: TradingState): void {
    const now =
      state.mode === 'paused'
        ? `paused: ${state.reasons.join(', ')}`
        : state.mode === 'active'
          ? 'active'
          : `${state.mode}: ${state.reason}`;
    if (now === this.#logged) return;
    const was = this.#logged;
    this.#logged = now;
    if (state.mode === 'active') this.#logger.info({ pair: this.#pairId, was }, 'pair quoting again');
    else if (state.mode === 'paused') {
      // Outside trading hours is the venue's schedule, a back-off follows a failure said on its own line; every
      // other reason is worth a warning.
      const quiet = state.reasons.every((r) => r === 'market-closed' || r === 'tx-backoff');
      this.#logger[quiet ? 'info' : 'warn'](
        { pair: this.#pairId, reasons: state.reasons, untilMs: state.untilMs },
        `pair paused: ${state.reasons.join(', ')}`,
      );
    }
  }
}
