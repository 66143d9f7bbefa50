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
 */
import type { ChainEvent, PairBinding } from '../../chains/types.ts';
import { sampleOf } from './samples.ts';
import { obligationTerms, type ObligationsConfig } from '../../core/config/obligations-config.ts';
import { Decimal } from '../../core/decimal.ts';
import {
  absenceLeftMs,
  assessQuotes,
  measurePresence,
  ObligationRules,
  type Interval,
  type MarketState,
} from '../../core/obligations.ts';
import type { ObligationWindow, WindowKind } from '../../store/obligation-store.ts';
import type { Store } from '../../store/store.ts';
import type { GuardOutcome, GuardTerms } from '../../strategy/types.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import type { Counter } from 'prom-client';
import type { PairStatus } from '../loop/venue-status.ts';
import { dayOf, scheduledAfter, type CalendarUse, type DayFrame } from './day-frame.ts';
import { marketStateOf, presenceAlert, registerObligationGauges, type ObligationSnapshot } from './obligation-view.ts';
import { SettledDay } from './settled-day.ts';

export { marketStateOf, type MarketNow, type ObligationSnapshot } from './obligation-view.ts';
import type { Clock, Timer } from '../../core/clock.ts';

export interface ObligationPair {
  readonly binding: PairBinding;
  /** The wallet that trades the pair (chain address), whose events the quote tap reads. */
  readonly wallet: string;
  readonly obligations: ObligationsConfig | null;
}

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

interface Tracked {
  readonly pair: ObligationPair;
  readonly rules: ObligationRules | null;
  /** The last market state recorded in this run. */
  market: { state: MarketState; automaticHalt: boolean } | null;
  /** Measured and kept: the day up to a point (see settled-day.ts). */
  settled: SettledDay | null;
  snapshot: ObligationSnapshot | null;
  alert: 'ok' | 'at-risk' | 'unreachable';
  breach: { id: number; limit: string; detail: string; sinceMs: number } | null;
  lastSampleMs: number;
  evaluatedMs: number;
}

/** Stretches older than this are measured once and kept. */
const SETTLE_AFTER_MS = 45_000;
/** What stays open (an event landing before it goes back to a checkpoint: see settled-day.ts). */
const KEEP_OPEN_MS = 30_000;
const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const interval = (w: ObligationWindow): Interval => ({ from: w.fromMs, to: w.toMs ?? Number.MAX_SAFE_INTEGER });

export class ObligationTracker {
  readonly #o: ObligationTrackerOptions;
  readonly #pairs = new Map<string, Tracked>();
  readonly #breaches: Counter<'pair' | 'limit'>;
  #sources: TrackerSources | null = null;
  #run: number | null = null;
  #timer: Timer | null = null;

  constructor(options: ObligationTrackerOptions) {
    this.#o = options;
    for (const pair of options.pairs) {
      const rules =
        pair.obligations === null
          ? null
          : new ObligationRules(obligationTerms(pair.obligations), pair.binding.rules.scales);
      this.#pairs.set(pair.binding.pairId, {
        pair,
        rules,
        market: null,
        settled: null,
        snapshot: null,
        alert: 'ok',
        breach: null,
        lastSampleMs: Number.NEGATIVE_INFINITY,
        evaluatedMs: Number.NEGATIVE_INFINITY,
      });
    }
    this.#breaches = options.metrics.counter({
      name: 'obligation_breaches_total',
      help: 'Times a limit forced the quotes outside the market-making obligations',
      labelNames: ['pair', 'limit'],
    });
    registerObligationGauges(this.#o.metrics, () => this.snapshots());
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
    const o = this.#o;
    const now = o.clock.now();
    this.#sources = sources;
    this.#run = o.store.obligations.startRun(now);
    for (const t of this.#pairs.values()) {
      const b = t.pair.binding;
      const s = b.rules.scales;
      o.store.obligations.savePair({
        pairId: b.pairId,
        symbol: b.symbol,
        chain: b.chain,
        wallet: t.pair.wallet,
        scales: {
          baseInternal: s.baseInternal.toString(),
          quoteInternal: s.quoteInternal.toString(),
          baseNative: s.baseNative.toString(),
          quoteNative: s.quoteNative.toString(),
        },
        obligations: t.pair.obligations,
        calendar: { enabled: o.calendar.enabled, ...o.calendar.config },
      });
      this.#settleFromStore(t, now);
    }
    const every = Math.min(1_000, o.sampleMs);
    this.#timer = o.clock.setRepeating(() => this.tick(o.evaluateEveryMs ?? 1_000), every);
    this.tick();
  }

  stop(): void {
    this.#timer?.cancel();
    this.#timer = null;
    const now = this.#o.clock.now();
    this.tick();
    for (const t of this.#pairs.values())
      if (t.breach !== null) this.#o.store.obligations.closeBreach(t.breach.id, now);
    if (this.#run !== null) this.#o.store.obligations.stopRun(this.#run, now);
    this.#run = null;
  }

  /**
   * One round: heartbeat, market states, figures (of a pair last worked out `evaluateEveryMs` ago or more, or at
   * a sample), alerts and samples. Also called by tests with their clock, figures always worked out.
   */
  tick(evaluateEveryMs = 0): void {
    const o = this.#o;
    const now = o.clock.now();
    try {
      if (this.#run !== null) o.store.obligations.alive(this.#run, now);
      for (const t of this.#pairs.values()) {
        const status = this.#sources?.status(t.pair.binding.pairId);
        if (status !== undefined) this.marketObserved(t.pair.binding.pairId, status, now);
        const sample = now - t.lastSampleMs >= o.sampleMs;
        if (sample || now - t.evaluatedMs >= evaluateEveryMs) this.#evaluate(t, now);
        if (sample) {
          t.lastSampleMs = now;
          this.#sample(t, now);
        }
      }
    } catch (e) {
      o.logger.warn({ err: e }, 'obligation measurement failed; trying again at the next round');
    }
  }

  /** What the bot sees of a pair's market now; a change is written down (and may open a stressed window). */
  marketObserved(pairId: string, status: PairStatus, nowMs: number): void {
    const t = this.#pairs.get(pairId);
    if (t === undefined) return;
    const seen = marketStateOf(status, t.pair.binding.chain, nowMs, this.#o.calendar);
    const before = t.market;
    if (before !== null && before.state === seen.state) {
      before.automaticHalt = seen.automaticHalt;
      return;
    }
    t.market = seen;
    const detail =
      `${status.tradingStatus ?? 'status unknown'} ${status.statusChangeReason ?? ''} phase ${String(status.phase)}`.replace(
        /\s+/g,
        ' ',
      );
    this.#o.store.obligations.recordMarket(pairId, nowMs, seen.state, detail);
    this.#reopen(t, nowMs);
    this.#o.logger.info(
      { pair: pairId, market: seen.state, was: before?.state ?? null, detail },
      `market ${seen.state}`,
    );
    const afterHalt = t.pair.obligations?.stressedAfterHaltMs ?? 0;
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
    const store = this.#o.store;
    const touched = new Set<string>();
    for (const e of events) {
      if (e.type !== 'OrderResting' && e.type !== 'OrderCancelled') continue;
      const t = this.#pairs.get(e.pairId);
      if (
        t === undefined ||
        t.pair.binding.chain !== chain ||
        !sameAddress(e.client, wallet) ||
        !sameAddress(t.pair.wallet, wallet)
      )
        continue;
      // Only orders of this bot: one the store does not know (placed by someone else with our wallet) is no quote of ours.
      if (store.orders.byVenueId(chain, e.pairId, e.orderId) === undefined) continue;
      if (e.type === 'OrderResting')
        store.obligations.rested({
          chain,
          wallet: t.pair.wallet,
          pairId: e.pairId,
          orderId: e.orderId,
          side: e.side,
          price: e.price,
          quantity: e.quantity,
          atMs: e.timeMs,
          height: e.height,
        });
      else
        store.obligations.ended({
          chain,
          wallet: t.pair.wallet,
          pairId: e.pairId,
          orderId: e.orderId,
          atMs: e.timeMs,
          height: e.height,
          kind: 'cancel',
        });
      this.#reopen(t, e.timeMs);
      touched.add(e.pairId);
    }
    // Maker fills the engine attributed in this batch split our quotes' spans, and may have taken an order whole.
    for (const e of events) {
      const t = e.type === 'Transfer' ? this.#pairs.get(e.pairId) : undefined;
      if (t === undefined) continue;
      this.#reopen(t, e.timeMs);
      touched.add(e.pairId);
    }
    for (const pairId of touched) {
      const t = this.#pairs.get(pairId);
      if (t !== undefined) this.#settleFromStore(t, this.#o.clock.now());
    }
  }

  /** The guard's verdict of a recomputation: a breach a limit forces is said once, counted once, and its end said. */
  guardOutcome(pairId: string, outcome: GuardOutcome, nowMs: number): void {
    const t = this.#pairs.get(pairId);
    if (t === undefined) return;
    const store = this.#o.store.obligations;
    if (outcome.status === 'breach') {
      if (t.breach !== null && t.breach.limit === outcome.limit) return;
      if (t.breach !== null) store.closeBreach(t.breach.id, nowMs);
      const id = store.openBreach(pairId, outcome.limit, outcome.detail, nowMs);
      t.breach = { id, limit: outcome.limit, detail: outcome.detail, sinceMs: nowMs };
      this.#breaches.inc({ pair: pairId, limit: outcome.limit });
      this.#o.logger.warn(
        { pair: pairId, limit: outcome.limit, detail: outcome.detail },
        `market-making obligations breached: ${outcome.limit} keeps our quotes outside the terms`,
      );
      return;
    }
    if (t.breach !== null) {
      store.closeBreach(t.breach.id, nowMs);
      this.#o.logger.info(
        { pair: pairId, limit: t.breach.limit, sinceMs: t.breach.sinceMs },
        'market-making obligations met again',
      );
      t.breach = null;
    }
  }

  /** The terms the guard is to keep now (a stressed market's multiplier applied); null without obligations or guard. */
  guardTerms(pairId: string, nowMs: number): GuardTerms | null {
    const t = this.#pairs.get(pairId);
    if (t === undefined || t.rules === null || t.pair.obligations?.guard !== true) return null;
    const terms = t.rules.terms;
    const stressed = this.#windowsAt(pairId, nowMs, 'stressed');
    const maxSpread = stressed
      ? { ...terms.maxSpread, value: terms.maxSpread.value.mul(terms.stressedSpreadMultiplier) }
      : terms.maxSpread;
    return { maxSpread, minSize: terms.minSize, maxSizeRatio: terms.maxSizeRatio };
  }

  /** Declares an exceptional-circumstance or stressed-market window (persisted; the figures follow at once). */
  declare(w: Omit<ObligationWindow, 'id' | 'declaredMs'>): ObligationWindow {
    if (w.pairId !== null && !this.#pairs.has(w.pairId)) throw new Error(`no pair ${w.pairId} is traded`);
    const made = this.#o.store.obligations.declare(w);
    for (const t of this.#pairs.values())
      if (w.pairId === null || t.pair.binding.pairId === w.pairId) this.#reopen(t, w.fromMs);
    this.#o.logger.info(
      { window: made },
      `${w.kind === 'exception' ? 'exceptional circumstances' : 'stressed market'} declared: ${w.reason}`,
    );
    return made;
  }

  endWindow(id: number, atMs: number): ObligationWindow | null {
    const ended = this.#o.store.obligations.endWindow(id, atMs);
    if (ended !== null) {
      for (const t of this.#pairs.values()) this.#reopen(t, atMs);
      this.#o.logger.info(
        { window: ended },
        `${ended.kind === 'exception' ? 'exceptional circumstances' : 'stressed market'} window ended`,
      );
    }
    return ended;
  }

  windows(): ObligationWindow[] {
    const frame = dayOf(this.#o.clock.now(), this.#o.calendar);
    return this.#o.store.obligations.windows(frame.from, Number.MAX_SAFE_INTEGER);
  }

  /** The pair's figures as of the last round; null for a pair without obligations. */
  snapshot(pairId: string): ObligationSnapshot | null {
    return this.#pairs.get(pairId)?.snapshot ?? null;
  }

  snapshots(): ObligationSnapshot[] {
    return [...this.#pairs.values()].flatMap((t) => (t.snapshot === null ? [] : [t.snapshot]));
  }

  // ------------------------------------------------------------------------------------------------------

  /** Something at `atMs` changed: a kept stretch reaching past it is measured again. */
  #reopen(t: Tracked, atMs: number): void {
    t.settled?.reopen(atMs);
  }

  /** Quotes recorded as resting that the store shows gone (taken whole by fills, or a missed event). */
  #settleFromStore(t: Tracked, nowMs: number): void {
    const store = this.#o.store;
    const b = t.pair.binding;
    for (const q of store.obligations.open(b.pairId)) {
      const order = store.orders.byVenueId(q.chain, q.pairId, q.orderId);
      if (
        order === undefined ||
        (order.status !== 'filled' && order.status !== 'cancelled' && order.status !== 'rejected')
      )
        continue;
      const fills = store.orders.fillsOf(order.wallet, order.clientOrderId).filter((f) => f.role === 'maker');
      const last = fills.at(-1);
      const filled = order.status === 'filled' && last !== undefined;
      const end = filled
        ? { atMs: last.atMs, height: last.height, kind: 'filled' as const }
        : { atMs: Math.min(order.updatedMs, nowMs), height: null, kind: 'store' as const };
      store.obligations.ended({ chain: q.chain, wallet: q.wallet, pairId: q.pairId, orderId: q.orderId, ...end });
      this.#reopen(t, end.atMs);
    }
  }

  #windowsAt(pairId: string, atMs: number, kind: WindowKind): boolean {
    return this.#o.store.obligations.windows(atMs, atMs + 1, pairId).some((w) => w.kind === kind);
  }

  #measure(t: Tracked, frame: DayFrame, from: number, to: number) {
    const store = this.#o.store.obligations;
    const pairId = t.pair.binding.pairId;
    const first = store.firstRunMs() ?? to;
    const windows = store.windows(from, to, pairId);
    return measurePresence({
      from,
      to,
      observedFrom: Math.max(frame.from, first),
      schedule: frame.schedule,
      runs: store.runs(from, to),
      market: store.market(pairId, from, to),
      exceptions: windows.filter((w) => w.kind === 'exception').map(interval),
      stressed: windows.filter((w) => w.kind === 'stressed').map(interval),
      quotes: store.spans(pairId, from, to),
      rules: t.rules as ObligationRules,
    });
  }

  #evaluate(t: Tracked, now: number): void {
    t.evaluatedMs = now;
    if (t.rules === null || t.pair.obligations === null) return;
    const o = this.#o;
    const pairId = t.pair.binding.pairId;
    const frame = dayOf(now, o.calendar);
    if (t.settled === null || t.settled.day !== frame.date) t.settled = new SettledDay(frame.date, frame.from);
    const s = t.settled;
    if (now - s.upTo > SETTLE_AFTER_MS)
      s.extend(now - KEEP_OPEN_MS, this.#measure(t, frame, s.upTo, now - KEEP_OPEN_MS));
    const recent = this.#measure(t, frame, s.upTo, now);
    const continuousMs = s.continuousMs + recent.continuousMs;
    const presentMs = s.presentMs + recent.presentMs;
    const stressed = this.#windowsAt(pairId, now, 'stressed');
    const live = assessQuotes(o.store.obligations.spans(pairId, now, now + 1), t.rules, stressed);
    const exception = this.#windowsAt(pairId, now, 'exception');
    const target = t.rules.terms.target;
    const left = absenceLeftMs(presentMs, continuousMs, scheduledAfter(frame, now), target);
    const c = t.pair.obligations;
    t.snapshot = {
      pairId,
      symbol: t.pair.binding.symbol,
      day: frame.date,
      atMs: now,
      target,
      presence: continuousMs > 0 ? presentMs / continuousMs : null,
      presentMs,
      continuousMs,
      compliantNow: live.compliant,
      shortfall: live.shortfall,
      market: exception ? 'exception' : (t.market?.state ?? 'closed'),
      stressed,
      spreadBps: live.spreadBps,
      maxSpreadBps: live.maxSpreadBps,
      bidSize: live.bidSize?.toFixed() ?? null,
      askSize: live.askSize?.toFixed() ?? null,
      minSize: t.rules.terms.minSize.value.toFixed(),
      sizeUnit: t.rules.terms.minSize.unit,
      absenceLeftMs: left,
      targetReachable: left >= 0,
      guard: c.guard,
      breach: t.breach === null ? null : { limit: t.breach.limit, detail: t.breach.detail, sinceMs: t.breach.sinceMs },
    };
    t.alert = presenceAlert(this.#o.logger, t.alert, t.snapshot, c.alertMarginMs ?? 0);
  }

  #sample(t: Tracked, now: number): void {
    const pairId = t.pair.binding.pairId;
    const spans = this.#o.store.obligations.spans(pairId, now, now + 1);
    const s = t.snapshot;
    this.#o.store.obligations.addSample(
      sampleOf(pairId, now, this.#sources?.pnl(pairId) ?? null, spans, t.pair.binding.rules.scales, s),
    );
  }
}
