/**
 * The strategy loop of one pair. A trigger (book message, trade info, fill, outcome, status or phase change,
 * parameter reload, timer) schedules a recomputation; triggers arriving while one runs coalesce into one more
 * run, so work never queues behind stale decisions. A recomputation reads the market, our orders and the
 * inventory, asks the strategy for the actions (venue rules and the risk gate applied), and hands them to
 * the wallet's order engine in order: a cancellation is awaited until it has left the process, a placement is
 * recorded and queued and the round goes on. The pair's placements of earlier rounds still queued and unsigned
 * that the round decides again keep their place; it withdraws the others (refused as withdrawn, never live,
 * queued-quotes.ts). Its parts: the balance cache (balance-cache.ts), what a round starts from and records
 * (round-inputs.ts), and sending the actions and following their outcomes (order-actions.ts).
 */
import { toVenueLocal } from '../../core/calendar.ts';
import { QuoteMemo } from '../../strategy/memo.ts';
import type { StrategyState } from '../../strategy/registry.ts';
import type { QuoteAction } from '../../strategy/types.ts';
import { incidentsOf, type Incidents } from '../../telemetry/incidents.ts';
import { pullReason } from '../risk/monitor.ts';
import { strategyGate } from '../risk/quote-gate.ts';
import type { BalanceCache } from './balance-cache.ts';
import { pairBalances } from './pair-balances.ts';
import { crossesOurs, liveQuotes, ownOnBook, pairInventory, presenceOf, quotableOn } from './inventory-view.ts';
import { observeSends, recordSpread } from './loop-metrics.ts';
import { keepQueued } from './queued-quotes.ts';
import { OrderActions, type Decision } from './order-actions.ts';
import { marketOpenNow, marketViewOf, midOf, othersMidOf } from '../../market/view.ts';
import { decisionOf, ModeLog } from './round-inputs.ts';
import { inactiveRound, type LastRound } from './loop-types.ts';

export { CANCEL_RETRY_MS } from './order-actions.ts';
export type { BookSource, LastRound, ObligationsHandle, StrategyHandle } from './loop-types.ts';
import type { PairLoopOptions } from './pair-loop-options.ts';
export type { PairLoopOptions } from './pair-loop-options.ts';

export class PairLoop {
  readonly #options: PairLoopOptions;
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
  /** The quotes the spread gauge was last set from (a round answered from the memo has the same). */
  #spreadFrom: readonly unknown[] | null = null;
  /** The strategy's last answer, given again while a round asks the same question. */
  readonly #quotes = new QuoteMemo();
  /** Orders a block not final yet shows gone that a book message has shown gone too (see `quotableOn`). */
  readonly #seenGone = new Set<bigint>();
  readonly #balances: BalanceCache;
  readonly #actions: OrderActions;
  #stopped = false;
  readonly #incidents: Incidents;
  readonly #modes: ModeLog;
  last: LastRound | null = null;

  constructor(options: PairLoopOptions) {
    this.#options = options;
    this.pairId = options.runtime.binding.pairId;
    this.key = options.key ?? this.pairId;
    this.symbol = options.runtime.binding.symbol;
    this.#incidents = incidentsOf(options.logger);
    this.#modes = new ModeLog(options.logger, this.key);
    this.#balances = pairBalances(options, this.key);
    this.#actions = new OrderActions({
      pairId: this.key,
      venuePairId: this.pairId,
      engine: options.engine,
      status: options.status,
      risk: options.risk,
      clock: options.clock,
      logger: options.logger,
      metrics: options.metrics,
      incidents: this.#incidents,
      fills: () => options.pnl.fills,
      limits: () => options.limits(),
      onOutcome: () => this.trigger(),
      throttles: options.throttles ?? [],
      ...(options.record === undefined ? {} : { record: options.record }),
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
    if (idleMs === 0 || (this.#running === null && this.#options.clock.now() - this.#startedMs >= idleMs))
      this.trigger();
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
          this.#incidents.succeeded('quote recomputation', this.#options.clock.now());
        } catch (e) {
          this.#options.metrics.recomputes.inc({ pair: this.key, outcome: 'error' });
          this.#incidents.failed('quote recomputation', this.#options.clock.now(), this.key, e);
        }
      }
    } finally {
      this.#running = null;
    }
  }

  #liveOrders() {
    return this.#options.engine.liveOrders(this.pairId);
  }

  /** Pull every quote of ours on this pair: placements not signed yet are withdrawn, then cancellations. */
  async #pullQuotes(reason: string): Promise<void> {
    this.#options.engine.withdrawPlacements(reason, this.pairId);
    for (const quote of liveQuotes(this.#options.runtime.binding, this.#liveOrders())) {
      await this.#actions.send({ type: 'cancel', orderId: quote.id, side: quote.side }, null);
    }
  }

  async #recompute(): Promise<void> {
    const options = this.#options;
    const nowMs = options.clock.now();
    this.#startedMs = nowMs;
    const marketEventMs = this.#marketEventMs;
    this.#marketEventMs = null;
    const status = options.status.current;
    const open = marketOpenNow(status, options.runtime.binding.chain, nowMs, options.calendar);
    options.risk.setFlag(this.key, 'market-closed', !open);
    options.metrics.marketOpen.set({ pair: this.key, market: this.symbol }, open ? 1 : 0);
    const balances = await this.#balances.current(nowMs);
    const live = this.#liveOrders();
    const book = options.feed.book(this.symbol);
    const mark = status.lastPrice ?? midOf(book) ?? status.staticReferencePrice;
    const own = ownOnBook(options.runtime.binding, live);
    const othersMid = othersMidOf(book, own);
    const fair = options.fairValue?.evaluate(nowMs, othersMid) ?? null;
    options.evaluation?.observe(fair?.value ?? othersMid);
    options.risk.setFlag(this.key, 'fair-value', fair?.action === 'pull');
    options.pnl.update(mark);
    options.risk.pnl(this.key, toVenueLocal(nowMs).date, options.pnl.total(mark));
    const state = options.risk.state(this.key, nowMs);
    this.#modes.log(state);
    if (state.mode !== 'active') {
      options.metrics.recomputes.inc({ pair: this.key, outcome: state.mode });
      this.last = inactiveRound(state, nowMs, fair);
      options.engine.supersede(this.pairId);
      const pull = pullReason(state);
      if (pull !== null) await this.#pullQuotes(pull);
      return;
    }
    if (book === undefined) {
      options.metrics.recomputes.inc({ pair: this.key, outcome: 'no-book' });
      return;
    }
    const strategy = options.strategy();
    const newest = options.engine.quotableOrders(this.pairId, live);
    const quoting = quotableOn(book, options.runtime.binding, live, newest, this.#seenGone);
    const inventory = pairInventory(options.runtime, options.marketMaker, balances, quoting, options.quoteShare);
    const limits = options.limits();
    const terms = options.obligations?.terms(nowMs) ?? null;
    const computed = this.#quotes.compute(
      strategy.config,
      marketViewOf(book, status, nowMs, options.calendar),
      inventory,
      options.runtime.binding.rules,
      {
        marketMaker: options.marketMaker,
        refreshCost: this.#actions.refreshCost(options.refreshCost),
        liveOrders: liveQuotes(options.runtime.binding, quoting),
        ownOrders: own,
        ...(terms === null ? {} : { obligations: terms }),
        ...(fair === null ? {} : { fairValue: fair.value, widen: fair.widen }),
      },
      this.#state,
      { gate: strategyGate(options.pnl.position, mark, limits), inputs: [options.pnl.position, mark, limits] },
    );
    this.#state = computed.nextState;
    const result = computed.result;
    if (result.obligations !== undefined) options.obligations?.outcome(result.obligations, nowMs);
    for (const reason of result.reasons) options.metrics.dropped.inc({ pair: this.key, rule: reason.rule });
    options.metrics.recomputes.inc({ pair: this.key, outcome: result.actions.length === 0 ? 'unchanged' : 'actions' });
    this.last = {
      atMs: nowMs,
      mode: 'active',
      quotes: result.quotes,
      reference: result.reference?.price ?? null,
      fair,
    };
    const round = { strategy, result, book, status, inventory, state, limits, fair };
    // Earlier rounds' placements not signed yet: those decided again stay queued, the others are withdrawn.
    const queued = options.engine.quotableOrders(this.pairId, live).filter((o) => o.status === 'intended');
    const { actions, kept } = keepQueued(result.actions, queued, options.runtime.binding.rules.scales);
    // The decision goes with each action sent; a round that only keeps its orders (most rounds) sends none.
    const decision = actions.some((a) => a.type !== 'keep') ? decisionOf({ pairId: this.pairId, ...round }) : null;
    options.engine.supersede(this.pairId, kept);
    await this.#send(actions, decision, marketEventMs);
    if (result.quotes !== this.#spreadFrom) recordSpread(options.metrics, this.key, result.quotes);
    this.#spreadFrom = result.quotes;
  }

  /**
   * The round's actions, in order, until a stop or a refused placement; the latency from the market event
   * that caused the round to its first action sent and to its last, observed as they leave the process.
   */
  async #send(actions: readonly QuoteAction[], decision: Decision | null, marketEventMs: number | null): Promise<void> {
    const options = this.#options;
    const sends: Promise<boolean>[] = [];
    for (const action of actions) {
      // A stop (shutdown, kill switch) ends the round: nothing more is sent, and cancel-all follows.
      if (this.#stopped) break;
      if (action.type === 'keep' || decision === null) continue;
      // A new quote must not meet an order of ours that may still be on the book (one being replaced is
      // cancelled only after its successor rests): it waits for a later round instead of trading with us. The
      // pair's orders not sent yet are this round's (earlier rounds' were withdrawn as it began).
      const sentOrders = this.#liveOrders().filter((o) => o.status !== 'intended');
      if (action.type !== 'cancel' && crossesOurs(sentOrders, action.quote, options.runtime.binding.rules.scales)) {
        options.metrics.actions.inc({ pair: this.key, type: action.type, result: 'waits-for-own-cancel' });
        continue;
      }
      const handed = await this.#actions.send(action, decision);
      if (handed.accepted) sends.push(handed.sent);
      else if (action.type !== 'cancel') break;
    }
    if (marketEventMs !== null) observeSends(options.metrics, this.key, options.clock, marketEventMs, sends);
  }

  /** The wallet that quotes the pair in this loop. */
  get wallet(): string {
    return this.#options.engine.wallet;
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
