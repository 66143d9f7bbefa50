/**
 * Sending a pair's actions to its wallet's engine and following what became of them: a cancellation the
 * chain refused is not asked for again at once, a placement's outcome is counted and fed to the risk gate, and
 * a refusal is logged and counted, never thrown. A book that refused an order as not open backs the pair off
 * and has its phase read again. Every message sent is counted against the pair's order-to-trade limits
 * (`risk/order-trade.ts`): a placement they hold back is not sent, said once when the holding starts and ends.
 */
import { toVenueLocal } from '../../core/calendar.ts';
import type { Clock } from '../../core/clock.ts';
import type { Decimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import { isCancellable } from '../../core/order-state.ts';
import type { QuoteAction } from '../../strategy/types.ts';
import type { RecordedAction } from '../recording/recorder.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { failureFields, isTransportFailure, type Incidents } from '../../telemetry/incidents.ts';
import type { RiskMonitor } from '../risk/monitor.ts';
import { OrderTradeCount, type OrderTradeLimits, type PlacementVerdict } from '../risk/order-trade.ts';
import { acquire, ThrottleEpisodes, type Throttle, type ThrottleVerdict } from '../risk/throttle.ts';
import type { WalletEngine } from '../wallet/wallet-engine.ts';
import type { LoopMetrics } from './loop-metrics.ts';
import { kindOf, MARKET_NOT_OPEN, watchOutcome, type OutcomeWatch, type Recorder } from './outcome-watch.ts';
import type { VenueStatus } from '../../market/status.ts';

/** A placement that would meet an order of another of our wallets: refused before signing, said once a spell. */
const SELF_TRADE = 'E_OWN_WALLETS_WOULD_TRADE';

/** Refusals that say nothing failed: the order changed meanwhile, the pair pauses, or we withdrew it. */
const NOT_A_FAILURE = new Set(['E_TRADING_PAUSED', 'E_ORDER_STATE', 'E_ORDER_WITHDRAWN', SELF_TRADE]);

/** An action not handed over: refused at once, held back, or nothing to send. */
const NOT_HANDED: Handed = { accepted: false, sent: Promise.resolve(false) };

/** What became of an action: `accepted` once handed to the wallet (a cancellation: sent); `sent` resolves true
 * once its transaction left the process, false if it never did. */
export interface Handed {
  readonly accepted: boolean;
  readonly sent: Promise<boolean>;
}

/** The shortest pause before the same order's cancellation is asked for again. */
export const CANCEL_RETRY_MS = 10_000;

export type { RecordedAction } from '../recording/recorder.ts';

/** The decision a placement is recorded with. */
export type Decision = NonNullable<Parameters<WalletEngine['place']>[0]['decision']>;

export interface OrderActionsOptions {
  /** The pair's loop as the risk monitor, metrics and logs know it (see `PairLoop.key`). */
  readonly pairId: string;
  /** The venue's pair id, when the loop goes by another name. */
  readonly venuePairId?: string;
  readonly engine: WalletEngine;
  readonly status: Pick<VenueStatus, 'refreshPhase'>;
  readonly risk: RiskMonitor;
  readonly clock: Pick<Clock, 'now' | 'setTimer'>;
  readonly logger: Logger;
  /** The placement throttles of the pair's wallet and of the pair (`risk/throttle.ts`). */
  readonly throttles?: readonly Throttle[];
  readonly metrics: LoopMetrics;
  readonly incidents: Incidents;
  /** The pair's fills so far (all days) and its order-to-trade limits. */
  readonly fills: () => number;
  readonly limits: () => OrderTradeLimits;
  /** A placement's outcome is known: the pair is worth another look. */
  readonly onOutcome: () => void;
  /** Each action decided, sent, included or refused (the recording). */
  readonly record?: (a: RecordedAction) => void;
}

export class OrderActions {
  readonly #options: OrderActionsOptions;
  /** When we last asked to cancel each order: a cancel the chain refused is not repeated at once. */
  readonly #cancelAsked = new Map<string, number>();
  readonly #count = new OrderTradeCount();
  /** The rule holding placements back, while one does. */
  #holding: string | null = null;
  readonly #throttled = new ThrottleEpisodes();
  /** Whether the refusal of a placement that would meet another of our wallets was said since one last went out. */
  #selfTradeSaid = false;
  /** A round is due when the second's window lets a throttled placement through. */
  #retry: ReturnType<Clock['setTimer']> | null = null;
  readonly #watch: OutcomeWatch;

  constructor(options: OrderActionsOptions) {
    this.#options = options;
    this.#watch = { ...options, marketNotOpen: () => this.#marketNotOpen() };
  }

  /**
   * Sends one action. A cancellation is awaited until it has left the process; a placement is handed to the
   * wallet (recorded as intended and queued) and the round goes on: its recording as sent, the throttle's
   * release at its outcome, its count against the order-to-trade limits and its metrics follow when its
   * transaction leaves (or is refused). A refusal is logged and counted, never thrown.
   */
  async send(action: QuoteAction, decision: Decision | null): Promise<Handed> {
    const o = this.#options;
    const terms =
      action.type === 'cancel'
        ? { side: action.side, orderId: action.orderId }
        : {
            side: action.quote.side,
            price: action.quote.price,
            quantity: action.quote.quantity,
            level: action.quote.level,
          };
    const record: Recorder = (stage, more = {}) =>
      o.record?.({ atMs: o.clock.now(), stage, type: action.type, ...terms, ...more });
    if (action.type !== 'keep') record('decided');
    this.#count.roll(toVenueLocal(o.clock.now()).date, o.fills());
    if (action.type === 'cancel') {
      const sent = await this.#cancel(action.orderId, record);
      return { accepted: sent, sent: Promise.resolve(sent) };
    }
    if (action.type === 'keep') return NOT_HANDED;
    const release = this.#mayPlace(action.type, record);
    if (release === null) return NOT_HANDED;
    const cmd = {
      pairId: o.venuePairId ?? o.pairId,
      side: action.quote.side,
      quantity: action.quote.quantity,
      price: action.quote.price,
      level: action.quote.level,
      ...(decision === null ? {} : { decision }),
    };
    let handed;
    try {
      handed = action.type === 'place' ? o.engine.handOver(cmd) : o.engine.handOverReplace(BigInt(action.orderId), cmd);
    } catch (e) {
      release();
      this.#refused(action.type, e, record);
      return NOT_HANDED;
    }
    const sent = handed.sent.then(
      (placed) => {
        // The throttle's place is given back once the transaction's outcome is known (or at once if none left).
        void placed.settled.then(release, release);
        const ids = { clientOrderId: placed.clientOrderId, txHash: placed.txHash };
        record('sent', ids);
        // A replacement is a placement and the cancellation of the order it replaces.
        this.#counted(action.type === 'replace' ? 2 : 1);
        // The outcome names its transaction too: a replay pairs each send with its outcome (the latency model).
        watchOutcome(this.#watch, placed.settled, o.clock.now(), (stage, more) => record(stage, { ...ids, ...more }));
        this.#succeeded(action.type);
        return true;
      },
      (e: unknown) => {
        release();
        this.#refused(action.type, e, record);
        return false;
      },
    );
    return { accepted: true, sent };
  }

  async #cancel(orderId: string, record: Recorder): Promise<boolean> {
    const o = this.#options;
    // A cancellation the chain refused (the order already filled, say) is settled by the order engine;
    // asking again at every recomputation would only repeat the refusal.
    for (const [id, at] of this.#cancelAsked) if (o.clock.now() - at >= CANCEL_RETRY_MS) this.#cancelAsked.delete(id);
    if (this.#cancelAsked.has(orderId)) return false;
    // Only a resting order can be cancelled; one still being placed is cancelled in a later round.
    const status = o.engine.order(BigInt(orderId))?.status;
    if (status === undefined || !isCancellable(status)) return false;
    this.#cancelAsked.set(orderId, o.clock.now());
    try {
      const cancelled = await o.engine.cancel(BigInt(orderId));
      record('sent', { txHash: cancelled.txHash });
      this.#counted(1);
    } catch (e) {
      this.#refused('cancel', e, record);
      return false;
    }
    this.#succeeded('cancel');
    return true;
  }

  #succeeded(type: QuoteAction['type']): void {
    const o = this.#options;
    o.metrics.actions.inc({ pair: o.pairId, type, result: 'sent' });
    if (type !== 'cancel') this.#selfTradeSaid = false;
    o.incidents.succeeded('order actions', o.clock.now());
  }

  /** An action refused (before it was queued, or after): logged and counted, its consequence for the pair drawn. */
  #refused(type: QuoteAction['type'], e: unknown, record: Recorder): void {
    const o = this.#options;
    const pairId = o.pairId;
    const code = e instanceof DltError ? e.code : 'unexpected';
    record('refused', { detail: code });
    o.metrics.actions.inc({ pair: pairId, type, result: code });
    // The order changed status between the decision and the queue (a fill, a replacement's cancel): benign.
    if (code === 'E_ORDER_STATE' || code === 'E_ORDER_WITHDRAWN')
      o.logger.debug({ ...failureFields(e), pair: pairId, action: type }, 'order action no longer applies');
    else if (code === SELF_TRADE) this.#selfTrade(e);
    else o.incidents.failed(kindOf(o.engine.chain, code), o.clock.now(), pairId, e, { action: type });
    if (code === MARKET_NOT_OPEN) this.#marketNotOpen();
    else if (isTransportFailure(code)) o.risk.transportFailed(pairId, o.clock.now());
    else if (!NOT_A_FAILURE.has(code)) o.risk.txFailed(pairId, o.clock.now(), code);
  }

  /**
   * A placement within the order-to-trade limits and the throttles: the place it took in the throttles (to give
   * back at its outcome), or null when it is held back (counted, and said once a spell).
   */
  #mayPlace(type: 'place' | 'replace', record: Recorder): (() => void) | null {
    const o = this.#options;
    const verdict = this.#count.placement(o.limits(), o.engine.liveOrders(o.venuePairId ?? o.pairId).length);
    this.#hold(verdict);
    if (!verdict.ok) {
      record('refused', { detail: verdict.rule });
      o.metrics.actions.inc({ pair: o.pairId, type, result: verdict.rule });
      return null;
    }
    const place = acquire(o.throttles ?? [], o.clock.now());
    if (!place.ok) {
      this.#throttle(place);
      o.metrics.actions.inc({ pair: o.pairId, type, result: `throttled-${place.scope}-${place.rule}` });
      return null;
    }
    const ended = this.#throttled.passed(o.clock.now());
    if (ended !== null) o.logger.info({ pair: o.pairId }, ended);
    return place.release;
  }

  /** The refresh cost the strategy weighs a replacement with: four times as much near the ratio limit. */
  refreshCost(base: Decimal): Decimal {
    return this.#count.slow(this.#options.limits()) ? base.mul(4) : base;
  }

  #counted(messages: number): void {
    this.#count.message(messages);
    this.#options.metrics.orderMessages.set({ pair: this.#options.pairId }, this.#count.messages);
    this.#options.metrics.orderToTrade.set({ pair: this.#options.pairId }, this.#count.ratio);
  }

  /** Says once when a limit starts holding placements back, and once when they go out again. */
  #hold(verdict: PlacementVerdict): void {
    const rule = verdict.ok ? null : verdict.rule;
    if (rule === this.#holding) return;
    this.#holding = rule;
    if (verdict.ok)
      this.#options.logger.info(
        { pair: this.#options.pairId },
        'placements go out again: within the order-to-trade limits',
      );
    else
      this.#options.logger.warn(
        { pair: this.#options.pairId, rule: verdict.rule, detail: verdict.detail },
        `placements held back by ${verdict.rule}: ${verdict.detail}`,
      );
  }

  /** What holds the pair's placements back now, if anything (the board). */
  get held(): string | null {
    if (this.#holding !== null) return `held by ${this.#holding}`;
    const rule = this.#throttled.rule;
    return rule === null ? null : `throttled (${rule})`;
  }

  /** A throttled placement: said once per episode; with a per-second limit, a round when the window allows. */
  #throttle(refused: Exclude<ThrottleVerdict, { ok: true }>): void {
    const o = this.#options;
    const line = this.#throttled.held(o.clock.now(), refused);
    if (line !== null) o.logger.warn({ pair: o.pairId, scope: refused.scope, rule: refused.rule }, line);
    if (refused.retryAtMs !== null && this.#retry === null)
      this.#retry = o.clock.setTimer(
        () => {
          this.#retry = null;
          o.onOutcome();
        },
        Math.max(0, refused.retryAtMs - o.clock.now()),
      );
  }

  #selfTrade(e: unknown): void {
    if (this.#selfTradeSaid) return;
    this.#selfTradeSaid = true;
    this.#options.logger.warn(
      { ...failureFields(e), pair: this.#options.pairId },
      'placement refused before signing: it would trade with another of our wallets',
    );
  }

  /**
   * The book refused an order as not open (a halt or close got there first): a whole round of placements can
   * meet it, and counting each as a failure would stop the pair for good. Back off and read the phase now.
   */
  #marketNotOpen(): void {
    this.#options.risk.marketNotOpen(this.#options.pairId, this.#options.clock.now());
    void this.#options.status.refreshPhase();
  }
}
