/**
 * The strategy loop of one pair. A trigger (book message, trade info, fill, outcome, status or phase change,
 * parameter reload, timer) schedules a recomputation; triggers arriving while one runs coalesce into one more
 * run, so work never queues behind stale decisions. A recomputation reads the market, our orders and the
 * inventory, asks the strategy for the actions (venue rules and the risk gate applied), and hands them to
 * the wallet's order engine in order, waiting only until each has left the process. Its parts: the balance
 * cache (balance-cache.ts), what a round starts from and records (round-inputs.ts), and sending the actions
 * and following their outcomes (order-actions.ts).
 */
import type { ChainAdapter } from '../../chains/types.ts';
import type { Clock } from '../../core/clock.ts';
import { toVenueLocal } from '../../core/calendar.ts';
import { Decimal } from '../../core/decimal.ts';
import { QuoteMemo } from '../../strategy/memo.ts';
import type { StrategyState } from '../../strategy/registry.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { incidentsOf, type Incidents } from '../../telemetry/incidents.ts';
import type { PairFairValue } from '../fair-value/pair-fair-value.ts';
import type { RiskLimits } from '../risk/limits.ts';
import type { Throttle } from '../risk/throttle.ts';
import { pullReason, type RiskMonitor } from '../risk/monitor.ts';
import { strategyGate } from '../risk/quote-gate.ts';
import type { PairRuntime } from '../wallet/pair-runtime.ts';
import type { WalletEngine } from '../wallet/wallet-engine.ts';
import type { BalanceCache } from './balance-cache.ts';
import { pairBalances } from './pair-balances.ts';
import { crossesOurs, liveQuotes, ownOnBook, pairInventory, presenceOf, quotableOn } from './inventory-view.ts';
import { recordSpread, type LoopMetrics } from './loop-metrics.ts';
import { OrderActions, type RecordedAction } from './order-actions.ts';
import type { PnlTracker } from './pnl-tracker.ts';
import type { PairEvaluation } from '../evaluation/pair-evaluation.ts';
import {
  decisionOf,
  marketOpenNow,
  marketViewOf,
  midOf,
  ModeLog,
  othersMidOf,
  type CalendarUse,
} from './round-inputs.ts';
import type { VenueStatus } from './venue-status.ts';
import type { BookSource, LastRound, ObligationsHandle, StrategyHandle } from './loop-types.ts';

export { CANCEL_RETRY_MS } from './order-actions.ts';
export type { BookSource, LastRound, ObligationsHandle, StrategyHandle } from './loop-types.ts';

export interface PairLoopOptions {
  readonly runtime: PairRuntime;
  readonly engine: WalletEngine;
  readonly adapter: ChainAdapter;
  readonly feed: BookSource;
  readonly status: VenueStatus;
  readonly risk: RiskMonitor;
  readonly pnl: PnlTracker;
  readonly strategy: () => StrategyHandle;
  readonly limits: () => RiskLimits;
  readonly calendar: CalendarUse;
  /** Share of the wallet's quote balance this pair may quote with. */
  readonly quoteShare: Decimal;
  /** Chain cost of refreshing a level (its bid and ask), quote units. */
  readonly refreshCost: Decimal;
  readonly marketMaker: boolean;
  /** Balances older than this are read again even without activity. */
  readonly balanceMaxAgeMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: LoopMetrics;
  /** The pair's market-making obligations: the terms the guard keeps now, and where its verdicts go. */
  readonly obligations?: ObligationsHandle;
  /** The pair's own fair value and its guards, when its strategy has a fairValue block. */
  readonly fairValue?: PairFairValue;
  /** The pair's markouts and PnL attribution, marked to the fair value (else the mid of others' book). */
  readonly evaluation?: PairEvaluation;
  /** Each order action decided, sent, included or refused (the recording). */
  readonly record?: (a: RecordedAction) => void;
  /** The placement throttles of the pair's wallet and of the pair. */
  readonly throttles?: readonly Throttle[];
  /** The loop's name (default the pair id): see `PairLoop.key`. */
  readonly key?: string;
}

export class PairLoop {
  readonly #o: PairLoopOptions;
  /** The venue's pair id. */
  readonly pairId: string;
  /** What the loop goes by in the risk monitor, metrics and logs: the pair id, or `<pair id>@<wallet id>` for the
   * loops of a pair that several of our wallets quote, after the first. */
  readonly key: string;
  readonly symbol: string;
  #running: Promise<void> | null = null;
  #dirty = false;
  /** When the last recomputation started. */
  #startedMs = Number.NEGATIVE_INFINITY;
  /** Receive time of the oldest market event not yet answered by a recomputation. */
  #marketEventMs: number | null = null;
  #state: StrategyState = {};
  /** The strategy's last answer, given again while a round asks the same question. */
  readonly #quotes = new QuoteMemo();
  readonly #balances: BalanceCache;
  readonly #actions: OrderActions;
  #stopped = false;
  readonly #incidents: Incidents;
  readonly #modes: ModeLog;
  last: LastRound | null = null;

  constructor(o: PairLoopOptions) {
    this.#o = o;
    this.pairId = o.runtime.binding.pairId;
    this.key = o.key ?? this.pairId;
    this.symbol = o.runtime.binding.symbol;
    this.#incidents = incidentsOf(o.logger);
    this.#modes = new ModeLog(o.logger, this.key);
    this.#balances = pairBalances(o, this.key);
    this.#actions = new OrderActions({
      pairId: this.key,
      venuePairId: this.pairId,
      engine: o.engine,
      status: o.status,
      risk: o.risk,
      clock: o.clock,
      logger: o.logger,
      metrics: o.metrics,
      incidents: this.#incidents,
      fills: () => o.pnl.fills,
      limits: () => o.limits(),
      onOutcome: () => this.trigger(),
      throttles: o.throttles ?? [],
      ...(o.record === undefined ? {} : { record: o.record }),
    });
  }

  /** Something changed; `marketEventMs` is the receive time of a book message that caused it. */
  trigger(marketEventMs?: number): void {
    if (this.#stopped) return;
    if (marketEventMs !== undefined && this.#marketEventMs === null) this.#marketEventMs = marketEventMs;
    this.#dirty = true;
    this.#running ??= this.#drain();
  }

  /** The clock's tick: a pair that has not recomputed for `idleMs` does (time alone ages data, moves calendars). */
  tick(idleMs: number): void {
    if (idleMs === 0 || (this.#running === null && this.#o.clock.now() - this.#startedMs >= idleMs)) this.trigger();
  }

  /** Fills and outcomes change balances: they are read again at once, in the background (see balance-cache.ts). */
  balancesChanged(): void {
    this.#balances.changed();
  }

  async idle(): Promise<void> {
    while (this.#running !== null) await this.#running;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#balances.stop();
    await this.idle();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#dirty && !this.#stopped) {
        this.#dirty = false;
        try {
          await this.#recompute();
          this.#incidents.succeeded('quote recomputation', this.#o.clock.now());
        } catch (e) {
          this.#o.metrics.recomputes.inc({ pair: this.key, outcome: 'error' });
          this.#incidents.failed('quote recomputation', this.#o.clock.now(), this.key, e);
        }
      }
    } finally {
      this.#running = null;
    }
  }

  #liveOrders() {
    return this.#o.engine.liveOrders(this.pairId);
  }

  /** Pull every quote of ours on this pair: placements not signed yet are withdrawn, then cancellations. */
  async #pullQuotes(reason: string): Promise<void> {
    this.#o.engine.withdrawPlacements(reason, this.pairId);
    for (const q of liveQuotes(this.#o.runtime.binding, this.#liveOrders())) {
      await this.#actions.send({ type: 'cancel', orderId: q.id, side: q.side }, null);
    }
  }

  async #recompute(): Promise<void> {
    const o = this.#o;
    const nowMs = o.clock.now();
    this.#startedMs = nowMs;
    const marketEventMs = this.#marketEventMs;
    this.#marketEventMs = null;
    const status = o.status.current;
    const open = marketOpenNow(status, o.runtime.binding.chain, nowMs, o.calendar);
    o.risk.setFlag(this.key, 'market-closed', !open);
    o.metrics.marketOpen.set({ pair: this.key, market: this.symbol }, open ? 1 : 0);
    const balances = await this.#balances.current(nowMs);
    const live = this.#liveOrders();
    const book = o.feed.book(this.symbol);
    const mark = status.lastPrice ?? midOf(book) ?? status.staticReferencePrice;
    const own = ownOnBook(o.runtime.binding, live);
    const othersMid = othersMidOf(book, own);
    const fair = o.fairValue?.evaluate(nowMs, othersMid) ?? null;
    o.evaluation?.observe(fair?.value ?? othersMid);
    o.risk.setFlag(this.key, 'fair-value', fair?.action === 'pull');
    o.pnl.update(mark);
    o.risk.pnl(this.key, toVenueLocal(nowMs).date, o.pnl.total(mark));
    const state = o.risk.state(this.key, nowMs);
    this.#modes.log(state);
    if (state.mode !== 'active') {
      o.metrics.recomputes.inc({ pair: this.key, outcome: state.mode });
      this.last = {
        atMs: nowMs,
        mode: state.mode === 'paused' ? `paused (${state.reasons.join(', ')})` : state.mode,
        quotes: [],
        reference: null,
        fair,
      };
      const pull = pullReason(state);
      if (pull !== null) await this.#pullQuotes(pull);
      return;
    }
    if (book === undefined) {
      o.metrics.recomputes.inc({ pair: this.key, outcome: 'no-book' });
      return;
    }
    const strategy = o.strategy();
    const quoting = quotableOn(book, o.runtime.binding, live, o.engine.quotableOrders(this.pairId, live));
    const inventory = pairInventory(o.runtime, o.marketMaker, balances, quoting, o.quoteShare);
    const limits = o.limits();
    const terms = o.obligations?.terms(nowMs) ?? null;
    const computed = this.#quotes.compute(
      strategy.config,
      marketViewOf(book, status, nowMs, o.calendar),
      inventory,
      o.runtime.binding.rules,
      {
        marketMaker: o.marketMaker,
        refreshCost: this.#actions.refreshCost(o.refreshCost),
        liveOrders: liveQuotes(o.runtime.binding, quoting),
        ownOrders: own,
        ...(terms === null ? {} : { obligations: terms }),
        ...(fair === null ? {} : { fairValue: fair.value, widen: fair.widen }),
      },
      this.#state,
      { gate: strategyGate(o.pnl.position, mark, limits), inputs: [o.pnl.position, mark, limits] },
    );
    this.#state = computed.nextState;
    const r = computed.result;
    if (r.obligations !== undefined) o.obligations?.outcome(r.obligations, nowMs);
    for (const reason of r.reasons) o.metrics.dropped.inc({ pair: this.key, rule: reason.rule });
    o.metrics.recomputes.inc({ pair: this.key, outcome: r.actions.length === 0 ? 'unchanged' : 'actions' });
    this.last = { atMs: nowMs, mode: 'active', quotes: r.quotes, reference: r.reference?.price ?? null, fair };
    const round = { strategy, result: r, book, status, inventory, state, limits, fair };
    const decision = decisionOf({ pairId: this.pairId, ...round });
    let first = true;
    for (const action of r.actions) {
      // A stop (shutdown, kill switch) ends the round: nothing more is sent, and cancel-all follows.
      if (this.#stopped) break;
      if (action.type === 'keep') continue;
      // A new quote must not meet an order of ours that may still be on the book (one being replaced is
      // cancelled only after its successor rests): it waits for a later round instead of trading with us.
      if (action.type !== 'cancel' && crossesOurs(this.#liveOrders(), action.quote, o.runtime.binding.rules.scales)) {
        o.metrics.actions.inc({ pair: this.key, type: action.type, result: 'waits-for-own-cancel' });
        continue;
      }
      const sent = await this.#actions.send(action, decision);
      if (sent && first && marketEventMs !== null)
        o.metrics.quoteLatency.observe({ pair: this.key }, (o.clock.now() - marketEventMs) / 1000);
      if (sent) first = false;
      if (!sent && action.type !== 'cancel') break;
    }
    if (!first && marketEventMs !== null)
      o.metrics.roundLatency.observe({ pair: this.key }, (o.clock.now() - marketEventMs) / 1000);
    recordSpread(o.metrics, this.key, r.quotes);
  }

  /** The wallet that quotes the pair in this loop. */
  get wallet(): string {
    return this.#o.engine.wallet;
  }

  /** What holds the pair's placements back now (a throttle, an order-to-trade limit), if anything. */
  get held(): string | null {
    return this.#actions.held;
  }

  /** Whether an order of ours rests on each side of the book (as far as the chain has told us). */
  presence(): { buy: boolean; sell: boolean } {
    return presenceOf(this.#liveOrders());
  }

  /** Our orders on this pair as the store has them (also used by the summary line). */
  liveOrdersForTest() {
    return this.#liveOrders();
  }
}
