/**
 * Market-making obligations, measured while the bot runs, and the samples of the trading-day report.
 *
 * Measurement. Our quotes come from the chain: every confirmed `OrderResting` and `OrderCancelled` of our
 * orders (the quote tap in front of the engine's event follower) and the maker fills the engine attributes,
 * each at the time of its block or ledger; a quote counts from its inclusion until its cancel's inclusion or
 * its last fill. What the market was comes from what the bot observes of each pair (the order book phase on
 * chain first, the venue's trading status where the phase is unknown), persisted as it changes. The bot's own
 * runs are persisted too (a heartbeat), so scheduled time while it was down counts as absence after a restart.
 * Exceptional-circumstance and stressed-market windows come from the operator (`dlt-mm obligations`, or the
 * control endpoint) and after a volatility halt when `stressedAfterHaltMs` says so. `measurePresence` of the
 * core turns all of it into presence; the part of the day older than a few minutes is measured once and kept.
 *
 * Read API (for the terminal board and the control endpoint): `snapshot(pairId)` and `snapshots()` return an
 * `ObligationSnapshot` per pair with obligations: presence so far today and the target, compliant now, the
 * market state, our best spread against the maximum, the size of each side against the minimum, the absence
 * the day can still take before its target is out of reach, and the breach a limit forces, if any.
 *
 * Metrics: `obligation_presence_ratio`, `obligation_target_ratio`, `obligation_compliant`,
 * `obligation_spread_bps`, `obligation_max_spread_bps`, `obligation_size{side}`, `obligation_min_size`,
 * `obligation_absence_left_seconds`, `obligation_continuous_seconds`, `obligation_present_seconds`,
 * `obligation_breaches_total{limit}`. A warning in the log when the absence left falls under
 * `alertMarginMs`, once, and when the target can no longer be met, once.
 *
 * Its parts: what is kept per pair (tracked-pair.ts), the quote tap (quote-tap.ts), the day's figures
 * (pair-figures.ts), the gauges and the presence alert (obligation-view.ts).
 */
import type { ChainEvent } from '../../chains/types.ts';
import { sampleOf } from './samples.ts';
import type { Decimal } from '../../core/decimal.ts';
import type { ObligationWindow } from '../../store/obligation-store.ts';
import type { Store } from '../../store/store.ts';
import type { GuardOutcome, GuardTerms } from '../../strategy/types.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import type { Counter } from 'prom-client';
import type { PairStatus } from '../../market/status.ts';
import type { CalendarUse } from '../../core/calendar.ts';
import { dayOf } from './day-frame.ts';
import { marketStateOf, registerObligationGauges, type ObligationSnapshot } from './obligation-view.ts';
import { evaluatePair, windowAt } from './pair-figures.ts';
import { recordQuotes, settleFromStore } from './quote-tap.ts';
import { guardTerms, reopen, reportPairOf, trackedPair, type ObligationPair, type Tracked } from './tracked-pair.ts';
import type { Clock, Timer } from '../../core/clock.ts';

export { marketStateOf, type MarketNow, type ObligationSnapshot } from './obligation-view.ts';
export type { ObligationPair } from './tracked-pair.ts';

/** Position and PnL of a pair at the mark, quote units; from the pair's PnL tracker. */
export interface PairMoney {
  readonly mark: Decimal | null;
  /** The value the PnL attribution marks to (fair value, else the mid of others' book). */
  readonly value?: Decimal | null;
  readonly position: Decimal;
  readonly realised: Decimal;
  readonly unrealised: Decimal;
  readonly fees: Decimal;
}

export interface TrackerSources {
  pnl(pairId: string): PairMoney | null;
  /** The pair's venue status as last read, so that the calendar's boundaries are observed without a change. */
  status(pairId: string): PairStatus | undefined;
}

export interface ObligationTrackerOptions {
  readonly store: Store;
  readonly pairs: readonly ObligationPair[];
  readonly calendar: CalendarUse;
  /** How often each pair is sampled for the report. */
  readonly sampleMs: number;
  /** How often each pair's figures are worked out (the board, the alerts); default a second. */
  readonly evaluateEveryMs?: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

export class ObligationTracker {
  readonly #options: ObligationTrackerOptions;
  readonly #pairs = new Map<string, Tracked>();
  readonly #breaches: Counter<'pair' | 'limit'>;
  #sources: TrackerSources | null = null;
  #run: number | null = null;
  #timer: Timer | null = null;

  constructor(options: ObligationTrackerOptions) {
    this.#options = options;
    for (const pair of options.pairs) this.#pairs.set(pair.binding.pairId, trackedPair(pair));
    this.#breaches = options.metrics.counter({
      name: 'obligation_breaches_total',
      help: 'Times a limit forced the quotes outside the market-making obligations',
      labelNames: ['pair', 'limit'],
    });
    registerObligationGauges(this.#options.metrics, () => this.snapshots());
  }

  get pairIds(): string[] {
    return [...this.#pairs.keys()];
  }

  /**
   * Starts a run: written down at once, so that the time since the last run counts as downtime; each pair's
   * terms are saved for the report; quotes the tap missed (a crash between the engine's commit and ours) are
   * settled from the store. Then a timer keeps the heartbeat, the figures and the samples.
   */
  start(sources: TrackerSources): void {
    const options = this.#options;
    const now = options.clock.now();
    this.#sources = sources;
    this.#run = options.store.obligations.startRun(now);
    for (const tracked of this.#pairs.values()) {
      options.store.obligations.savePair(reportPairOf(tracked, options.calendar));
      settleFromStore(options.store, tracked, now);
    }
    const every = Math.min(1_000, options.sampleMs);
    this.#timer = options.clock.setRepeating(() => this.tick(options.evaluateEveryMs ?? 1_000), every);
    this.tick();
  }

  stop(): void {
    this.#timer?.cancel();
    this.#timer = null;
    const now = this.#options.clock.now();
    this.tick();
    for (const tracked of this.#pairs.values())
      if (tracked.breach !== null) this.#options.store.obligations.closeBreach(tracked.breach.id, now);
    if (this.#run !== null) this.#options.store.obligations.stopRun(this.#run, now);
    this.#run = null;
  }

  /**
   * One round: heartbeat, market states, figures (of a pair last worked out `evaluateEveryMs` ago or more, or at
   * a sample), alerts and samples. Also called by tests with their clock, figures always worked out.
   */
  tick(evaluateEveryMs = 0): void {
    const options = this.#options;
    const now = options.clock.now();
    try {
      // One commit for the round (its heartbeat, market changes and every pair's sample, 64 rows at once at 64
      // pairs) instead of one per row; a round that fails is rolled back whole and tried again at the next.
      options.store.atomically(() => this.#round(now, evaluateEveryMs));
    } catch (err) {
      options.logger.warn({ err }, 'obligation measurement failed; trying again at the next round');
    }
  }

  #round(now: number, evaluateEveryMs: number): void {
    const options = this.#options;
    if (this.#run !== null) options.store.obligations.alive(this.#run, now);
    for (const tracked of this.#pairs.values()) {
      const status = this.#sources?.status(tracked.pair.binding.pairId);
      if (status !== undefined) this.marketObserved(tracked.pair.binding.pairId, status, now);
      const sample = now - tracked.lastSampleMs >= options.sampleMs;
      if (sample || now - tracked.evaluatedMs >= evaluateEveryMs)
        evaluatePair(tracked, now, {
          store: options.store.obligations,
          calendar: options.calendar,
          logger: options.logger,
        });
      if (sample) {
        tracked.lastSampleMs = now;
        this.#sample(tracked, now);
      }
    }
  }

  /** What the bot sees of a pair's market now; a change is written down (and may open a stressed window). */
  marketObserved(pairId: string, status: PairStatus, nowMs: number): void {
    const tracked = this.#pairs.get(pairId);
    if (tracked === undefined) return;
    const seen = marketStateOf(status, tracked.pair.binding.chain, nowMs, this.#options.calendar);
    const before = tracked.market;
    if (before !== null && before.state === seen.state) {
      before.automaticHalt = seen.automaticHalt;
      return;
    }
    tracked.market = seen;
    const detail =
      `${status.tradingStatus ?? 'status unknown'} ${status.statusChangeReason ?? ''} phase ${String(status.phase)}`.replace(
        /\s+/g,
        ' ',
      );
    this.#options.store.obligations.recordMarket(pairId, nowMs, seen.state, detail);
    reopen(tracked, nowMs);
    this.#options.logger.info(
      { pair: pairId, market: seen.state, was: before?.state ?? null, detail },
      `market ${seen.state}`,
    );
    const afterHalt = tracked.pair.obligations?.stressedAfterHaltMs ?? 0;
    if (before?.state === 'halted' && before.automaticHalt && seen.state === 'continuous' && afterHalt > 0) {
      this.declare({
        kind: 'stressed',
        pairId,
        fromMs: nowMs,
        toMs: nowMs + afterHalt,
        reason: 'after a volatility halt',
        source: 'halt',
      });
    }
  }

  /** Confirmed chain events of a wallet (after the order engine applied them): our quotes rest and leave. */
  onChainEvents(chain: 'evm' | 'wasm', wallet: string, events: readonly ChainEvent[]): void {
    const touched = recordQuotes(this.#options.store, this.#pairs, chain, wallet, events);
    for (const pairId of touched) {
      const tracked = this.#pairs.get(pairId);
      if (tracked !== undefined) settleFromStore(this.#options.store, tracked, this.#options.clock.now());
    }
  }

  /** The guard's verdict of a recomputation: a breach a limit forces is said once, counted once, and its end said. */
  guardOutcome(pairId: string, outcome: GuardOutcome, nowMs: number): void {
    const tracked = this.#pairs.get(pairId);
    if (tracked === undefined) return;
    const store = this.#options.store.obligations;
    if (outcome.status === 'breach') {
      if (tracked.breach !== null && tracked.breach.limit === outcome.limit) return;
      if (tracked.breach !== null) store.closeBreach(tracked.breach.id, nowMs);
      const id = store.openBreach(pairId, outcome.limit, outcome.detail, nowMs);
      tracked.breach = { id, limit: outcome.limit, detail: outcome.detail, sinceMs: nowMs };
      this.#breaches.inc({ pair: pairId, limit: outcome.limit });
      this.#options.logger.warn(
        { pair: pairId, limit: outcome.limit, detail: outcome.detail },
        `market-making obligations breached: ${outcome.limit} keeps our quotes outside the terms`,
      );
      return;
    }
    if (tracked.breach !== null) {
      store.closeBreach(tracked.breach.id, nowMs);
      this.#options.logger.info(
        { pair: pairId, limit: tracked.breach.limit, sinceMs: tracked.breach.sinceMs },
        'market-making obligations met again',
      );
      tracked.breach = null;
    }
  }

  /** The terms the guard is to keep now (a stressed market's multiplier applied); null without obligations or guard. */
  guardTerms(pairId: string, nowMs: number): GuardTerms | null {
    const tracked = this.#pairs.get(pairId);
    if (tracked === undefined || tracked.rules === null || tracked.pair.obligations?.guard !== true) return null;
    return guardTerms(tracked.rules.terms, windowAt(this.#options.store.obligations, pairId, nowMs, 'stressed'));
  }

  /** Declares an exceptional-circumstance or stressed-market window (persisted; the figures follow at once). */
  declare(window: Omit<ObligationWindow, 'id' | 'declaredMs'>): ObligationWindow {
    if (window.pairId !== null && !this.#pairs.has(window.pairId))
      throw new Error(`no pair ${window.pairId} is traded`);
    const made = this.#options.store.obligations.declare(window);
    for (const tracked of this.#pairs.values())
      if (window.pairId === null || tracked.pair.binding.pairId === window.pairId) reopen(tracked, window.fromMs);
    this.#options.logger.info(
      { window: made },
      `${window.kind === 'exception' ? 'exceptional circumstances' : 'stressed market'} declared: ${window.reason}`,
    );
    return made;
  }

  endWindow(id: number, atMs: number): ObligationWindow | null {
    const ended = this.#options.store.obligations.endWindow(id, atMs);
    if (ended !== null) {
      for (const tracked of this.#pairs.values()) reopen(tracked, atMs);
      this.#options.logger.info(
        { window: ended },
        `${ended.kind === 'exception' ? 'exceptional circumstances' : 'stressed market'} window ended`,
      );
    }
    return ended;
  }

  windows(): ObligationWindow[] {
    const frame = dayOf(this.#options.clock.now(), this.#options.calendar);
    return this.#options.store.obligations.windows(frame.from, Number.MAX_SAFE_INTEGER);
  }

  /** The pair's figures as of the last round; null for a pair without obligations. */
  snapshot(pairId: string): ObligationSnapshot | null {
    return this.#pairs.get(pairId)?.snapshot ?? null;
  }

  snapshots(): ObligationSnapshot[] {
    return [...this.#pairs.values()].flatMap((tracked) => (tracked.snapshot === null ? [] : [tracked.snapshot]));
  }

  // ------------------------------------------------------------------------------------------------------

  #sample(tracked: Tracked, now: number): void {
    const pairId = tracked.pair.binding.pairId;
    const spans = this.#options.store.obligations.spans(pairId, now, now + 1);
    const pnl = this.#sources?.pnl(pairId) ?? null;
    this.#options.store.obligations.addSample(
      sampleOf(pairId, now, pnl, spans, tracked.pair.binding.rules.scales, tracked.snapshot),
    );
  }
}
