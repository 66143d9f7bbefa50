/**
 * The surveillance records of a span of time (a trading day): every order event with its UTC time to the
 * microsecond, the order's terms, the algorithm identifier it was sent with (the owner and decision reporting
 * values), the strategy and the hash of its file, and the decision's inputs; and per pair the span's order
 * messages (placements and cancellations sent), cancellations, executions and the lifetimes of our quotes.
 */
import type { Db } from './database.ts';

export interface OrderEventRecord {
  /** The transition's row: the order of events. */
  readonly seq: number;
  readonly atMs: number;
  /** Epoch microseconds; for rows written before they were kept, the milliseconds' first microsecond. */
  readonly atUs: number;
  readonly wallet: string;
  readonly chain: string;
  readonly pairId: string;
  readonly clientOrderId: string;
  readonly orderId: string | null;
  readonly side: string;
  /** Raw integers at the pair's internal scales. */
  readonly priceRaw: string;
  readonly quantityRaw: string;
  readonly level: number | null;
  readonly fromStatus: string;
  readonly toStatus: string;
  /** `event` (a transition) or `rollback` (a reorganisation undid transitions). */
  readonly kind: string;
  readonly event: { readonly type?: string; readonly txHash?: string; readonly [k: string]: unknown };
  /** Set when a reorganisation withdrew the event. */
  readonly withdrawnMs: number | null;
  readonly decisionId: number | null;
  readonly strategy: string | null;
  readonly strategyHash: string | null;
  readonly ownerReportingId: number | null;
  readonly decisionReportingId: number | null;
  /** The decision's market snapshot (reference, best bid and ask, inventory, fair value) and risk state. */
  readonly inputs: { readonly market: unknown; readonly risk: unknown } | null;
}

type Row = Record<string, string | number | null>;

const num = (v: string | number | null | undefined): number | null => (v == null ? null : Number(v));
const str = (v: string | number | null | undefined): string | null => (v == null ? null : String(v));

/** Every order event from `fromMs` (inclusive) to `toMs` (exclusive), in the order they were written. */
export function orderEventsBetween(db: Db, fromMs: number, toMs: number): OrderEventRecord[] {
  return db
    .prepare(
      `SELECT t.id, t.at_ms, t.at_us, t.wallet, t.client_order_id, t.from_status, t.to_status, t.event_json, t.kind,
              t.withdrawn_ms, o.chain, o.pair_id, o.order_id, o.side, o.price, o.quantity, o.level,
              d.id AS decision_id, d.strategy, d.config_hash, d.owner_reporting_id, d.decision_reporting_id,
              d.market_json, d.risk_json
         FROM order_transitions t
         JOIN orders o ON o.wallet = t.wallet AND o.client_order_id = t.client_order_id
         LEFT JOIN decisions d ON d.id = o.decision_id
        WHERE t.at_ms >= ? AND t.at_ms < ?
        ORDER BY t.id`,
    )
    .all(fromMs, toMs)
    .map((r) => {
      const x = r as Row;
      const decided = x.decision_id !== null;
      return {
        seq: Number(x.id),
        atMs: Number(x.at_ms),
        atUs: x.at_us === null ? Number(x.at_ms) * 1000 : Number(x.at_us),
        wallet: String(x.wallet),
        chain: String(x.chain),
        pairId: String(x.pair_id),
        clientOrderId: String(x.client_order_id),
        orderId: str(x.order_id),
        side: String(x.side),
        priceRaw: String(x.price),
        quantityRaw: String(x.quantity),
        level: num(x.level),
        fromStatus: String(x.from_status),
        toStatus: String(x.to_status),
        kind: String(x.kind),
        event: JSON.parse(String(x.event_json)) as OrderEventRecord['event'],
        withdrawnMs: num(x.withdrawn_ms),
        decisionId: num(x.decision_id),
        strategy: str(x.strategy),
        strategyHash: str(x.config_hash),
        ownerReportingId: num(x.owner_reporting_id),
        decisionReportingId: num(x.decision_reporting_id),
        inputs: decided
          ? { market: JSON.parse(String(x.market_json)) as unknown, risk: JSON.parse(String(x.risk_json)) as unknown }
          : null,
      };
    });
}

export interface PairActivity {
  readonly pairId: string;
  /** Placements and cancellations sent (each a transaction that left for the chain). */
  readonly messages: number;
  readonly cancellations: number;
  /** Our fills (each fill event of an order of ours that a reorganisation did not withdraw). */
  readonly executions: number;
  /** Seconds each quote rested, from resting to its final state, for the quotes that ended in the span. */
  readonly lifetimesS: readonly number[];
}

/**
 * Per pair, from `fromMs` (inclusive) to `toMs` (exclusive): what a venue counts for its order-to-trade ratio,
 * every figure by when the bot recorded it (a fill when its event was applied, not the block's time).
 */
export function pairActivityBetween(db: Db, fromMs: number, toMs: number): PairActivity[] {
  const sent = db
    .prepare(
      `SELECT o.pair_id, json_extract(t.event_json, '$.type') AS type, COUNT(*) AS n
         FROM order_transitions t JOIN orders o ON o.wallet = t.wallet AND o.client_order_id = t.client_order_id
        WHERE t.at_ms >= ? AND t.at_ms < ? AND t.kind = 'event' AND t.withdrawn_ms IS NULL
          AND json_extract(t.event_json, '$.type') IN ('SubmissionSent', 'CancelSent', 'Filled')
        GROUP BY o.pair_id, type`,
    )
    .all(fromMs, toMs) as Row[];
  // A quote's life: its first transition to resting, to its first transition to a final state within the span.
  const lives = db
    .prepare(
      `SELECT o.pair_id,
              (SELECT MIN(COALESCE(r.at_us, r.at_ms * 1000)) FROM order_transitions r
                WHERE r.wallet = t.wallet AND r.client_order_id = t.client_order_id AND r.to_status = 'resting'
                  AND r.withdrawn_ms IS NULL) AS rested_us,
              MIN(COALESCE(t.at_us, t.at_ms * 1000)) AS ended_us
         FROM order_transitions t JOIN orders o ON o.wallet = t.wallet AND o.client_order_id = t.client_order_id
        WHERE t.at_ms >= ? AND t.at_ms < ? AND t.withdrawn_ms IS NULL
          AND t.to_status IN ('filled', 'cancelled', 'rejected')
        GROUP BY t.wallet, t.client_order_id`,
    )
    .all(fromMs, toMs) as Row[];
  const pairs = new Map<
    string,
    { messages: number; cancellations: number; executions: number; lifetimesS: number[] }
  >();
  const of = (id: string) => {
    let p = pairs.get(id);
    if (p === undefined) {
      p = { messages: 0, cancellations: 0, executions: 0, lifetimesS: [] };
      pairs.set(id, p);
    }
    return p;
  };
  for (const r of sent) {
    const p = of(String(r.pair_id));
    if (r.type === 'Filled') p.executions += Number(r.n);
    else p.messages += Number(r.n);
    if (r.type === 'CancelSent') p.cancellations += Number(r.n);
  }
  for (const r of lives) {
    if (r.rested_us === null) continue;
    of(String(r.pair_id)).lifetimesS.push((Number(r.ended_us) - Number(r.rested_us)) / 1e6);
  }
  return [...pairs].map(([pairId, p]) => ({ pairId, ...p })).toSorted((a, b) => a.pairId.localeCompare(b.pairId));
}
