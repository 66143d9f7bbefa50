/**
 * The running bot: one order engine per wallet, one strategy loop per pair, the market-data feed, the venue
 * status pollers and the risk monitor, wired so that every change reaches the loop of its pair. Start-up
 * reconciles every wallet before the first quote; the kill switch cancels everything and holds; shutdown
 * stops quoting, cancels every order, waits for the cancellations to be final within a deadline and closes.
 */
import type { ChainAdapter, PairBinding } from '../../chains/types.ts';
import type { CalendarConfig } from '../../core/calendar.ts';
import { Decimal } from '../../core/decimal.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import type { ObligationTracker } from '../obligations/tracker.ts';
import { startFairValues, type PairFairValue } from '../fair-value/pair-fair-value.ts';
import type { RiskLimits } from '../risk/limits.ts';
import { RiskMonitor } from '../risk/monitor.ts';
import type { WalletEngine } from '../wallet/wallet-engine.ts';
import { derivePairGauges, loopMetrics, type LoopMetrics } from './loop-metrics.ts';
import { PairLoop, type PairLoopOptions, type StrategyHandle } from './pair-loop.ts';
import { obligationsHandle, type BotFeed } from './loop-types.ts';
import { PnlTracker } from './pnl-tracker.ts';
import { deriveEvaluationGauges } from '../evaluation/metrics.ts';
import type { PairEvaluation } from '../evaluation/pair-evaluation.ts';
import * as routines from './bot-routines.ts';
import { VenueStatus, type TradeInfoSource } from './venue-status.ts';
import type { Clock, Timer } from '../../core/clock.ts';

export interface BotWallet {
  readonly id: string;
  readonly engine: WalletEngine;
  /** The wallet's chain adapter: the venue status reads each book's phase through it. */
  readonly adapter: ChainAdapter;
  readonly marketMaker: boolean;
}

export interface BotPair {
  readonly binding: PairBinding;
  readonly walletId: string;
  readonly strategy: () => StrategyHandle;
  readonly limits: () => RiskLimits;
  readonly refreshCost: Decimal;
  /** The pair's own fair value (its strategy's fairValue block), read from start to shutdown. */
  readonly fairValue?: PairFairValue;
  readonly record?: PairLoopOptions['record'];
  /** The pair's markouts and PnL attribution. */
  readonly evaluation?: PairEvaluation;
  /** The placement throttles of its wallet and of the pair (risk/throttle.ts). */
  readonly throttles?: PairLoopOptions['throttles'];
}

export interface BotTimings extends routines.PollTimings {
  readonly balanceMaxAgeMs: number;
}

export interface BotOptions {
  readonly wallets: readonly BotWallet[];
  readonly pairs: readonly BotPair[];
  /** The market data: the venue's feed, or a backtest's replayed books. */
  readonly feed: BotFeed;
  readonly rest: TradeInfoSource;
  readonly calendar: { readonly enabled: boolean; readonly config: CalendarConfig };
  readonly timings: BotTimings;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Called for every pair loop's reload of its inputs; returns the problems of strategies kept unchanged. */
  readonly reloadStrategies: () => string[];
  /** Market-making obligations and the day report's samples: measured from start to shutdown. */
  readonly obligations?: ObligationTracker;
  /** Each wallet's venue trade list against its fills, every `timings.tradeCheckMs`. */
  readonly tradeChecks?: readonly routines.WalletTradeCheck[];
}

export type BotPhase = 'starting' | 'trading' | 'killed' | 'stopping' | 'stopped';

export class Bot {
  readonly #o: BotOptions;
  readonly risk = new RiskMonitor();
  readonly loops = new Map<string, PairLoop>();
  /** Per venue pair id (one for all the wallets that quote the pair). */
  readonly statuses = new Map<string, VenueStatus>();
  readonly pnl = new Map<string, PnlTracker>();
  /** Each pair's markouts and PnL attribution (when configured). */
  readonly evaluations = new Map<string, PairEvaluation>();
  readonly metrics: LoopMetrics;
  readonly #timers: Timer[] = [];
  /** The engines' readiness and activity, heard until the loops stop. */
  readonly #subscriptions: Array<() => void> = [];
  #phase: BotPhase = 'starting';
  #readyDetail = 'reconciling';
  /** The kill switch's cancellations, while they run. */
  #killing: Promise<void> | null = null;

  readonly #loopPairs: readonly routines.LoopPair[];

  constructor(options: BotOptions) {
    this.#o = options;
    this.#loopPairs = routines.loopPairs(options.pairs);
    this.metrics = loopMetrics(options.metrics);
    deriveEvaluationGauges(options.metrics, () => this.evaluations);
  }

  get phase(): BotPhase {
    return this.#phase;
  }

  /** Ready while trading with every wallet reconciled; otherwise why not (each wallet that is not ready says why). */
  readiness(): { ready: boolean; detail: string } {
    if (this.#phase !== 'trading') return { ready: false, detail: `${this.#phase}: ${this.#readyDetail}` };
    const waiting = this.#o.wallets
      .filter((w) => !w.engine.readiness.ready)
      .map((w) => `wallet ${w.id} (${w.engine.chain}) not ready: ${w.engine.readiness.detail}`);
    return waiting.length === 0 ? { ready: true, detail: 'trading' } : { ready: false, detail: waiting.join('; ') };
  }

  #wallet(id: string): BotWallet {
    const w = this.#o.wallets.find((x) => x.id === id);
    if (w === undefined) throw new Error(`bot: unknown wallet ${id}`);
    return w;
  }

  /**
   * Reconciles every wallet (all at once), then starts the loops. A pair trades only while its wallet is
   * reconciled: a wallet whose reconciliation failed keeps trying with back-off (its pairs are paused as
   * `reconciling` meanwhile, and `/readyz` says why), and its pairs start quoting when it succeeds.
   */
  async start(): Promise<void> {
    const o = this.#o;
    // Fair values are read from the start, while the wallets reconcile: the first quotes have them.
    const firstReads = startFairValues(o.pairs, o.metrics, (id) => this.#statusChanged(id, false));
    // The run starts now: the time since the last run counted as downtime, the time from now on as ours.
    o.obligations?.start({
      status: (id) => this.statuses.get(id)?.current,
      pnl: (id) => {
        const money = this.pnl.get(id)?.snapshot();
        return money === undefined ? null : { ...money, value: this.evaluations.get(id)?.value ?? null };
      },
    });
    await Promise.all(
      o.wallets.map(async (w) => {
        const report = await w.engine.reconcileUntilReady();
        const where = { wallet: w.engine.wallet, chain: w.engine.chain };
        if (report?.ready === true) o.logger.info({ ...where, report }, 'wallet reconciled');
        else
          o.logger.warn(
            { ...where, detail: w.engine.readiness.detail },
            'wallet not ready; its pairs wait until a reconciliation succeeds',
          );
      }),
    );
    const now = o.clock.now();
    const quotePairs = routines.pairsPerQuote(o.pairs);
    for (const [i, p] of o.pairs.entries()) {
      const w = this.#wallet(p.walletId);
      const { pairId, key: id } = this.#loopPairs[i] as routines.LoopPair;
      const runtime = w.engine.pair(pairId);
      if (runtime === undefined) throw new Error(`bot: pair ${pairId} is not traded by wallet ${p.walletId}`);
      this.risk.addPair(id, w.engine.wallet, p.limits(), now);
      const pnl = new PnlTracker(w.engine.fills(pairId), p.binding.rules.scales);
      if (p.evaluation !== undefined) this.evaluations.set(id, p.evaluation);
      const status =
        this.statuses.get(pairId) ??
        new VenueStatus(p.binding, o.rest, w.adapter, o.logger, () => this.#statusChanged(pairId), o.clock);
      const loop = new PairLoop({
        key: id,
        runtime,
        engine: w.engine,
        adapter: w.adapter,
        feed: o.feed,
        status,
        risk: this.risk,
        pnl,
        strategy: p.strategy,
        limits: p.limits,
        calendar: o.calendar,
        quoteShare: new Decimal(1).div(quotePairs.get(`${p.walletId}:${p.binding.quoteToken}`) ?? 1),
        refreshCost: p.refreshCost,
        marketMaker: w.marketMaker,
        ...(p.fairValue === undefined ? {} : { fairValue: p.fairValue }),
        ...(p.evaluation === undefined ? {} : { evaluation: p.evaluation }),
        ...(p.record === undefined ? {} : { record: p.record }),
        balanceMaxAgeMs: o.timings.balanceMaxAgeMs,
        clock: o.clock,
        logger: o.logger.child({ pair: id, symbol: p.binding.symbol }),
        metrics: this.metrics,
        ...(o.obligations === undefined ? {} : { obligations: obligationsHandle(o.obligations, pairId) }),
        throttles: p.throttles ?? [],
      });
      this.loops.set(id, loop);
      this.statuses.set(pairId, status);
      this.pnl.set(id, pnl);
    }
    // Every pair's trade information and phase at once: a restart quotes as soon as all of them are known.
    await Promise.all([
      ...[...this.statuses.values()].flatMap((status) => [status.refreshTradeInfo(now), status.refreshPhase()]),
      firstReads,
    ]);
    this.risk.onEvent((e) => {
      if (e.type === 'killed')
        this.#killing ??= this.#kill(`${e.pairId}: ${e.reason}`).catch((err: unknown) =>
          o.logger.error({ err }, 'kill switch: cancelling every order failed'),
        );
      else if (e.type === 'stopped') {
        o.logger.error({ pair: e.pairId, reason: e.reason }, 'pair stopped; an operator must restart the bot');
        const p = this.#loopPairs.find((x) => x.key === e.pairId);
        if (p !== undefined)
          void this.#wallet(p.walletId)
            .engine.cancelAll({ pairId: p.pairId })
            .catch(() => undefined);
      } else
        o.logger.warn({ wallet: e.wallet, balance: e.balance.toFixed(), level: e.level }, 'native fee balance low');
    });
    derivePairGauges(o.metrics, this.loops, (pairId) => this.risk.state(pairId, o.clock.now()).mode, this.pnl);
    this.#subscriptions.push(
      ...routines.followWallets(o.wallets, this.#loopPairs, {
        reconciling: (id, on) => this.risk.setFlag(id, 'reconciling', on),
        trigger: (id) => this.loops.get(id)?.trigger(),
        activity: (ids) => this.activity(ids),
        logger: o.logger,
      }),
    );
    routines.followFeed(
      o.feed,
      o.pairs,
      () => this.loops.values(),
      (key, atMs) => this.risk.marketData(key, atMs),
    );
    const engines = o.wallets.map((w) => w.engine);
    this.#timers.push(
      ...routines.startPolls(
        o.clock,
        o.timings,
        { statuses: () => this.statuses.values(), engines, tick: (idleMs) => this.triggerAll(idleMs) },
        o.logger,
        o.tradeChecks,
      ),
    );
    this.#phase = 'trading';
    this.#readyDetail = '';
    this.triggerAll();
  }

  /** The pair's status (or its fair value, `observed` false) changed: every loop of the pair recomputes. */
  #statusChanged(pairId: string, observed = true): void {
    for (const loop of this.loops.values()) if (loop.pairId === pairId) loop.trigger();
    const status = this.statuses.get(pairId);
    if (observed && status !== undefined)
      this.#o.obligations?.marketObserved(pairId, status.current, this.#o.clock.now());
  }

  /** The order engine saw activity on these pairs' loops (fills, transfers, outcomes), by key. */
  activity(keys: readonly string[]): void {
    for (const id of keys) {
      const loop = this.loops.get(id);
      loop?.balancesChanged();
      loop?.trigger();
    }
  }

  /** Every pair recomputes (on the clock's tick, those that have not for `idleMs`). */
  triggerAll(idleMs?: number): void {
    if (this.#phase === 'trading') for (const loop of this.loops.values()) loop.tick(idleMs ?? 0);
  }

  /** SIGHUP: strategy files read again (a broken file keeps its last good version). */
  reload(): string[] {
    const problems = this.#o.reloadStrategies();
    for (const p of problems) this.#o.logger.error({ problem: p }, 'strategy file kept at its previous version');
    this.#o.logger.info({ kept: problems.length }, 'parameters reloaded');
    this.triggerAll();
    return problems;
  }

  async #stopLoops(): Promise<void> {
    for (const t of this.#timers.splice(0)) t.cancel();
    for (const p of this.#o.pairs) p.fairValue?.stop();
    for (const off of this.#subscriptions.splice(0)) off();
    await Promise.all([...this.loops.values()].map((l) => l.stop()));
  }

  async #kill(reason: string): Promise<void> {
    if (this.#phase !== 'trading') return;
    this.#phase = 'killed';
    this.#readyDetail = reason;
    this.metrics.killSwitch.set(1);
    this.#o.logger.fatal(
      { reason },
      'kill switch tripped: cancelling every order; the bot stays stopped until an operator restarts it',
    );
    // Placements queued or not signed yet are withdrawn at once, before the loops finish their rounds.
    for (const w of this.#o.wallets) w.engine.halt(`kill switch: ${reason}`);
    await this.#stopLoops();
    await routines.cancelEverything(this.#o.wallets, this.#o.logger, 120_000);
  }

  /** Graceful stop: no new quotes, cancel everything, wait for finality within the deadline. */
  async shutdown(deadlineMs: number): Promise<boolean> {
    this.#phase = 'stopping';
    // The recording says when trading stopped: a replay stops quoting at the same moment.
    for (const p of this.#o.pairs) p.record?.({ atMs: this.#o.clock.now(), stage: 'decided', type: 'shutdown' });
    for (const w of this.#o.wallets) w.engine.halt('shutting down');
    await this.#stopLoops();
    // After the kill switch too: its cancellations may still be in flight (a SIGTERM right after it tripped),
    // and whatever they left live is cancelled now; with nothing live this returns at once.
    await this.#killing;
    const started = this.#o.clock.now();
    const clean = await routines.cancelEverything(this.#o.wallets, this.#o.logger, deadlineMs);
    // Every outcome sent (cancellations that met a fill, approvals, placements withdrawn late) is settled
    // before the adapters close, within what is left of the deadline; what is not is named.
    const left = Math.max(0, deadlineMs - (this.#o.clock.now() - started));
    const settled = await routines.drainEverything(
      this.#o.wallets.map((w) => w.engine),
      this.#o.logger,
      left,
    );
    this.#o.obligations?.stop();
    for (const w of this.#o.wallets) await w.engine.stop();
    this.#phase = 'stopped';
    return clean && settled;
  }
}
