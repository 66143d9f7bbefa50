/**
 * The order part of `dlt-mm audit export`: the day's order events (UTC time to the microsecond, the order's
 * terms in the pair's units, the algorithm identifier, the strategy and its file's hash, the decision's
 * inputs) as CSV and JSON lines, and per pair the day's order-to-trade ratio, cancel-to-fill ratio and median
 * quote lifetime.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { priceFromRaw, quantityFromRaw, type PairScales } from '../../core/units.ts';
import { orderEventsBetween, pairActivityBetween, type OrderEventRecord } from '../../store/audit-records.ts';
import type { Store } from '../../store/store.ts';

const EVENT_COLUMNS = [
  'seq',
  'time_utc',
  'wallet',
  'chain',
  'pair',
  'symbol',
  'client_order_id',
  'order_id',
  'side',
  'price',
  'quantity',
  'level',
  'event',
  'from_status',
  'to_status',
  'tx_hash',
  'withdrawn',
  'owner_reporting_id',
  'decision_reporting_id',
  'strategy',
  'strategy_hash',
  'decision_id',
  'decision_inputs',
];

const PAIR_COLUMNS = [
  'pair',
  'symbol',
  'order_messages',
  'cancellations',
  'executions',
  'order_to_trade',
  'cancel_to_fill',
  'median_quote_lifetime_s',
];

export function csvField(v: unknown): string {
  const s = typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** Epoch microseconds as ISO 8601 UTC with six fraction digits. */
export function isoMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  return `${new Date(ms).toISOString().slice(0, 23)}${String(us - ms * 1000).padStart(3, '0')}Z`;
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = values.toSorted((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

interface KnownPair {
  readonly symbol: string;
  readonly scales: PairScales;
}

function knownPairs(store: Store): Map<string, KnownPair> {
  return new Map(
    store.obligations.pairs().map((p) => [
      p.pairId,
      {
        symbol: p.symbol,
        scales: {
          baseInternal: BigInt(p.scales.baseInternal),
          quoteInternal: BigInt(p.scales.quoteInternal),
          baseNative: BigInt(p.scales.baseNative),
          quoteNative: BigInt(p.scales.quoteNative),
        },
      },
    ]),
  );
}

/** One event as exported: human units where the pair is known (else the raw integers). */
function exported(e: OrderEventRecord, pair: KnownPair | undefined) {
  return {
    seq: e.seq,
    timeUtc: isoMicros(e.atUs),
    wallet: e.wallet,
    chain: e.chain,
    pair: e.pairId,
    symbol: pair?.symbol ?? null,
    clientOrderId: e.clientOrderId,
    orderId: e.orderId,
    side: e.side,
    price: pair === undefined ? e.priceRaw : priceFromRaw(BigInt(e.priceRaw), pair.scales).toFixed(),
    quantity: pair === undefined ? e.quantityRaw : quantityFromRaw(BigInt(e.quantityRaw), pair.scales).toFixed(),
    level: e.level,
    event: e.kind === 'rollback' ? 'Rollback' : (e.event.type ?? null),
    fromStatus: e.fromStatus,
    toStatus: e.toStatus,
    txHash: e.event.txHash ?? null,
    withdrawn: e.withdrawnMs !== null,
    ownerReportingId: e.ownerReportingId,
    decisionReportingId: e.decisionReportingId,
    strategy: e.strategy,
    strategyHash: e.strategyHash,
    decisionId: e.decisionId,
    decisionInputs: e.inputs,
  };
}

export interface OrderRecordsWritten {
  readonly events: { readonly csv: string; readonly jsonl: string; readonly count: number };
  readonly pairs: string;
}

/** Writes the day's order events and per-pair figures into `out`. */
export function writeOrderRecords(
  store: Store,
  day: string,
  from: number,
  to: number,
  out: string,
): OrderRecordsWritten {
  const pairs = knownPairs(store);
  const events = orderEventsBetween(store.db, from, to).map((e) => exported(e, pairs.get(e.pairId)));
  const stem = join(out, `dlt-mm-audit-${day}`);
  const csv = `${stem}-order-events.csv`;
  const jsonl = `${stem}-order-events.jsonl`;
  writeFileSync(
    csv,
    [EVENT_COLUMNS.join(','), ...events.map((e) => Object.values(e).map(csvField).join(','))].join('\n') + '\n',
  );
  writeFileSync(jsonl, events.map((e) => JSON.stringify(e)).join('\n') + (events.length > 0 ? '\n' : ''));
  const perPair = pairActivityBetween(store.db, from, to).map((p) => {
    const per = Math.max(1, p.executions);
    const lifetime = median(p.lifetimesS);
    return [
      p.pairId,
      pairs.get(p.pairId)?.symbol ?? '',
      p.messages,
      p.cancellations,
      p.executions,
      (p.messages / per).toFixed(2),
      (p.cancellations / per).toFixed(2),
      lifetime === null ? '' : lifetime.toFixed(3),
    ];
  });
  const pairsCsv = `${stem}-pairs.csv`;
  writeFileSync(pairsCsv, [PAIR_COLUMNS.join(','), ...perPair.map((r) => r.map(csvField).join(','))].join('\n') + '\n');
  return { events: { csv, jsonl, count: events.length }, pairs: pairsCsv };
}
