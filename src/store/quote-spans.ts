/**
 * Our quotes as spans of constant size: an order rests from its inclusion until its cancel's inclusion or its
 * last fill, and a maker fill that leaves something ends one span and starts the next with what is left.
 */
import type { QuoteSpan } from '../core/obligations.ts';
import type { Side } from '../core/order-terms.ts';
import { isTerminal, type OrderStatus } from '../core/order-state.ts';
import type { Db } from './database.ts';
import type { Row } from './obligation-rows.ts';

interface MakerFill {
  readonly quantity: bigint;
  readonly atMs: number;
}

function orderKey(row: Row): string {
  return `${row.chain}|${row.wallet}|${row.order_id}`;
}

/** The maker fills on `pairId` in `[from, to)` by order, in fill order. */
function makerFills(db: Db, pairId: string, from: number, to: number): Map<string, MakerFill[]> {
  const fills = new Map<string, MakerFill[]>();
  const fillRows = db
    .prepare(
      `SELECT o.chain AS chain, o.wallet AS wallet, o.order_id AS order_id, f.quantity AS quantity, f.at_ms AS at_ms
           FROM fills f JOIN orders o ON o.wallet = f.wallet AND o.client_order_id = f.client_order_id
          WHERE f.pair_id = ? AND f.role = 'maker' AND f.at_ms >= ? AND f.at_ms < ? AND o.order_id IS NOT NULL ORDER BY f.at_ms, f.fill_id`,
    )
    .all(pairId, from, to) as Row[];
  for (const fill of fillRows) {
    const key = orderKey(fill);
    const list = fills.get(key) ?? [];
    list.push({ quantity: BigInt(fill.quantity as string), atMs: Number(fill.at_ms) });
    fills.set(key, list);
  }
  return fills;
}

/** One quote's spans up to `to`, cut at each of its fills. */
function spansOf(quote: Row, fills: readonly MakerFill[], to: number): QuoteSpan[] {
  const out: QuoteSpan[] = [];
  const side = quote.side as Side;
  const price = BigInt(quote.price as string);
  let left = BigInt(quote.quantity as string);
  let since = Number(quote.rest_ms);
  // No end seen on chain, but the store has the order gone (its last event arrived after the bot stopped
  // following, or before a crash): it ended when the store recorded it.
  const gone = quote.end_ms === null && isTerminal(quote.order_status as OrderStatus);
  let end = quote.end_ms !== null ? Number(quote.end_ms) : gone ? Math.min(to, Number(quote.order_updated_ms)) : to;
  for (const fill of fills) {
    if (fill.atMs >= end) break;
    if (fill.atMs > since) out.push({ side, price, quantity: left, from: since, to: fill.atMs });
    if (fill.atMs > since) since = fill.atMs;
    left -= fill.quantity;
    if (left <= 0n) {
      end = Math.min(end, fill.atMs);
      break;
    }
  }
  if (left > 0n && end > since) out.push({ side, price, quantity: left, from: since, to: end });
  return out;
}

/**
 * Our quotes on `pairId` that rested at some time in `[from, to)`, one span per size. A quote not ended yet
 * runs to `to`.
 */
export function quoteSpans(db: Db, pairId: string, from: number, to: number): QuoteSpan[] {
  const quotes = db
    .prepare(
      // Two index ranges (open, and ended after `from`), so that a long history is never scanned.
      `SELECT q.*, o.status AS order_status, o.updated_ms AS order_updated_ms FROM (
             SELECT * FROM quote_spans WHERE pair_id = ? AND end_ms IS NULL
             UNION ALL SELECT * FROM quote_spans WHERE pair_id = ? AND end_ms > ?) q
           LEFT JOIN orders o ON o.chain = q.chain AND o.pair_id = q.pair_id AND o.order_id = q.order_id
          WHERE q.rest_ms < ? ORDER BY q.rest_ms, q.order_id`,
    )
    .all(pairId, pairId, from, to) as Row[];
  if (quotes.length === 0) return [];
  const earliest = Math.min(...quotes.map((quote) => Number(quote.rest_ms)));
  const fills = makerFills(db, pairId, earliest, to);
  return quotes
    .flatMap((quote) => spansOf(quote, fills.get(orderKey(quote)) ?? [], to))
    .toSorted((a, b) => a.from - b.from);
}
