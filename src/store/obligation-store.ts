/**
 * What the obligation measure and the trading-day report read back: our quotes as the chain showed them
 * (an order of ours rests from its inclusion until its cancel's inclusion or its last fill), the market states
 * the bot observed, the bot's runs (so that downtime counts as absence), exceptional-circumstance and
 * stressed-market windows the operator declared, periodic samples of each pair, each pair's terms, and the
 * breaches a limit forced.
 */
import type { Interval, MarketObservation, MarketState, QuoteSpan } from '../core/obligations.ts';
import type { Db } from './database.ts';
import {
  breachOf,
  observationOf,
  openQuoteOf,
  windowOf,
  type Breach,
  type ObligationWindow,
  type OpenQuote,
  type QuoteEnd,
  type QuoteRest,
  type Row,
} from './obligation-rows.ts';
import { quoteSpans } from './quote-spans.ts';
import { reportPairOf, sampleOf, type PairSample, type ReportPair } from './report-rows.ts';

export type { Breach, ObligationWindow, OpenQuote, QuoteEnd, QuoteRest, WindowKind } from './obligation-rows.ts';
export type { PairSample, ReportPair } from './report-rows.ts';

export class ObligationStore {
  readonly #db: Db;
  readonly #now: () => number;

  constructor(db: Db, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  // --- quotes --------------------------------------------------------------------------------------------

  /** An order of ours rests (its first `OrderResting`); a second report of the same order changes nothing. */
  rested(rest: QuoteRest): void {
    this.#db
      .prepare(
        `INSERT INTO quote_spans (chain, wallet, pair_id, order_id, side, price, quantity, rest_ms, rest_height)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      )
      .run(
        rest.chain,
        rest.wallet,
        rest.pairId,
        rest.orderId.toString(),
        rest.side,
        rest.price.toString(),
        rest.quantity.toString(),
        rest.atMs,
        rest.height.toString(),
      );
  }

  /** The order left the book; only the first end counts. */
  ended(end: QuoteEnd): void {
    this.#db
      .prepare(
        'UPDATE quote_spans SET end_ms = ?, end_height = ?, end_kind = ? WHERE chain = ? AND wallet = ? AND pair_id = ? AND order_id = ? AND end_ms IS NULL',
      )
      .run(
        end.atMs,
        end.height?.toString() ?? null,
        end.kind,
        end.chain,
        end.wallet,
        end.pairId,
        end.orderId.toString(),
      );
  }

  /** Quotes that rested and have not ended (as far as recorded). */
  open(pairId?: string): OpenQuote[] {
    return this.#db
      .prepare(
        pairId === undefined
          ? 'SELECT * FROM quote_spans WHERE end_ms IS NULL ORDER BY rest_ms'
          : 'SELECT * FROM quote_spans WHERE pair_id = ? AND end_ms IS NULL ORDER BY rest_ms',
      )
      .all(...(pairId === undefined ? [] : [pairId]))
      .map((row) => openQuoteOf(row as Row));
  }

  /**
   * Our quotes on `pairId` that rested at some time in `[from, to)`, one span per size: a maker fill that
   * leaves something ends one span and starts the next with what is left. A quote not ended yet runs to `to`.
   */
  spans(pairId: string, from: number, to: number): QuoteSpan[] {
    return quoteSpans(this.#db, pairId, from, to);
  }

  // --- market states and runs ----------------------------------------------------------------------------

  recordMarket(pairId: string, atMs: number, state: MarketState, detail: string): void {
    this.#db
      .prepare('INSERT INTO market_states (pair_id, at_ms, state, detail) VALUES (?, ?, ?, ?)')
      .run(pairId, atMs, state, detail);
  }

  /** Observations in `[from, to)`, preceded by the last one before `from`. */
  market(pairId: string, from: number, to: number): Array<MarketObservation & { detail: string }> {
    const map = observationOf;
    const before = this.#db
      .prepare('SELECT * FROM market_states WHERE pair_id = ? AND at_ms < ? ORDER BY at_ms DESC, id DESC LIMIT 1')
      .get(pairId, from);
    const within = this.#db
      .prepare('SELECT * FROM market_states WHERE pair_id = ? AND at_ms >= ? AND at_ms < ? ORDER BY at_ms, id')
      .all(pairId, from, to);
    return [...(before === undefined ? [] : [map(before)]), ...within.map(map)];
  }

  startRun(atMs: number): number {
    return Number(
      this.#db.prepare('INSERT INTO runs (started_ms, alive_ms) VALUES (?, ?)').run(atMs, atMs).lastInsertRowid,
    );
  }

  alive(id: number, atMs: number): void {
    this.#db.prepare('UPDATE runs SET alive_ms = ? WHERE id = ? AND alive_ms < ?').run(atMs, id, atMs);
  }

  stopRun(id: number, atMs: number): void {
    this.#db.prepare('UPDATE runs SET alive_ms = MAX(alive_ms, ?), stopped_ms = ? WHERE id = ?').run(atMs, atMs, id);
  }

  /** Runs overlapping `[from, to)`: from their start to their stop (or their last sign of life). */
  runs(from: number, to: number): Interval[] {
    return this.#db
      .prepare(
        'SELECT started_ms, COALESCE(stopped_ms, alive_ms) AS end_ms FROM runs WHERE started_ms < ? AND COALESCE(stopped_ms, alive_ms) > ? ORDER BY started_ms',
      )
      .all(to, from)
      .map((row) => ({ from: Number((row as Row).started_ms), to: Number((row as Row).end_ms) }));
  }

  firstRunMs(): number | null {
    const first = this.#db.prepare('SELECT MIN(started_ms) AS t FROM runs').get() as { t: number | null };
    return first.t === null ? null : Number(first.t);
  }

  // --- declared windows ----------------------------------------------------------------------------------

  declare(window: Omit<ObligationWindow, 'id' | 'declaredMs'>): ObligationWindow {
    const declaredMs = this.#now();
    const id = Number(
      this.#db
        .prepare(
          'INSERT INTO obligation_windows (kind, pair_id, from_ms, to_ms, reason, source, declared_ms) VALUES (?, ?, ?, ?, ?, ?, ?)',
        )
        .run(window.kind, window.pairId, window.fromMs, window.toMs, window.reason, window.source, declaredMs)
        .lastInsertRowid,
    );
    return { ...window, id, declaredMs };
  }

  /** Ends a window at `atMs` (an open one, or one planned to last longer); null when there is no such window. */
  endWindow(id: number, atMs: number): ObligationWindow | null {
    const declared = this.window(id);
    if (declared === null) return null;
    if (declared.toMs !== null && declared.toMs <= atMs) return declared;
    this.#db.prepare('UPDATE obligation_windows SET to_ms = ? WHERE id = ?').run(Math.max(atMs, declared.fromMs), id);
    return this.window(id);
  }

  window(id: number): ObligationWindow | null {
    const row = this.#db.prepare('SELECT * FROM obligation_windows WHERE id = ?').get(id);
    return row === undefined ? null : windowOf(row as Row);
  }

  /** Windows overlapping `[from, to)` that apply to `pairId` (its own and those of every pair); all pairs without one. */
  windows(from: number, to: number, pairId?: string): ObligationWindow[] {
    return this.#db
      .prepare(
        `SELECT * FROM obligation_windows WHERE from_ms < ? AND (to_ms IS NULL OR to_ms > ?)
           AND (? IS NULL OR pair_id IS NULL OR pair_id = ?) ORDER BY from_ms, id`,
      )
      .all(to, from, pairId ?? null, pairId ?? null)
      .map((row) => windowOf(row as Row));
  }

  // --- samples, pairs, breaches --------------------------------------------------------------------------

  addSample(sample: PairSample): void {
    this.#db
      .prepare(
        `INSERT INTO pair_samples (pair_id, at_ms, mark, value, position, realised, unrealised, fees, bid, ask, spread_bps, max_spread_bps, compliant, presence)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      )
      .run(
        sample.pairId,
        sample.atMs,
        sample.mark,
        sample.value,
        sample.position,
        sample.realised,
        sample.unrealised,
        sample.fees,
        sample.bid,
        sample.ask,
        sample.spreadBps,
        sample.maxSpreadBps,
        sample.compliant === null ? null : sample.compliant ? 1 : 0,
        sample.presence,
      );
  }

  samples(pairId: string, from: number, to: number): PairSample[] {
    return this.#db
      .prepare('SELECT * FROM pair_samples WHERE pair_id = ? AND at_ms >= ? AND at_ms < ? ORDER BY at_ms')
      .all(pairId, from, to)
      .map((row) => sampleOf(row as Row));
  }

  savePair(pair: Omit<ReportPair, 'updatedMs'>): void {
    this.#db
      .prepare(
        `INSERT INTO report_pairs (pair_id, symbol, chain, wallet, scales_json, obligations_json, calendar_json, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (pair_id) DO UPDATE SET symbol = excluded.symbol, chain = excluded.chain, wallet = excluded.wallet, scales_json = excluded.scales_json,
           obligations_json = excluded.obligations_json, calendar_json = excluded.calendar_json, updated_ms = excluded.updated_ms`,
      )
      .run(
        pair.pairId,
        pair.symbol,
        pair.chain,
        pair.wallet,
        JSON.stringify(pair.scales),
        pair.obligations === null || pair.obligations === undefined ? null : JSON.stringify(pair.obligations),
        JSON.stringify(pair.calendar),
        this.#now(),
      );
  }

  pairs(): ReportPair[] {
    return this.#db
      .prepare('SELECT * FROM report_pairs ORDER BY pair_id')
      .all()
      .map((row) => reportPairOf(row as Row));
  }

  openBreach(pairId: string, limit: string, detail: string, atMs: number): number {
    return Number(
      this.#db
        .prepare('INSERT INTO obligation_breaches (pair_id, limit_name, detail, started_ms) VALUES (?, ?, ?, ?)')
        .run(pairId, limit, detail, atMs).lastInsertRowid,
    );
  }

  closeBreach(id: number, atMs: number): void {
    this.#db.prepare('UPDATE obligation_breaches SET ended_ms = ? WHERE id = ? AND ended_ms IS NULL').run(atMs, id);
  }

  /** Breaches that were open at some time in `[from, to)`, of one pair or all. */
  breaches(from: number, to: number, pairId?: string): Breach[] {
    return this.#db
      .prepare(
        'SELECT * FROM obligation_breaches WHERE started_ms < ? AND (ended_ms IS NULL OR ended_ms > ?) AND (? IS NULL OR pair_id = ?) ORDER BY started_ms, id',
      )
      .all(to, from, pairId ?? null, pairId ?? null)
      .map((row) => breachOf(row as Row));
  }
}
