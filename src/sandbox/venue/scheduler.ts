/**
 * The trading status of every pair over time, and the contract phases that follow it. In `calendar` mode the
 * trading calendar (08:00-17:00 Europe/Berlin on trading days, `src/core/calendar.ts`) opens the books
 * (`START_OF_TRADING_DAY`, halt counter reset), closes them (`END_OF_TRADING_DAY`; the static reference price
 * becomes the last execution price, on the contract too) and clears the day's orders a few minutes later
 * (`clearOrders`: GFD orders cancelled `ByContract`). In `always-open` mode the books open once and stay open.
 *
 * Automatic halts are the books' own doing: a volatility rejection moves a book to its automatic-halt phase;
 * the indexer reports the rejection, the scheduler reads the phase and, when halted, records
 * `AUTOMATIC_TRADING_HALT` and schedules the resume (first halt of the day: the first pause, later halts:
 * the second pause; in calendar mode only when the halt came more than the cut-off before the close).
 *
 * Calendar boundaries are acted on when they are crossed, between the previous tick and this one (a manual
 * open at night stays open until the next close), in time order, however far the clock jumped. Every change
 * goes through one queue, so chain operations never interleave.
 */
import type { Logger } from 'pino';
import { DltError } from '../../core/errors.ts';
import { isWithinTradingHours, nextSession, type CalendarConfig } from '../../core/calendar.ts';
import { priceFromRaw } from '../../core/units.ts';
import type { StatusReason, TradingStatus, VenuePair, VenueState } from '../api/venue-state.ts';
import type { Phase } from '../matching/types.ts';
import type { BookOperator } from './book-operator.ts';

export type TradingMode = 'always-open' | 'calendar';

export interface SchedulerOptions {
  readonly state: VenueState;
  readonly operators: ReadonlyMap<string, BookOperator>;
  nowMs(): number;
  readonly mode: TradingMode;
  readonly calendar: CalendarConfig;
  readonly firstHaltPauseMs: number;
  readonly secondHaltPauseMs: number;
  /** No automatic resume for a halt this close to the close (or closer). */
  readonly resumeCutoffMs: number;
  /** Wall milliseconds between ticks. */
  readonly tickMs: number;
  readonly logger?: Logger;
}

type Agenda =
  | { readonly at: number; readonly kind: 'open' | 'close' | 'clearing' }
  | { readonly at: number; readonly kind: 'resume'; readonly pairId: string };

export class TradingScheduler {
  readonly #options: SchedulerOptions;
  readonly #resumeAt = new Map<string, number>();
  #queue: Promise<unknown> = Promise.resolve();
  #lastTick = 0;
  #timer: NodeJS.Timeout | undefined;
  /** Clearing runs done, for the status endpoint and tests. */
  clearings = 0;

  constructor(options: SchedulerOptions) {
    this.#options = options;
    for (const p of options.state.pairs)
      p.market.listen({ volatility: (id) => void this.#enqueue(() => this.#onVolatility(id)).catch(() => undefined) });
  }

  /** Sets every book to the status its mode and the calendar call for now, then ticks on a timer. */
  async start(): Promise<void> {
    const now = this.#options.nowMs();
    this.#lastTick = now;
    const open = this.#options.mode === 'always-open' || isWithinTradingHours(now, this.#options.calendar);
    await this.#enqueue(() =>
      Promise.all(
        this.#options.state.pairs.map((p) =>
          open
            ? this.#change(p, 'open', 'CONTINUOUS_TRADING', 'START_OF_TRADING_DAY', now, { tradingHaltCounter: 0 })
            : this.#change(p, 'closed', 'OUT_OF_TRADING', 'END_OF_TRADING_DAY', now),
        ),
      ),
    );
    this.#timer = setInterval(
      () => void this.tick().catch((e: unknown) => this.#options.logger?.warn({ err: e }, 'scheduler tick failed')),
      this.#options.tickMs,
    );
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#queue.catch(() => undefined);
  }

  /** Acts on every calendar boundary and resume that fell due since the last tick. */
  tick(): Promise<void> {
    return this.#enqueue(() => this.#tick());
  }

  resumeAt(pairId: string): number | undefined {
    return this.#resumeAt.get(pairId);
  }

  open(pairId: string): Promise<void> {
    return this.#enqueue(() => this.#manual(pairId, 'open', 'CONTINUOUS_TRADING', 'MANUAL_MARKET_OPEN'));
  }

  close(pairId: string): Promise<void> {
    return this.#enqueue(() => this.#manual(pairId, 'closed', 'OUT_OF_TRADING', 'MANUAL_MARKET_CLOSE'));
  }

  halt(pairId: string): Promise<void> {
    return this.#enqueue(() => this.#manual(pairId, 'manualHalt', 'MANUAL_TRADING_HALT', 'VENUE_INITIATED_HALT'));
  }

  /** Ends a manual or automatic halt at once. */
  resume(pairId: string): Promise<void> {
    return this.#enqueue(async () => {
      const p = this.#pair(pairId);
      if (p.status.tradingStatus !== 'MANUAL_TRADING_HALT' && p.status.tradingStatus !== 'AUTOMATIC_TRADING_HALT') {
        throw new DltError('E_SANDBOX', `pair ${pairId} is ${p.status.tradingStatus}, not halted`, {
          details: { part: 'scheduler', conflict: true },
        });
      }
      await this.#manual(pairId, 'open', 'CONTINUOUS_TRADING', 'MANUAL_MARKET_OPEN');
    });
  }

  /** Runs the end-of-day clearing now on one pair or all. */
  clear(pairId?: string): Promise<void> {
    return this.#enqueue(() => this.#clearing(pairId === undefined ? this.#options.state.pairs : [this.#pair(pairId)]));
  }

  #enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #pair(pairId: string): VenuePair {
    const p = this.#options.state.pair(pairId);
    if (p === undefined)
      throw new DltError('E_SANDBOX', `no pair ${pairId}`, { details: { part: 'scheduler', notFound: true } });
    return p;
  }

  #operator(p: VenuePair): BookOperator {
    const op = this.#options.operators.get(p.id);
    if (op === undefined)
      throw new DltError('E_SANDBOX', `no operator for pair ${p.id}`, { details: { part: 'scheduler' } });
    return op;
  }

  async #change(
    p: VenuePair,
    phase: Phase,
    status: TradingStatus,
    reason: StatusReason,
    at: number,
    extra: { tradingHaltCounter?: number } = {},
  ): Promise<void> {
    await this.#operator(p).setPhase(phase);
    this.#options.state.setStatus(p.id, {
      phase,
      tradingStatus: status,
      statusChangeReason: reason,
      changedAtMs: at,
      ...extra,
    });
    this.#options.logger?.info({ pair: p.id, status, reason }, 'trading status changed');
  }

  async #manual(pairId: string, phase: Phase, status: TradingStatus, reason: StatusReason): Promise<void> {
    const p = this.#pair(pairId);
    this.#resumeAt.delete(p.id);
    await this.#change(p, phase, status, reason, this.#options.nowMs());
  }

  #agenda(from: number, to: number): Agenda[] {
    const out: Agenda[] = [];
    if (this.#options.mode === 'calendar') {
      // Starting one clearing delay back keeps a session whose close has passed but whose clearing has not.
      const back = this.#options.calendar.clearingDelayMinutes * 60_000;
      for (
        let s = nextSession(from - back, this.#options.calendar);
        s.openMs <= to;
        s = nextSession(s.closeMs, this.#options.calendar)
      ) {
        for (const [kind, at] of [
          ['open', s.openMs],
          ['close', s.closeMs],
          ['clearing', s.clearingMs],
        ] as const) {
          if (at > from && at <= to) out.push({ at, kind });
        }
      }
    }
    for (const [pairId, at] of this.#resumeAt) if (at <= to) out.push({ at, kind: 'resume', pairId });
    return out.toSorted((a, b) => a.at - b.at);
  }

  async #tick(): Promise<void> {
    const now = this.#options.nowMs();
    const from = this.#lastTick;
    if (now <= from) return;
    for (const item of this.#agenda(from, now)) {
      const pairs = this.#options.state.pairs;
      if (item.kind === 'open') await Promise.all(pairs.map((p) => this.#dayOpen(p, item.at)));
      else if (item.kind === 'close') await Promise.all(pairs.map((p) => this.#dayClose(p, item.at)));
      else if (item.kind === 'clearing') await this.#clearing(pairs);
      else if ('pairId' in item) await this.#autoResume(item.pairId, item.at);
    }
    this.#lastTick = now;
  }

  async #dayOpen(p: VenuePair, at: number): Promise<void> {
    const s = p.status.tradingStatus;
    if (s === 'OUT_OF_TRADING' || s === 'AUTOMATIC_TRADING_HALT') {
      this.#resumeAt.delete(p.id);
      await this.#change(p, 'open', 'CONTINUOUS_TRADING', 'START_OF_TRADING_DAY', at, { tradingHaltCounter: 0 });
    } else {
      this.#options.state.setStatus(p.id, { tradingHaltCounter: 0 });
    }
  }

  async #dayClose(p: VenuePair, at: number): Promise<void> {
    const s = p.status.tradingStatus;
    if (s !== 'CONTINUOUS_TRADING' && s !== 'AUTOMATIC_TRADING_HALT') return;
    this.#resumeAt.delete(p.id);
    const op = this.#operator(p);
    const last = await op.readLastPrice();
    await op.setStaticReferencePrice(last);
    this.#options.state.setStatus(p.id, { staticReferencePrice: priceFromRaw(last, p.scales) });
    await this.#change(p, 'closed', 'OUT_OF_TRADING', 'END_OF_TRADING_DAY', at);
  }

  async #clearing(pairs: readonly VenuePair[]): Promise<void> {
    await Promise.all(pairs.map((p) => this.#operator(p).clearOrders()));
    this.clearings += 1;
    this.#options.logger?.info({ pairs: pairs.map((p) => p.id) }, 'day orders cleared');
  }

  async #autoResume(pairId: string, at: number): Promise<void> {
    this.#resumeAt.delete(pairId);
    const p = this.#pair(pairId);
    if (p.status.tradingStatus !== 'AUTOMATIC_TRADING_HALT') return;
    await this.#change(p, 'open', 'CONTINUOUS_TRADING', 'AUTOMATIC_RESUME', at);
  }

  async #onVolatility(pairId: string): Promise<void> {
    const p = this.#pair(pairId);
    if (p.status.tradingStatus !== 'CONTINUOUS_TRADING') return;
    const phase = await this.#operator(p).readPhase();
    if (phase !== 'automaticHalt') return;
    const now = this.#options.nowMs();
    const count = p.status.tradingHaltCounter + 1;
    this.#options.state.setStatus(p.id, {
      phase,
      tradingStatus: 'AUTOMATIC_TRADING_HALT',
      statusChangeReason: 'VOLATILITY_HALT',
      changedAtMs: now,
      tradingHaltCounter: count,
    });
    const pause = count === 1 ? this.#options.firstHaltPauseMs : this.#options.secondHaltPauseMs;
    const calendarAllows =
      this.#options.mode === 'always-open' ||
      nextSession(now, this.#options.calendar).closeMs - now > this.#options.resumeCutoffMs;
    if (calendarAllows) this.#resumeAt.set(p.id, now + pause);
    this.#options.logger?.info(
      { pair: p.id, count, resumeInMs: calendarAllows ? pause : null },
      'automatic trading halt',
    );
  }
}
