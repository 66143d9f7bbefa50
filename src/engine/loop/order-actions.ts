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
import { CHAIN_NODE, failureFields, isTransportFailure, type Incidents } from '../../telemetry/incidents.ts';
import type { RiskMonitor } from '../risk/monitor.ts';
import { OrderTradeCount, type OrderTradeLimits, type PlacementVerdict } from '../risk/order-trade.ts';
import { acquire, ThrottleEpisodes, type Throttle, type ThrottleVerdict } from '../risk/throttle.ts';
import type { WalletEngine } from '../wallet/wallet-engine.ts';
import type { LoopMetrics } from './loop-metrics.ts';
import type { VenueStatus } from '../../market/status.ts';

/** Refusals that say the book was not open for trading: the venue's state, not a failure of ours. */
const MARKET_NOT_OPEN = 'E_VENUE_MARKET_CLOSED';

/** A placement that would meet an order of another of our wallets: refused before signing, said once a spell. */
const SELF_TRADE = 'E_OWN_WALLETS_WOULD_TRADE';

/** Refusals that say nothing failed: the order changed meanwhile, the pair pauses, or we withdrew it. */
const NOT_A_FAILURE = new Set(['E_TRADING_PAUSED', 'E_ORDER_STATE', 'E_ORDER_WITHDRAWN', SELF_TRADE]);

/** A cancellation takes no place in a throttle: nothing to give back. */
const NOTHING_TAKEN = (): void => undefined;

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
  readonly #o: OrderActionsOptions;
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

  constructor(options: OrderActionsOptions) {
    this.#o = options;
  }

  /** Sends one action; true when a transaction left the process. A refusal is logged and counted, never thrown. */
  async send(action: QuoteAction, decision: Decision | null): Promise<boolean> {
    const o = this.#o;
    const { engine, pairId } = o;
    const terms =
      action.type === 'cancel'
        ? { side: action.side, orderId: action.orderId }
        : {
            side: action.quote.side,
            price: action.quote.price,
            quantity: action.quote.quantity,
            level: action.quote.level,
          };
    const record = (stage: RecordedAction['stage'], more: Partial<RecordedAction> = {}) =>
      o.record?.({ atMs: o.clock.now(), stage, type: action.type, ...terms, ...more });
    if (action.type !== 'keep') record('decided');
    this.#count.roll(toVenueLocal(o.clock.now()).date, o.fills());
    let release = NOTHING_TAKEN;
    if (action.type === 'place' || action.type === 'replace') {
      const placing = this.#mayPlace(action.type, record);
      if (placing === null) return false;
      release = placing;
    }
    try {
      if (action.type === 'cancel') {
        // A cancellation the chain refused (the order already filled, say) is settled by the order engine;
        // asking again at every recomputation would only repeat the refusal.
        for (const [id, at] of this.#cancelAsked)
          if (o.clock.now() - at >= CANCEL_RETRY_MS) this.#cancelAsked.delete(id);
        if (this.#cancelAsked.has(action.orderId)) return false;
        // Only a resting order can be cancelled; one still being placed is cancelled in a later round.
        const status = engine.order(BigInt(action.orderId))?.status;
        if (status === undefined || !isCancellable(status)) return false;
        this.#cancelAsked.set(action.orderId, o.clock.now());
        const cancelled = await engine.cancel(BigInt(action.orderId));
        record('sent', { txHash: cancelled.txHash });
        this.#counted(1);
      } else if (action.type === 'place' || action.type === 'replace') {
        const cmd = {
          pairId: o.venuePairId ?? pairId,
          side: action.quote.side,
          quantity: action.quote.quantity,
          price: action.quote.price,
          level: action.quote.level,
          ...(decision === null ? {} : { decision }),
        };
        const placed =
          action.type === 'place'
            ? await engine.place(cmd)
            : (await engine.replace(BigInt(action.orderId), cmd)).placed;
        // The throttle's place is given back once the transaction's outcome is known (or at once if none left).
        void placed.settled.then(release, release);
        const ids = { clientOrderId: placed.clientOrderId, txHash: placed.txHash };
        record('sent', ids);
        // A replacement is a placement and the cancellation of the order it replaces.
        this.#counted(action.type === 'replace' ? 2 : 1);
        // The outcome names its transaction too: a replay pairs each send with its outcome (the latency model).
        this.#watchOutcome(placed.settled, o.clock.now(), (stage, more) => record(stage, { ...ids, ...more }));
      } else return false;
      o.metrics.actions.inc({ pair: pairId, type: action.type, result: 'sent' });
      if (action.type !== 'cancel') this.#selfTradeSaid = false;
      o.incidents.succeeded('order actions', o.clock.now());
      return true;
    } catch (e) {
      release();
      const code = e instanceof DltError ? e.code : 'unexpected';
      record('refused', { detail: code });
      o.metrics.actions.inc({ pair: pairId, type: action.type, result: code });
      // The order changed status between the decision and the queue (a fill, a replacement's cancel): benign.
      if (code === 'E_ORDER_STATE' || code === 'E_ORDER_WITHDRAWN')
        o.logger.debug({ ...failureFields(e), pair: pairId, action: action.type }, 'order action no longer applies');
      else if (code === SELF_TRADE) this.#selfTrade(e);
      else o.incidents.failed(this.#kindOf(code), o.clock.now(), pairId, e, { action: action.type });
      if (code === MARKET_NOT_OPEN) this.#marketNotOpen();
      else if (isTransportFailure(code)) o.risk.transportFailed(pairId, o.clock.now());
      else if (!NOT_A_FAILURE.has(code)) o.risk.txFailed(pairId, o.clock.now(), code);
      return false;
    }
  }

  /**
   * A placement within the order-to-trade limits and the throttles: the place it took in the throttles (to give
   * back at its outcome), or null when it is held back (counted, and said once a spell).
   */
  #mayPlace(
    type: 'place' | 'replace',
    record: (stage: RecordedAction['stage'], more?: Partial<RecordedAction>) => void,
  ): (() => void) | null {
    const o = this.#o;
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
    return this.#count.slow(this.#o.limits()) ? base.mul(4) : base;
  }

  #counted(messages: number): void {
    this.#count.message(messages);
    this.#o.metrics.orderMessages.set({ pair: this.#o.pairId }, this.#count.messages);
    this.#o.metrics.orderToTrade.set({ pair: this.#o.pairId }, this.#count.ratio);
  }

  /** Says once when a limit starts holding placements back, and once when they go out again. */
  #hold(verdict: PlacementVerdict): void {
    const rule = verdict.ok ? null : verdict.rule;
    if (rule === this.#holding) return;
    this.#holding = rule;
    if (verdict.ok)
      this.#o.logger.info({ pair: this.#o.pairId }, 'placements go out again: within the order-to-trade limits');
    else
      this.#o.logger.warn(
        { pair: this.#o.pairId, rule: verdict.rule, detail: verdict.detail },
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
    const o = this.#o;
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
    this.#o.logger.warn(
      { ...failureFields(e), pair: this.#o.pairId },
      'placement refused before signing: it would trade with another of our wallets',
    );
  }

  /** A transport failure is the chain node's incident (the node fails, not the action); the rest the actions'. */
  #kindOf(code: string): string {
    return isTransportFailure(code) ? CHAIN_NODE[this.#o.engine.chain] : 'order actions';
  }

  #watchOutcome(
    settled: Promise<{
      status: string;
      orderId: bigint | null;
      rejection: { code: string | null; reason: string } | null;
    }>,
    sentMs: number,
    record: (stage: RecordedAction['stage'], more?: Partial<RecordedAction>) => void,
  ): void {
    const o = this.#o;
    const chain = o.engine.chain;
    settled.then(
      (order) => {
        o.metrics.inclusionLatency.observe({ chain }, (o.clock.now() - sentMs) / 1000);
        if (order.status === 'rejected')
          record('refused', { detail: order.rejection?.code ?? order.rejection?.reason ?? 'unknown' });
        else if (order.status !== 'unknown') record('included', { orderId: order.orderId });
        if (order.status === 'rejected' && order.rejection?.code === 'E_ORDER_WITHDRAWN') {
          o.metrics.actions.inc({ pair: o.pairId, type: 'place', result: 'withdrawn' });
        } else if (order.status === 'rejected') {
          const reason = order.rejection?.code ?? order.rejection?.reason ?? 'unknown';
          o.metrics.rejections.inc({ pair: o.pairId, reason });
          if (reason === MARKET_NOT_OPEN) this.#marketNotOpen();
          else if (isTransportFailure(reason)) o.risk.transportFailed(o.pairId, o.clock.now());
          else o.risk.txFailed(o.pairId, o.clock.now(), reason);
          // A node that failed the command before signing is the node's incident, not a line per order.
          if (isTransportFailure(reason))
            o.incidents.failed(this.#kindOf(reason), o.clock.now(), o.pairId, order.rejection, { action: 'place' });
          else o.logger.warn({ pair: o.pairId, reason, detail: order.rejection?.reason }, 'our order was rejected');
        } else {
          o.risk.txSucceeded(o.pairId);
        }
        o.onOutcome();
      },
      (e: unknown) => o.logger.warn({ err: e, pair: o.pairId }, 'following an order outcome failed'),
    );
  }

  /**
   * The book refused an order as not open (a halt or close got there first): a whole round of placements can
   * meet it, and counting each as a failure would stop the pair for good. Back off and read the phase now.
   */
  #marketNotOpen(): void {
    this.#o.risk.marketNotOpen(this.#o.pairId, this.#o.clock.now());
    void this.#o.status.refreshPhase();
  }
}
