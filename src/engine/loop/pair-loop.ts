/**
 * The strategy loop of one pair. A trigger (book message, trade info, fill, outcome, status or phase change,
 * parameter reload, timer) schedules a recomputation; triggers arriving while one runs coalesce into one more
 * run, so work never queues behind stale decisions. A recomputation reads the market, our orders and the
 * inventory, asks the strategy for the actions (venue rules and the risk gate applied), and hands them to
 * the wallet's order manager in order, waiting only until each has left the process.
 */
import type { Balances, ChainAdapter } from '../../chains/types.ts';
import { isMarketOpen, msUntilClose, toVenueLocal, type CalendarConfig } from '../../core/calendar.ts';
import type { StrategyConfig } from '../../core/config/strategy-config.ts';
import { Decimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import { isCancellable, isLive, remainingOf } from '../../core/order-state.ts';
import { priceToRaw } from '../../core/units.ts';
import { computeQuotes, type StrategyState } from '../../strategy/registry.ts';
import type { DesiredQuote, GuardOutcome, GuardTerms, MarketView, QuoteAction } from '../../strategy/types.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { failureFields, RepeatedFailures } from '../../telemetry/repeated-failures.ts';
import type { MarketBook } from '../../venue/market-data/book.ts';
import type { PairRuntime } from '../wallet/pair-runtime.ts';
import type { RiskLimits } from '../risk/limits.ts';
import type { RiskMonitor, TradingState } from '../risk/monitor.ts';
import { gateQuotes } from '../risk/quote-gate.ts';
import type { WalletEngine } from '../wallet/wallet-engine.ts';
import { liveQuotes, pairInventory } from './inventory-view.ts';
import type { LoopMetrics } from './loop-metrics.ts';
import type { PnlTracker } from './pnl-tracker.ts';
import type { VenueStatus } from './venue-status.ts';
import type { Clock } from '../../core/clock.ts';


/** Refusals that say the book was not open for trading: the venue's state, not a failure of ours. */
const MARKET_NOT_OPEN = 'E_VENUE_MARKET_CLOSED';

/** Refusals that say nothing failed: the order changed meanwhile, the pair pauses, or we withdrew it. */
const NOT_A_FAILURE = new Set(['E_TRADING_PAUSED', 'E_ORDER_STATE', 'E_ORDER_WITHDRAWN']);

/** The shortest pause before the same order's cancellation is asked for again. */
export const CANCEL_RETRY_MS = 10_000;

export interface BookSource {
  book(symbol: string): MarketBook | undefined;
}

export interface StrategyHandle {
  readonly name: string;
  readonly hash: string;
  readonly config: StrategyConfig;
}

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
  readonly calendar: { readonly enabled: boolean; readonly config: CalendarConfig };
  /** Share of the wallet's quote balance this pair may quote with. */
  readonly quoteShare: Decimal;
  /** Chain cost of refreshing a level (its bid and ask), quote units. */
  readonly refreshCost: Decimal;
  readonly marketMaker: boolean;
  /** Decimal places of the chain's native fee token (18 on chain A, 7 on chain B). */
  /** Balances older than this are read again even without activity. */
  readonly balanceMaxAgeMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: LoopMetrics;
  /** The pair's market-making obligations: the terms the guard keeps now, and where its verdicts go. */
  readonly obligations?: ObligationsHandle;
}

export interface ObligationsHandle {
  terms(nowMs: number): GuardTerms | null;
  outcome(outcome: GuardOutcome, nowMs: number): void;
}

export interface LastRound {
  readonly atMs: number;
  readonly mode: string;
  readonly quotes: readonly DesiredQuote[];
  readonly reference: Decimal | null;
}

export class PairLoop {
  readonly #o: PairLoopOptions;
  readonly #pairId: string;
  readonly #symbol: string;
  #running: Promise<void> | null = null;
  #dirty = false;
  /** Receive time of the oldest market event not yet answered by a recomputation. */
  #marketEventMs: number | null = null;
  #state: StrategyState = {};
  /** The last balances read, and the generation of changes they reflect. */
  #balances: { value: Balances; atMs: number; generation: number } | null = null;
  /** Bumped by every change to the balances (a fill, an outcome): a read from before it is out of date. */
  #generation = 0;
  /** A read in flight, started when the balances changed, so that the next quotes need not wait for it. */
  #reading: { generation: number; startedMs: number; value: Promise<Balances> } | null = null;
  /** Settles when the read on the wire ends (either way); null when none is. One read at a time per pair. */
  #onWire: Promise<void> | null = null;
  #stopped = false;
  /** When we last asked to cancel each order: a cancel the chain refused is not repeated at once. */
  readonly #cancelAsked = new Map<string, number>();
  readonly #failures: RepeatedFailures;
  /** The trading mode and reasons last logged, so that a pause is logged once, when it starts or changes. */
  #modeLogged = 'active';
  last: LastRound | null = null;

  constructor(options: PairLoopOptions) {
    this.#o = options;
    this.#pairId = options.runtime.binding.pairId;
    this.#symbol = options.runtime.binding.symbol;
    this.#failures = new RepeatedFailures(options.logger, options.clock.now);
  }

  get pairId(): string {
    return this.#pairId;
  }

  get symbol(): string {
    return this.#symbol;
  }

  /** Something changed; `marketEventMs` is the receive time of a book message that caused it. */
  trigger(marketEventMs?: number): void {
    if (this.#stopped) return;
    if (marketEventMs !== undefined && this.#marketEventMs === null) this.#marketEventMs = marketEventMs;
    this.#dirty = true;
    this.#running ??= this.#drain();
  }

  /**
   * Fills and outcomes change balances: they are read again at once, in the background, so that the next
   * market event finds them read (or in flight) instead of waiting for a round trip on its way to the chain.
   * Changes that arrive while a read is on the wire (a block settles several orders of the pair at once)
   * are covered by one more read when it ends, not by one read each.
   */
  balancesChanged(): void {
    this.#generation += 1;
    if (!this.#stopped && this.#onWire === null) this.#startRead(this.#o.clock.now());
  }

  async idle(): Promise<void> {
    while (this.#running !== null) await this.#running;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.idle();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#dirty && !this.#stopped) {
        this.#dirty = false;
        try {
          await this.#recompute();
          this.#failures.succeeded('recompute', 'quote recomputation works again', { pair: this.#pairId });
        } catch (e) {
          this.#o.metrics.recomputes.inc({ pair: this.#pairId, outcome: 'error' });
          this.#failures.failed('recompute', e, 'quote recomputation failed', { pair: this.#pairId });
        }
      }
    } finally {
      this.#running = null;
    }
  }

  /** Balances that reflect every change so far and are younger than `balanceMaxAgeMs`; read when needed. */
  async #readBalances(nowMs: number): Promise<Balances> {
    const fresh = (atMs: number) => nowMs - atMs < this.#o.balanceMaxAgeMs;
    const cached = this.#balances;
    if (cached !== null && cached.generation === this.#generation && fresh(cached.atMs)) return cached.value;
    const reading = this.#reading;
    if (reading !== null && reading.generation === this.#generation && fresh(reading.startedMs)) return reading.value;
    // A read of an older generation is on the wire: its end starts the read that covers every change.
    const onWire = this.#onWire;
    if (onWire !== null) {
      await onWire;
      return this.#readBalances(this.#o.clock.now());
    }
    return this.#startRead(nowMs);
  }

  #startRead(nowMs: number): Promise<Balances> {
    const generation = this.#generation;
    const value = this.#o.adapter.readBalances(this.#o.runtime.binding).then((v) => {
      if (this.#balances === null || generation >= this.#balances.generation) this.#balances = { value: v, atMs: nowMs, generation };
      const native = new Decimal(v.native.toString()).div(new Decimal(10).pow(this.#o.adapter.nativeDecimals));
      this.#nativeMetrics(native);
      this.#o.risk.nativeBalance(this.#o.engine.wallet, native);
      return v;
    });
    const reading = { generation, startedMs: nowMs, value };
    this.#reading = reading;
    // A failed read is forgotten (the next quotes read again); whoever awaits it sees the error.
    const ended = value.then(
      () => undefined,
      (e: unknown) => {
        if (this.#reading === reading) this.#reading = null;
        this.#o.logger.debug({ err: e, pair: this.#pairId }, 'balance read failed');
      },
    );
    this.#onWire = ended;
    void ended.then(() => {
      if (this.#onWire === ended) this.#onWire = null;
      if (!this.#stopped && this.#onWire === null && this.#generation > generation) this.#startRead(this.#o.clock.now());
    });
    return value;
  }

  #liveOrders() {
    return this.#o.engine.liveOrders(this.#pairId);
  }

  /** Pull every quote of ours on this pair (stale market data): placements not signed yet are withdrawn, then cancellations. */
  async #pullQuotes(): Promise<void> {
    this.#o.engine.withdrawPlacements('stale market data', this.#pairId);
    for (const q of liveQuotes(this.#o.runtime.binding, this.#liveOrders())) {
      await this.#act({ type: 'cancel', orderId: q.id, side: q.side }, null);
    }
  }

  async #recompute(): Promise<void> {
    const o = this.#o;
    const nowMs = o.clock.now();
    const marketEventMs = this.#marketEventMs;
    this.#marketEventMs = null;
    const status = o.status.current;
    const open = isMarketOpen({
      nowMs,
      tradingStatus: status.tradingStatus,
      chain: o.runtime.binding.chain,
      phase: status.phase,
      calendar: o.calendar.config,
      useCalendar: o.calendar.enabled,
    });
    o.risk.setFlag(this.#pairId, 'market-closed', !open);
    o.metrics.marketOpen.set({ pair: this.#pairId, market: this.#symbol }, open ? 1 : 0);
    const balances = await this.#readBalances(nowMs);
    const live = this.#liveOrders();
    const book = o.feed.book(this.#symbol);
    const mark = status.lastPrice ?? midOf(book) ?? status.staticReferencePrice;
    o.pnl.update(mark);
    o.risk.pnl(this.#pairId, toVenueLocal(nowMs).date, o.pnl.total(mark));
    const state = o.risk.state(this.#pairId, nowMs);
    this.#logMode(state);
    if (state.mode !== 'active') {
      o.metrics.recomputes.inc({ pair: this.#pairId, outcome: state.mode });
      this.last = { atMs: nowMs, mode: state.mode === 'paused' ? `paused (${state.reasons.join(', ')})` : state.mode, quotes: [], reference: null };
      // Stale data pulls our quotes; a closed or halted market keeps them for the venue's clearing.
      if (state.mode === 'paused' && state.reasons.includes('stale-market-data') && !state.reasons.includes('market-closed')) await this.#pullQuotes();
      return;
    }
    if (book === undefined) {
      o.metrics.recomputes.inc({ pair: this.#pairId, outcome: 'no-book' });
      return;
    }
    const strategy = o.strategy();
    const market: MarketView = {
      bids: book.buy.map((l) => ({ price: l.limit, quantity: l.quantity })),
      asks: book.sell.map((l) => ({ price: l.limit, quantity: l.quantity })),
      lastPrice: status.lastPrice,
      staticReferencePrice: status.staticReferencePrice,
      tradeInfo: { lastPrice: status.lastPrice, previousClose: status.staticReferencePrice, tradeVolume24h: status.tradeVolume24h, tradingHaltCounter: status.haltCounter },
      nowMs,
      // The session's close from the calendar; without a calendar (an always-open venue) it is unknown.
      msUntilClose: o.calendar.enabled ? msUntilClose(nowMs, o.calendar.config) : null,
    };
    const inventory = pairInventory(o.runtime, o.marketMaker, balances, live, o.quoteShare);
    const limits = o.limits();
    const terms = o.obligations?.terms(nowMs) ?? null;
    const computed = computeQuotes(
      strategy.config,
      market,
      inventory,
      o.runtime.binding.rules,
      { marketMaker: o.marketMaker, refreshCost: o.refreshCost, liveOrders: liveQuotes(o.runtime.binding, live), ...(terms === null ? {} : { obligations: terms }) },
      this.#state,
      (quotes) => {
        const g = gateQuotes({ quotes, position: o.pnl.position, mark, limits });
        return { quotes: g.quotes, reasons: g.cuts.map((c) => ({ side: c.side, level: c.level, rule: 'risk' as const, action: 'dropped' as const, detail: `${c.rule}: ${c.detail}`, limit: c.rule })) };
      },
    );
    this.#state = computed.nextState;
    const r = computed.result;
    if (r.obligations !== undefined) o.obligations?.outcome(r.obligations, nowMs);
    for (const reason of r.reasons) o.metrics.dropped.inc({ pair: this.#pairId, rule: reason.rule });
    o.metrics.recomputes.inc({ pair: this.#pairId, outcome: r.actions.length === 0 ? 'unchanged' : 'actions' });
    this.last = { atMs: nowMs, mode: 'active', quotes: r.quotes, reference: r.reference?.price ?? null };
    const decision = {
      pairId: this.#pairId,
      strategy: strategy.name,
      configHash: strategy.hash,
      params: strategy.config,
      market: { reference: r.reference, bestBid: book.buy[0] ?? null, bestAsk: book.sell[0] ?? null, lastPrice: status.lastPrice, inventory, diagnostics: r.diagnostics },
      risk: { state: state.mode, limits, reasons: r.reasons.filter((x) => x.rule === 'risk') },
    };
    let first = true;
    for (const action of r.actions) {
      // A stop (shutdown, kill switch) ends the round: nothing more is sent, and cancel-all follows.
      if (this.#stopped) break;
      if (action.type === 'keep') continue;
      // A new quote must not meet an order of ours that may still be on the book (one being replaced is
      // cancelled only after its successor rests): it waits for a later round instead of trading with us.
      if (action.type !== 'cancel' && this.#crossesOurs(action.quote)) {
        o.metrics.actions.inc({ pair: this.#pairId, type: action.type, result: 'waits-for-own-cancel' });
        continue;
      }
      const sent = await this.#act(action, decision);
      if (sent && first && marketEventMs !== null) o.metrics.quoteLatency.observe({ pair: this.#pairId }, (o.clock.now() - marketEventMs) / 1000);
      if (sent) first = false;
      if (!sent && action.type !== 'cancel') break;
    }
    if (!first && marketEventMs !== null) o.metrics.roundLatency.observe({ pair: this.#pairId }, (o.clock.now() - marketEventMs) / 1000);
    this.#spread(r.quotes);
  }

  /** Whether `quote` would trade with an order of ours of the other side that is or may be on the book. */
  #crossesOurs(quote: DesiredQuote): boolean {
    const scales = this.#o.runtime.binding.rules.scales;
    const price = priceToRaw(quote.price, scales);
    return this.#liveOrders().some(
      (o) => isLive(o.status) && o.side !== quote.side && (quote.side === 'buy' ? o.price <= price : o.price >= price),
    );
  }

  /** Sends one action; true when a transaction left the process. A refusal is logged and counted, never thrown. */
  async #act(action: QuoteAction, decision: Parameters<WalletEngine['place']>[0]['decision'] | null): Promise<boolean> {
    const o = this.#o;
    const engine = o.engine;
    try {
      if (action.type === 'cancel') {
        // A cancellation the chain refused (the order already filled, say) is settled by the order engine;
        // asking again at every recomputation would only repeat the refusal.
        for (const [id, at] of this.#cancelAsked) if (o.clock.now() - at >= CANCEL_RETRY_MS) this.#cancelAsked.delete(id);
        if (this.#cancelAsked.has(action.orderId)) return false;
        // Only a resting order can be cancelled; one still being placed is cancelled in a later round.
        const status = engine.order(BigInt(action.orderId))?.status;
        if (status === undefined || !isCancellable(status)) return false;
        this.#cancelAsked.set(action.orderId, o.clock.now());
        await engine.cancel(BigInt(action.orderId));
      } else if (action.type === 'place' || action.type === 'replace') {
        const cmd = {
          pairId: this.#pairId,
          side: action.quote.side,
          quantity: action.quote.quantity,
          price: action.quote.price,
          ...(decision === null ? {} : { decision }),
        };
        const placed = action.type === 'place' ? await engine.place(cmd) : (await engine.replace(BigInt(action.orderId), cmd)).placed;
        this.#watchOutcome(placed.settled, o.clock.now());
      } else return false;
      o.metrics.actions.inc({ pair: this.#pairId, type: action.type, result: 'sent' });
      this.#failures.succeeded('action', 'order actions go through again', { pair: this.#pairId });
      return true;
    } catch (e) {
      const code = e instanceof DltError ? e.code : 'unexpected';
      o.metrics.actions.inc({ pair: this.#pairId, type: action.type, result: code });
      // The order changed status between the decision and the queue (a fill, a replacement's cancel): benign.
      if (code === 'E_ORDER_STATE' || code === 'E_ORDER_WITHDRAWN') o.logger.debug({ ...failureFields(e), pair: this.#pairId, action: action.type }, 'order action no longer applies');
      else this.#failures.failed('action', e, 'order action refused', { pair: this.#pairId, action: action.type }, 'warn');
      if (code === MARKET_NOT_OPEN) this.#marketNotOpen();
      else if (!NOT_A_FAILURE.has(code)) o.risk.txFailed(this.#pairId, o.clock.now(), code);
      return false;
    }
  }

  #watchOutcome(settled: Promise<{ status: string; rejection: { code: string | null; reason: string } | null }>, sentMs: number): void {
    const o = this.#o;
    settled.then(
      (order) => {
        o.metrics.inclusionLatency.observe({ chain: o.runtime.binding.chain }, (o.clock.now() - sentMs) / 1000);
        if (order.status === 'rejected' && order.rejection?.code === 'E_ORDER_WITHDRAWN') {
          o.metrics.actions.inc({ pair: this.#pairId, type: 'place', result: 'withdrawn' });
        } else if (order.status === 'rejected') {
          const reason = order.rejection?.code ?? order.rejection?.reason ?? 'unknown';
          o.metrics.rejections.inc({ pair: this.#pairId, reason });
          if (reason === MARKET_NOT_OPEN) this.#marketNotOpen();
          else o.risk.txFailed(this.#pairId, o.clock.now(), reason);
          o.logger.warn({ pair: this.#pairId, reason, detail: order.rejection?.reason }, 'our order was rejected');
        } else {
          o.risk.txSucceeded(this.#pairId);
        }
        this.trigger();
      },
      (e: unknown) => o.logger.warn({ err: e, pair: this.#pairId }, 'following an order outcome failed'),
    );
  }

  /**
   * The book refused an order as not open (a halt or close got there first): a whole round of placements can
   * meet it, and counting each as a failure would stop the pair for good. Back off and read the phase now.
   */
  #marketNotOpen(): void {
    this.#o.risk.marketNotOpen(this.#pairId, this.#o.clock.now());
    void this.#o.status.refreshPhase();
  }

  /** A pause is logged once when it starts (or its reasons change), and once when the pair is active again. */
  #logMode(state: TradingState): void {
    const now = state.mode === 'paused' ? `paused: ${state.reasons.join(', ')}` : state.mode === 'active' ? 'active' : `${state.mode}: ${state.reason}`;
    if (now === this.#modeLogged) return;
    const was = this.#modeLogged;
    this.#modeLogged = now;
    if (state.mode === 'active') this.#o.logger.info({ pair: this.#pairId, was }, 'pair quoting again');
    else if (state.mode === 'paused') {
      // Outside trading hours is the venue's schedule; every other reason is worth a warning.
      const quiet = state.reasons.every((r) => r === 'market-closed');
      this.#o.logger[quiet ? 'info' : 'warn']({ pair: this.#pairId, reasons: state.reasons, untilMs: state.untilMs }, `pair paused: ${state.reasons.join(', ')}`);
    }
  }

  /** Whether an order of ours rests on each side of the book (as far as the chain has told us). */
  presence(): { buy: boolean; sell: boolean } {
    // A cancel in flight leaves the order on the book until it is included; one found gone is not there.
    const onBook = (o: ReturnType<PairLoop['liveOrdersForTest']>[number]) =>
      isCancellable(o.status) || (o.status === 'cancelRequested' && o.cancelTxHash !== null);
    const resting = this.#liveOrders().filter((o) => onBook(o) && remainingOf(o) > 0n);
    return { buy: resting.some((o) => o.side === 'buy'), sell: resting.some((o) => o.side === 'sell') };
  }

  #nativeMetrics(native: Decimal): void {
    const labels = { chain: this.#o.runtime.binding.chain, wallet: this.#o.engine.wallet };
    this.#o.metrics.nativeBalance.set(labels, native.toNumber());
    const alertAt = this.#o.limits().nativeAlert;
    if (alertAt !== null) this.#o.metrics.nativeAlertLevel.set(labels, alertAt.toNumber());
  }

  #spread(quotes: readonly DesiredQuote[]): void {
    const bid = quotes.filter((q) => q.side === 'buy').reduce<Decimal | null>((b, q) => (b === null || q.price.gt(b) ? q.price : b), null);
    const ask = quotes.filter((q) => q.side === 'sell').reduce<Decimal | null>((a, q) => (a === null || q.price.lt(a) ? q.price : a), null);
    if (bid !== null && ask !== null) this.#o.metrics.spread.set({ pair: this.#pairId }, ask.sub(bid).div(ask.add(bid).div(2)).mul(10_000).toNumber());
  }

  /** Our orders on this pair as the store has them (also used by the summary line). */
  liveOrdersForTest() {
    return this.#liveOrders();
  }
}

function midOf(book: MarketBook | undefined): Decimal | null {
  const bid = book?.buy[0]?.limit;
  const ask = book?.sell[0]?.limit;
  return bid === undefined || ask === undefined ? null : bid.add(ask).div(2);
}

