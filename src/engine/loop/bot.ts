/**
 * The running bot: one order engine per wallet, one strategy loop per pair, the market-data feed, the venue
 * status pollers and the risk monitor, wired so that every change reaches the loop of its pair. Start-up
 * reconciles every wallet before the first quote; the kill switch cancels everything and holds; shutdown
 * stops quoting, cancels every order, waits for the cancellations to be final within a deadline and closes.
 */
import { Decimal } from '../../core/decimal.ts';
import { startFairValues } from '../fair-value/pair-fair-value.ts';
import { RiskMonitor, type RiskEvent } from '../risk/monitor.ts';
import { derivePairGauges, loopMetrics, type LoopMetrics } from './loop-metrics.ts';
import { PairLoop } from './pair-loop.ts';
import { obligationsHandle } from './loop-types.ts';
import { PnlTracker } from './pnl-tracker.ts';
import { deriveEvaluationGauges } from '../evaluation/metrics.ts';
import type { PairEvaluation } from '../evaluation/pair-evaluation.ts';
import * as routines from './bot-routines.ts';
import { VenueStatus } from '../../market/status.ts';
import type { Timer } from '../../core/clock.ts';
import type { BotOptions, BotPair, BotPhase, BotWallet } from './bot-types.ts';

export type { BotOptions, BotPair, BotPhase, BotTimings, BotWallet } from './bot-types.ts';

export class Bot {
  readonly #options: BotOptions;
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
    this.#options = options;
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
    const waiting = this.#options.wallets
      .filter((wallet) => !wallet.engine.readiness.ready)
      .map((wallet) => `wallet ${wallet.id} (${wallet.engine.chain}) not ready: ${wallet.engine.readiness.detail}`);
    return waiting.length === 0 ? { ready: true, detail: 'trading' } : { ready: false, detail: waiting.join('; ') };
  }

  #wallet(id: string): BotWallet {
    const wallet = this.#options.wallets.find((candidate) => candidate.id === id);
    if (wallet === undefined) throw new Error(`bot: unknown wallet ${id}`);
    return wallet;
  }

  /**
   * Reconciles every wallet (all at once), then starts the loops. A pair trades only while its wallet is
   * reconciled: a wallet whose reconciliation failed keeps trying with back-off (its pairs are paused as
   * `reconciling` meanwhile, and `/readyz` says why), and its pairs start quoting when it succeeds.
   */
  async start(): Promise<void> {
    const options = this.#options;
    // Fair values are read from the start, while the wallets reconcile: the first quotes have them.
    const firstReads = startFairValues(options.pairs, options.metrics, (id) => this.#statusChanged(id, false));
    // The run starts now: the time since the last run counted as downtime, the time from now on as ours.
    options.obligations?.start({
      status: (id) => this.statuses.get(id)?.current,
      pnl: (id) => {
        const money = this.pnl.get(id)?.snapshot();
        return money === undefined ? null : { ...money, value: this.evaluations.get(id)?.value ?? null };
      },
    });
    await Promise.all(options.wallets.map((wallet) => this.#reconcile(wallet)));
    const now = options.clock.now();
    const quotePairs = routines.pairsPerQuote(options.pairs);
    for (const [index, pair] of options.pairs.entries())
      this.#addLoop(pair, this.#loopPairs[index] as routines.LoopPair, quotePairs, now);
    // Every pair's trade information and phase at once: a restart quotes as soon as all of them are known.
    await Promise.all([
      ...[...this.statuses.values()].flatMap((status) => [status.refreshTradeInfo(now), status.refreshPhase()]),
      firstReads,
    ]);
    this.risk.onEvent((event) => this.#riskEvent(event));
    const mode = (pairId: string) => this.risk.state(pairId, options.clock.now()).mode;
    derivePairGauges(options.metrics, this.loops, mode, this.pnl);
    this.#follow();
    this.#phase = 'trading';
    this.#readyDetail = '';
    this.triggerAll();
  }

  /** One wallet reconciled until ready (or given up on for now: its pairs wait), and the outcome logged. */
  async #reconcile(wallet: BotWallet): Promise<void> {
    const report = await wallet.engine.reconcileUntilReady();
    const where = { wallet: wallet.engine.wallet, chain: wallet.engine.chain };
    if (report?.ready === true) this.#options.logger.info({ ...where, report }, 'wallet reconciled');
    else
      this.#options.logger.warn(
        { ...where, detail: wallet.engine.readiness.detail },
        'wallet not ready; its pairs wait until a reconciliation succeeds',
      );
  }

  /** The loop of one configured pair, with its risk entry, PnL tracker and (shared per venue pair) status. */
  #addLoop(pair: BotPair, loopPair: routines.LoopPair, quotePairs: ReadonlyMap<string, number>, now: number): void {
    const options = this.#options;
    const wallet = this.#wallet(pair.walletId);
    const { pairId, key: id } = loopPair;
    const runtime = wallet.engine.pair(pairId);
    if (runtime === undefined) throw new Error(`bot: pair ${pairId} is not traded by wallet ${pair.walletId}`);
    this.risk.addPair(id, wallet.engine.wallet, pair.limits(), now);
    const pnl = new PnlTracker(wallet.engine.fills(pairId), pair.binding.rules.scales);
    if (pair.evaluation !== undefined) this.evaluations.set(id, pair.evaluation);
    const status =
      this.statuses.get(pairId) ??
      new VenueStatus(
        pair.binding,
        options.rest,
        wallet.adapter,
        options.logger,
        () => this.#statusChanged(pairId),
        options.clock,
      );
    const loop = new PairLoop({
      key: id,
      runtime,
      engine: wallet.engine,
      adapter: wallet.adapter,
      feed: options.feed,
      status,
      risk: this.risk,
      pnl,
      strategy: pair.strategy,
      limits: pair.limits,
      calendar: options.calendar,
      quoteShare: new Decimal(1).div(quotePairs.get(`${pair.walletId}:${pair.binding.quoteToken}`) ?? 1),
      refreshCost: pair.refreshCost,
      marketMaker: wallet.marketMaker,
      ...(pair.fairValue === undefined ? {} : { fairValue: pair.fairValue }),
      ...(pair.evaluation === undefined ? {} : { evaluation: pair.evaluation }),
      ...(pair.record === undefined ? {} : { record: pair.record }),
      balanceMaxAgeMs: options.timings.balanceMaxAgeMs,
      clock: options.clock,
      logger: options.logger.child({ pair: id, symbol: pair.binding.symbol }),
      metrics: this.metrics,
      ...(options.obligations === undefined ? {} : { obligations: obligationsHandle(options.obligations, pairId) }),
      throttles: pair.throttles ?? [],
    });
    this.loops.set(id, loop);
    this.statuses.set(pairId, status);
    this.pnl.set(id, pnl);
  }

  /** The risk monitor's events: the kill switch, a pair stopped for good, a low fee balance. */
  #riskEvent(event: RiskEvent): void {
    const logger = this.#options.logger;
    if (event.type === 'killed')
      this.#killing ??= this.#kill(`${event.pairId}: ${event.reason}`).catch((err: unknown) =>
        logger.error({ err }, 'kill switch: cancelling every order failed'),
      );
    else if (event.type === 'stopped') {
      logger.error({ pair: event.pairId, reason: event.reason }, 'pair stopped; an operator must restart the bot');
      const loopPair = this.#loopPairs.find((candidate) => candidate.key === event.pairId);
      if (loopPair !== undefined)
        void this.#wallet(loopPair.walletId)
          .engine.cancelAll({ pairId: loopPair.pairId })
          .catch(() => undefined);
    } else
      logger.warn(
        { wallet: event.wallet, balance: event.balance.toFixed(), level: event.level },
        'native fee balance low',
      );
  }

  /** The wallets' readiness and activity, the feed's books and the polls reach the loops from now on. */
  #follow(): void {
    const options = this.#options;
    this.#subscriptions.push(
      ...routines.followWallets(options.wallets, this.#loopPairs, {
        reconciling: (id, on) => this.risk.setFlag(id, 'reconciling', on),
        trigger: (id) => this.loops.get(id)?.trigger(),
        activity: (ids) => this.activity(ids),
        logger: options.logger,
      }),
    );
    routines.followFeed(
      options.feed,
      options.pairs,
      () => this.loops.values(),
      (key, atMs) => this.risk.marketData(key, atMs),
    );
    const engines = options.wallets.map((wallet) => wallet.engine);
    this.#timers.push(
      ...routines.startPolls(
        options.clock,
        options.timings,
        { statuses: () => this.statuses.values(), engines, tick: (idleMs) => this.triggerAll(idleMs) },
        options.logger,
        options.tradeChecks,
      ),
    );
  }

  /** The pair's status (or its fair value, `observed` false) changed: every loop of the pair recomputes. */
  #statusChanged(pairId: string, observed = true): void {
    for (const loop of this.loops.values()) if (loop.pairId === pairId) loop.trigger();
    const status = this.statuses.get(pairId);
    if (observed && status !== undefined)
      this.#options.obligations?.marketObserved(pairId, status.current, this.#options.clock.now());
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
    const problems = this.#options.reloadStrategies();
    for (const problem of problems)
      this.#options.logger.error({ problem }, 'strategy file kept at its previous version');
    this.#options.logger.info({ kept: problems.length }, 'parameters reloaded');
    this.triggerAll();
    return problems;
  }

  async #stopLoops(): Promise<void> {
    for (const timer of this.#timers.splice(0)) timer.cancel();
    for (const pair of this.#options.pairs) pair.fairValue?.stop();
    for (const off of this.#subscriptions.splice(0)) off();
    await Promise.all([...this.loops.values()].map((loop) => loop.stop()));
  }

  async #kill(reason: string): Promise<void> {
    if (this.#phase !== 'trading') return;
    this.#phase = 'killed';
    this.#readyDetail = reason;
    this.metrics.killSwitch.set(1);
    this.#options.logger.fatal(
      { reason },
      'kill switch tripped: cancelling every order; the bot stays stopped until an operator restarts it',
    );
    // Placements queued or not signed yet are withdrawn at once, before the loops finish their rounds.
    for (const wallet of this.#options.wallets) wallet.engine.halt(`kill switch: ${reason}`);
    await this.#stopLoops();
    await routines.cancelEverything(this.#options.wallets, this.#options.logger, 120_000);
  }

  /** Graceful stop: no new quotes, cancel everything, wait for finality within the deadline. */
  async shutdown(deadlineMs: number): Promise<boolean> {
    this.#phase = 'stopping';
    // The recording says when trading stopped: a replay stops quoting at the same moment.
    for (const pair of this.#options.pairs)
      pair.record?.({ atMs: this.#options.clock.now(), stage: 'decided', type: 'shutdown' });
    for (const wallet of this.#options.wallets) wallet.engine.halt('shutting down');
    await this.#stopLoops();
    // After the kill switch too: its cancellations may still be in flight (a SIGTERM right after it tripped),
    // and whatever they left live is cancelled now; with nothing live this returns at once.
    await this.#killing;
    const started = this.#options.clock.now();
    const clean = await routines.cancelEverything(this.#options.wallets, this.#options.logger, deadlineMs);
    // Every outcome sent (cancellations that met a fill, approvals, placements withdrawn late) is settled
    // before the adapters close, within what is left of the deadline; what is not is named.
    const left = Math.max(0, deadlineMs - (this.#options.clock.now() - started));
    const settled = await routines.drainEverything(
      this.#options.wallets.map((wallet) => wallet.engine),
      this.#options.logger,
      left,
    );
    this.#options.obligations?.stop();
    for (const wallet of this.#options.wallets) await wallet.engine.stop();
    this.#phase = 'stopped';
    return clean && settled;
  }
}
