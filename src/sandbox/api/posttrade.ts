/**
 * `GET /posttrade/recent`: the venue's public post-trade publication, without authentication. One item per
 * execution the venue saw on either chain (one incoming order's match: one price, its quantity), newest first,
 * in the fields of the venue's documentation: `tradingDateTime` (finality, here when the venue saw the trade
 * event), `isin`, `price`, `priceCurrency`, `priceNotation` `MONE`, `quantity`, `venueOfExecution` `21XX`,
 * `publicationDateTime` (the sandbox publishes at once), `transactionIdentificationCode` (`<pair id>-<taker
 * order id>`), `notionalAmount` (price times quantity, exact) and `notionalCurrency`; amounts are decimal strings.
 * Query: `tradingpair` (a pair id or market symbol; unknown is a 404) and `limit` (1-1000, default 100).
 */
import { formatDecimal } from '../../core/decimal.ts';
import { priceFromRaw, quantityFromRaw } from '../../core/units.ts';
import { notFound } from './http-error.ts';
import { parseLimit } from './query.ts';
import { iso } from './render.ts';
import type { TradeRecord } from './trades.ts';
import type { VenuePair } from './venue-state.ts';

export const POSTTRADE_DEFAULT_LIMIT = 100;

function item(p: VenuePair, t: TradeRecord): Record<string, unknown> {
  const price = priceFromRaw(t.price, p.scales);
  const quantity = quantityFromRaw(t.quantity, p.scales);
  const currency = p.record.quoteTokenEquivalentCurrency;
  return {
    tradingDateTime: iso(t.atMs),
    isin: p.record.baseTokenData?.isin ?? '',
    price: formatDecimal(price),
    priceCurrency: currency,
    priceNotation: 'MONE',
    quantity: formatDecimal(quantity),
    venueOfExecution: '21XX',
    publicationDateTime: iso(t.atMs),
    transactionIdentificationCode: `${p.id}-${t.takerOrderId}`,
    notionalAmount: formatDecimal(price.mul(quantity)),
    notionalCurrency: currency,
  };
}

/** The recent public trades of the active pairs (or of the one `tradingpair` names), newest first. */
export function recentPostTrades(active: readonly VenuePair[], params: URLSearchParams): Record<string, unknown> {
  const wanted = params.get('tradingpair');
  const limit = parseLimit(params, 'limit') ?? POSTTRADE_DEFAULT_LIMIT;
  let pairs = active;
  if (wanted !== null && wanted !== '') {
    pairs = active.filter((p) => p.id === wanted || p.symbol === wanted);
    if (pairs.length === 0) throw notFound(`No trading pair ${wanted}`);
  }
  const trades = pairs
    .flatMap((p) =>
      p.market.trades
        .all()
        .toReversed()
        .map((t) => ({ p, t })),
    )
    .toSorted((a, b) => b.t.atMs - a.t.atMs)
    .slice(0, limit);
  return { items: trades.map(({ p, t }) => item(p, t)) };
}
