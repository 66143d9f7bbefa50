/**
 * The report's market context of a pair: the venue's public trades of the day (`GET /posttrade/recent`) beside
 * ours (the day's fills from the state file): count, volume (base), VWAP and last price. The state file holds no
 * public trades, so they are read from the venue when the report is made, if a venue is configured
 * (`venue.restUrl`, or the readable manifest of `sandbox.manifest`): the venue's list is of recent trades, so
 * for a day long past it may no longer reach the day's start, and the report says how far it reaches
 * (`complete`, `reachesFromMs`). Without a venue, or when the read fails, the venue's side is absent and
 * `venueNote` says why. VWAP is rounded to 10 decimal places (a division need not end).
 */
import { Decimal } from '../../core/decimal.ts';
import type { PostTrade } from '../../venue/payload/posttrade.ts';
import type { FillRow } from './data.ts';
import { berlinDateTime, esc } from './page-kit.ts';

/** Trades asked of the venue per pair. */
export const POSTTRADE_LIMIT = 1000;
const VWAP_PLACES = 10;

export interface TradeSummary {
  readonly count: number;
  /** Base tokens, exact. */
  readonly volume: string;
  /** Volume-weighted average price; null without trades. */
  readonly vwap: string | null;
  readonly lastPrice: string | null;
}

export interface MarketContext {
  readonly ours: TradeSummary;
  /** The venue's public trades of the day; null when they could not be read. */
  readonly venue: TradeSummary | null;
  /** The venue's list reached back before the day's start (or held everything it had). */
  readonly complete: boolean | null;
  /** When the list was cut by its limit within the day: the oldest trade it held. */
  readonly reachesFromMs: number | null;
  readonly venueNote: string | null;
}

/** What was read of the venue for one pair: its recent trades, or why there are none. */
export type VenueTradesRead = { readonly trades: readonly PostTrade[] } | { readonly error: string };

interface Trade {
  readonly atMs: number;
  readonly price: Decimal;
  readonly quantity: Decimal;
}

export function summarise(trades: readonly Trade[]): TradeSummary {
  let volume = new Decimal(0);
  let value = new Decimal(0);
  let last: Trade | undefined;
  for (const t of trades) {
    volume = volume.add(t.quantity);
    value = value.add(t.price.mul(t.quantity));
    if (last === undefined || t.atMs >= last.atMs) last = t;
  }
  return {
    count: trades.length,
    volume: volume.toFixed(),
    vwap: volume.isZero() ? null : value.div(volume).toDecimalPlaces(VWAP_PLACES).toFixed(),
    lastPrice: last === undefined ? null : last.price.toFixed(),
  };
}

export function marketContext(
  fills: readonly FillRow[],
  read: VenueTradesRead | undefined,
  from: number,
  to: number,
): MarketContext {
  const ours = summarise(
    fills.map((f) => ({ atMs: f.atMs, price: new Decimal(f.price), quantity: new Decimal(f.quantity) })),
  );
  if (read === undefined || 'error' in read)
    return {
      ours,
      venue: null,
      complete: null,
      reachesFromMs: null,
      venueNote:
        read === undefined
          ? 'no venue in the configuration (venue.restUrl, or a readable sandbox.manifest): public trades not read'
          : read.error,
    };
  const day = read.trades.filter((t) => t.tradedAtMs >= from && t.tradedAtMs < to);
  const oldest = read.trades.reduce((m, t) => Math.min(m, t.tradedAtMs), Number.POSITIVE_INFINITY);
  const complete = read.trades.length < POSTTRADE_LIMIT || oldest < from;
  return {
    ours,
    venue: summarise(day.map((t) => ({ atMs: t.tradedAtMs, price: t.price, quantity: t.quantity }))),
    complete,
    reachesFromMs: complete ? null : oldest,
    venueNote: null,
  };
}

/** Reads each pair's recent public trades; a failure is kept as that pair's note, never fails the report. */
export async function readVenueTrades(
  rest: { getRecentPostTrades(q: { tradingPair: string; limit: number }): Promise<PostTrade[]> },
  pairIds: readonly string[],
): Promise<Map<string, VenueTradesRead>> {
  const out = new Map<string, VenueTradesRead>();
  for (const pairId of pairIds) {
    try {
      out.set(pairId, { trades: await rest.getRecentPostTrades({ tradingPair: pairId, limit: POSTTRADE_LIMIT }) });
    } catch (e) {
      out.set(pairId, { error: `public trades not read: ${e instanceof Error ? e.message : String(e)}` });
    }
  }
  return out;
}

const cell = (v: string | number | null) => `<td class="num">${v === null ? '–' : esc(String(v))}</td>`;

const row = (who: string, s: TradeSummary | null) =>
  `<tr><td>${who}</td>${s === null ? '<td colspan="4">–</td>' : [s.count, s.volume, s.vwap, s.lastPrice].map(cell).join('')}</tr>`;

/** The page's small table of a pair's market context. */
export function marketContextTable(m: MarketContext | undefined): string {
  if (m === undefined) return '';
  const note =
    m.venueNote ??
    (m.complete === false && m.reachesFromMs !== null
      ? `The venue's recent-trades list reached back only to ${berlinDateTime.format(m.reachesFromMs)}.`
      : "The venue's public trades as its post-trade feed listed them when the report was made.");
  return `<h3>Market context</h3><table class="market"><thead><tr><th></th><th>Trades</th><th>Volume</th><th>VWAP</th><th>Last price</th></tr></thead><tbody>${row('Venue (public)', m.venue)}${row('Ours', m.ours)}</tbody></table><p class="note">${esc(note)}</p>`;
}
