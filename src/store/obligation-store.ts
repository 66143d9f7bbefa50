/**
 * What the obligation measure and the trading-day report read back: our quotes as the chain showed them
 * (an order of ours rests from its inclusion until its cancel's inclusion or its last fill), the market states
 * the bot observed, the bot's runs (so that downtime counts as absence), exceptional-circumstance and
 * stressed-market windows the operator declared, periodic samples of each pair, each pair's terms, and the
 * breaches a limit forced.
 */
import type { Interval, MarketObservation, MarketState, QuoteSpan } from '../core/obligations.ts';
import type { Side } from '../core/order-terms.ts';
import { isTerminal, type OrderStatus } from '../core/order-state.ts';
import type { Db } from './database.ts';
import type { PairSample, ReportPair } from './report-rows.ts';

export type { PairSample, ReportPair } from './report-rows.ts';

type Chain = 'evm' | 'wasm';

export interface QuoteRest {
  readonly chain: Chain;
  readonly wallet: string;
  readonly pairId: string;
  readonly orderId: bigint;
  readonly side: Side;
  readonly price: bigint;
  /** Quantity that rested (after any fill at placement). */
  readonly quantity: bigint;
  readonly atMs: number;
  readonly height: bigint;
}

export interface QuoteEnd {
  readonly chain: Chain;
  readonly wallet: string;
  readonly pairId: string;
  readonly orderId: bigint;
  readonly atMs: number;
  readonly height: bigint | null;
  /** `cancel`: its cancellation's inclusion; `filled`: its last fill; `store`: the store's record (no chain event seen). */
  readonly kind: 'cancel' | 'filled' | 'store';
}

export interface OpenQuote {
  readonly chain: Chain;
  readonly wallet: string;
  readonly pairId: string;
  readonly orderId: bigint;
  readonly side: Side;
  readonly price: bigint;
  readonly quantity: bigint;
  readonly restMs: number;
}

export type WindowKind = 'exception' | 'stressed';

export interface ObligationWindow {
  readonly id: number;
  readonly kind: WindowKind;
  /** Null: every pair. */
  readonly pairId: string | null;
  readonly fromMs: number;
  /** Null: until it is ended. */
  readonly toMs: number | null;
  readonly reason: string;
  /** Who declared it: `command`, `endpoint`, `halt` (a stressed window after a volatility halt). */
  readonly source: string;
  readonly declaredMs: number;
}

export interface Breach {
  readonly id: number;
  readonly pairId: string;
  readonly limit: string;
  readonly detail: string;
  readonly startedMs: number;
  readonly endedMs: number | null;
}

type Row = Record<string, string | number | null>;

export class ObligationStore {
  readonly #db: Db;
  readonly #now: () => number;

  constructor(db: Db, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  // --- quotes --------------------------------------------------------------------------------------------

  /** An order of ours rests (its first `OrderResting`); a second report of the same order changes nothing. */
  rested(r: QuoteRest): void {
    this.#db
      .prepare(
        `INSERT INTO quote_spans (chain, wallet, pair_id, order_id, side, price, quantity, rest_ms, rest_height)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      )
      .run(
        r.chain,
        r.wallet,
        r.pairId,
        r.orderId.toString(),
        r.side,
        r.price.toString(),
        r.quantity.toString(),
        r.atMs,
        r.height.toString(),
      );
  }

  /** The order left the book; only the first end counts. */
  ended(e: QuoteEnd): void {
    this.#db
      .prepare(
        'UPDATE quote_spans SET end_ms = ?, end_height = ?, end_kind = ? WHERE chain = ? AND wallet = ? AND pair_id = ? AND order_id = ? AND end_ms IS NULL',
      )
      .run(e.atMs, e.height?.toString() ?? null, e.kind, e.chain, e.wallet, e.pairId, e.orderId.toString());
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
      .map((r) => {
        const x = r as Row;
        return {
          chain: x.chain as Chain,
          wallet: String(x.wallet),
          pairId: String(x.pair_id),
          orderId: BigInt(x.order_id as string),
          side: x.side as Side,
          price: BigInt(x.price as string),
          quantity: BigInt(x.quantity as string),
          restMs: Number(x.rest_ms),
        };
      });
  }

  /**
   * Our quotes on `pairId` that rested at some time in `[from, to)`, one span per size: a maker fill that
   * leaves something ends one span and starts the next with what is left. A quote not ended yet runs to `to`.
   */
  spans(pairId: string, from: number, to: number): QuoteSpan[] {
    const rows = this.#db
      .prepare(
        // Two index ranges (open, and ended after `from`), so that a long history is never scanned.
        `SELECT q.*, o.status AS order_status, o.updated_ms AS order_updated_ms FROM (
             SELECT * FROM quote_spans WHERE pair_id = ? AND end_ms IS NULL
             UNION ALL SELECT * FROM quote_spans WHERE pair_id = ? AND end_ms > ?) q
           LEFT JOIN orders o ON o.chain = q.chain AND o.pair_id = q.pair_id AND o.order_id = q.order_id
          WHERE q.rest_ms < ? ORDER BY q.rest_ms, q.order_id`,
      )
      .all(pairId, pairId, from, to) as Row[];
    if (rows.length === 0) return [];
    const earliest = Math.min(...rows.map((r) => Number(r.rest_ms)));
    const fills = new Map<string, Array<{ quantity: bigint; atMs: number }>>();
    const fillRows = this.#db
      .prepare(
        `SELECT o.chain AS chain, o.wallet AS wallet, o.order_id AS order_id, f.quantity AS quantity, f.at_ms AS at_ms
           FROM fills f JOIN orders o ON o.wallet = f.wallet AND o.client_order_id = f.client_order_id
          WHERE f.pair_id = ? AND f.role = 'maker' AND f.at_ms >= ? AND f.at_ms < ? AND o.order_id IS NOT NULL ORDER BY f.at_ms, f.fill_id`,
      )
      .all(pairId, earliest, to) as Row[];
    for (const f of fillRows) {
      const key = `${f.chain}|${f.wallet}|${f.order_id}`;
      const list = fills.get(key) ?? [];
      list.push({ quantity: BigInt(f.quantity as string), atMs: Number(f.at_ms) });
      fills.set(key, list);
    }
    const out: QuoteSpan[] = [];
    for (const r of rows) {
      const side = r.side as Side;
      const price = BigInt(r.price as string);
      let left = BigInt(r.quantity as string);
      let t = Number(r.rest_ms);
      // No end seen on chain, but the store has the order gone (its last event arrived after the bot stopped
      // following, or before a crash): it ended when the store recorded it.
      const gone = r.end_ms === null && isTerminal(r.order_status as OrderStatus);
      let end = r.end_ms !== null ? Number(r.end_ms) : gone ? Math.min(to, Number(r.order_updated_ms)) : to;
      for (const f of fills.get(`${r.chain}|${r.wallet}|${r.order_id}`) ?? []) {
        if (f.atMs >= end) break;
        if (f.atMs > t) out.push({ side, price, quantity: left, from: t, to: f.atMs });
        if (f.atMs > t) t = f.atMs;
        left -= f.quantity;
        if (left <= 0n) {
          end = Math.min(end, f.atMs);
          break;
        }
      }
      if (left > 0n && end > t) out.push({ side, price, quantity: left, from: t, to: end });
    }
    return out.toSorted((a, b) => a.from - b.from);
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
      .map((r) => ({ from: Number((r as Row).started_ms), to: Number((r as Row).end_ms) }));
  }

  firstRunMs(): number | null {
    const r = this.#db.prepare('SELECT MIN(started_ms) AS t FROM runs').get() as { t: number | null };
    return r.t === null ? null : Number(r.t);
  }

  // --- declared windows ----------------------------------------------------------------------------------

  declare(w: Omit<ObligationWindow, 'id' | 'declaredMs'>): ObligationWindow {
    const declaredMs = this.#now();
    const id = Number(
      this.#db
        .prepare(
          'INSERT INTO obligation_windows (kind, pair_id, from_ms, to_ms, reason, source, declared_ms) VALUES (?, ?, ?, ?, ?, ?, ?)',
        )
        .run(w.kind, w.pairId, w.fromMs, w.toMs, w.reason, w.source, declaredMs).lastInsertRowid,
    );
    return { ...w, id, declaredMs };
  }

  /** Ends a window at `atMs` (an open one, or one planned to last longer); null when there is no such window. */
  endWindow(id: number, atMs: number): ObligationWindow | null {
    const w = this.window(id);
    if (w === null) return null;
    if (w.toMs !== null && w.toMs <= atMs) return w;
    this.#db.prepare('UPDATE obligation_windows SET to_ms = ? WHERE id = ?').run(Math.max(atMs, w.fromMs), id);
    return this.window(id);
  }

  window(id: number): ObligationWindow | null {
    const r = this.#db.prepare('SELECT * FROM obligation_windows WHERE id = ?').get(id);
    return r === undefined ? null : windowOf(r as Row);
  }

  /** Windows overlapping `[from, to)` that apply to `pairId` (its own and those of every pair); all pairs without one. */
  windows(from: number, to: number, pairId?: string): ObligationWindow[] {
    return this.#db
      .prepare(
        `SELECT * FROM obligation_windows WHERE from_ms < ? AND (to_ms IS NULL OR to_ms > ?)
           AND (? IS NULL OR pair_id IS NULL OR pair_id = ?) ORDER BY from_ms, id`,
      )
      .all(to, from, pairId ?? null, pairId ?? null)
      .map((r) => windowOf(r as Row));
  }

  // --- samples, pairs, breaches --------------------------------------------------------------------------

  addSample(s: PairSample): void {
    this.#db
      .prepare(
        `INSERT INTO pair_samples (pair_id, at_ms, mark, value, position, realised, unrealised, fees, bid, ask, spread_bps, max_spread_bps, compliant, presence)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      )
      .run(
        s.pairId,
        s.atMs,
        s.mark,
        s.value,
        s.position,
        s.realised,
        s.unrealised,
        s.fees,
        s.bid,
        s.ask,
        s.spreadBps,
        s.maxSpreadBps,
        s.compliant === null ? null : s.compliant ? 1 : 0,
        s.presence,
      );
  }

  samples(pairId: string, from: number, to: number): PairSample[] {
    return this.#db
      .prepare('SELECT * FROM pair_samples WHERE pair_id = ? AND at_ms >= ? AND at_ms < ? ORDER BY at_ms')
      .all(pairId, from, to)
      .map((r) => {
        const x = r as Row;
        return {
          pairId: String(x.pair_id),
          atMs: Number(x.at_ms),
          mark: x.mark === null ? null : String(x.mark),
          value: x.value === null || x.value === undefined ? null : String(x.value),
          position: String(x.position),
          realised: String(x.realised),
          unrealised: String(x.unrealised),
          fees: String(x.fees),
          bid: x.bid === null ? null : String(x.bid),
          ask: x.ask === null ? null : String(x.ask),
          spreadBps: num(x.spread_bps),
          maxSpreadBps: num(x.max_spread_bps),
          compliant: x.compliant === null ? null : x.compliant === 1,
          presence: num(x.presence),
        };
      });
  }

  savePair(p: Omit<ReportPair, 'updatedMs'>): void {
    this.#db
      .prepare(
        `INSERT INTO report_pairs (pair_id, symbol, chain, wallet, scales_json, obligations_json, calendar_json, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (pair_id) DO UPDATE SET symbol = excluded.symbol, chain = excluded.chain, wallet = excluded.wallet, scales_json = excluded.scales_json,
           obligations_json = excluded.obligations_json, calendar_json = excluded.calendar_json, updated_ms = excluded.updated_ms`,
      )
      .run(
        p.pairId,
        p.symbol,
        p.chain,
        p.wallet,
        JSON.stringify(p.scales),
        p.obligations === null || p.obligations === undefined ? null : JSON.stringify(p.obligations),
        JSON.stringify(p.calendar),
        this.#now(),
      );
  }

  pairs(): ReportPair[] {
    return this.#db
      .prepare('SELECT * FROM report_pairs ORDER BY pair_id')
      .all()
      .map((r) => {
        const x = r as Row;
        return {
          pairId: String(x.pair_id),
          symbol: String(x.symbol),
          chain: x.chain as Chain,
          wallet: String(x.wallet),
          scales: JSON.parse(String(x.scales_json)) as ReportPair['scales'],
          obligations: x.obligations_json === null ? null : (JSON.parse(String(x.obligations_json)) as unknown),
          calendar: JSON.parse(String(x.calendar_json)) as unknown,
          updatedMs: Number(x.updated_ms),
        };
      });
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
      .map((r) => {
        const x = r as Row;
        return {
          id: Number(x.id),
          pairId: String(x.pair_id),
          limit: String(x.limit_name),
          detail: String(x.detail),
          startedMs: Number(x.started_ms),
          endedMs: x.ended_ms === null ? null : Number(x.ended_ms),
        };
      });
  }
}

function observationOf(r: unknown): MarketObservation & { detail: string } {
  const x = r as Row;
  return { atMs: Number(x.at_ms), state: x.state as MarketState, detail: String(x.detail) };
}

function num(v: string | number | null | undefined): number | null {
  return v === null || v === undefined ? null : Number(v);
}

function windowOf(x: Row): ObligationWindow {
  return {
    id: Number(x.id),
    kind: x.kind as WindowKind,
    pairId: x.pair_id === null ? null : String(x.pair_id),
    fromMs: Number(x.from_ms),
    toMs: x.to_ms === null ? null : Number(x.to_ms),
    reason: String(x.reason),
    source: String(x.source),
    declaredMs: Number(x.declared_ms),
  };
}
