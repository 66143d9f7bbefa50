/**
 * The data messages of the two WebSocket channels, built from the venue state. `orderbook`: the
 * specification's message with up to `depth` levels a side. `ticker` (the venue's documentation): per market
 * the last price, the best bid and ask and their quantities, and a time, sent when one of them changed. The
 * documentation names them `lastPrice`, `bestBid`, `bestBidQuantity`, `bestAsk`, `bestAskQuantity` as JSON
 * numbers with exact digits and `time` as ISO 8601 (the default); the venue SDK's model, chosen by
 * `api.wsTickerFieldNames: sdk` or the control API, names them `lastPrice`, `bestBuyLimit`, `bestBuyQuantity`,
 * `bestSellLimit`, `bestSellQuantity` as decimal strings with `time` in epoch milliseconds. An empty side or
 * no trade yet is `null`.
 */
import { price, quantity } from './render.ts';
import type { VenuePair } from './venue-state.ts';
import { dataMessage, type ChannelTarget, type WsMarket } from './ws-messages.ts';

export type TickerFieldNames = 'documentation' | 'sdk';

/** Decimal texts, null where there is none. */
export interface TickerTop {
  readonly lastPrice: string | null;
  readonly bestBid: string | null;
  readonly bestBidQuantity: string | null;
  readonly bestAsk: string | null;
  readonly bestAskQuantity: string | null;
}

export type Ticker = TickerTop & { readonly symbol: string };

export function orderbookEvent(pairs: readonly VenuePair[], depth: number, nowMs: number): string {
  const time = new Date(nowMs).toISOString();
  const levels = (p: VenuePair, side: 'buy' | 'sell') =>
    p.market.book
      .levels(side, depth)
      .map((l) => ({ limit: price(p, l.price), totalQuantity: quantity(p, l.quantity), orderCount: l.orderCount }));
  const markets: WsMarket[] = pairs.map((p) => ({
    symbol: p.symbol,
    buy: levels(p, 'buy'),
    sell: levels(p, 'sell'),
    time,
  }));
  return dataMessage(markets);
}

export function tickerOf(p: VenuePair): TickerTop {
  const bid = p.market.book.levels('buy', 1)[0];
  const ask = p.market.book.levels('sell', 1)[0];
  const last = p.market.lastPrice;
  return {
    lastPrice: last === undefined ? null : price(p, last),
    bestBid: bid === undefined ? null : price(p, bid.price),
    bestBidQuantity: bid === undefined ? null : quantity(p, bid.quantity),
    bestAsk: ask === undefined ? null : price(p, ask.price),
    bestAskQuantity: ask === undefined ? null : quantity(p, ask.quantity),
  };
}

/** A decimal text as a JSON number (its exact digits) or a JSON string; null stays null. */
function value(text: string | null, asString: boolean): string {
  if (text === null) return 'null';
  return asString ? JSON.stringify(text) : text;
}

/** `{"channel":"ticker","data":[...]}` in the chosen field names. */
export function tickerEvent(tickers: readonly Ticker[], nowMs: number, names: TickerFieldNames): string {
  const sdk = names === 'sdk';
  const data = tickers.map((t) => {
    const fields: [string, string][] = [
      ['symbol', JSON.stringify(t.symbol)],
      ['lastPrice', value(t.lastPrice, sdk)],
      [sdk ? 'bestBuyLimit' : 'bestBid', value(t.bestBid, sdk)],
      [sdk ? 'bestBuyQuantity' : 'bestBidQuantity', value(t.bestBidQuantity, sdk)],
      [sdk ? 'bestSellLimit' : 'bestAsk', value(t.bestAsk, sdk)],
      [sdk ? 'bestSellQuantity' : 'bestAskQuantity', value(t.bestAskQuantity, sdk)],
      ['time', sdk ? String(nowMs) : JSON.stringify(new Date(nowMs).toISOString())],
    ];
    return `{${fields.map(([k, v]) => `"${k}":${v}`).join(',')}}`;
  });
  return `{"channel":"ticker","data":[${data.join(',')}]}`;
}

/** Per ticker subscription, what it last received of each market (`keyOf`). */
const lastSent = new WeakMap<ChannelTarget, Map<string, string>>();

/**
 * The tickers a subscription has not received yet as they are: a market goes out to it when its ticker differs
 * from what this subscription last got, never twice the same, whichever flush or snapshot computed it.
 */
function freshFor(target: ChannelTarget, tickers: readonly Ticker[]): Ticker[] {
  let sent = lastSent.get(target);
  if (sent === undefined) {
    sent = new Map();
    lastSent.set(target, sent);
  }
  const out: Ticker[] = [];
  for (const t of tickers) {
    const key = keyOf(t);
    if (sent.get(t.symbol) === key) continue;
    sent.set(t.symbol, key);
    out.push(t);
  }
  return out;
}

/** The data message of one subscription: the markets it covers, or undefined when it covers none. */
export function subscriptionEvent(
  target: ChannelTarget,
  pairs: readonly VenuePair[],
  tickers: readonly Ticker[],
  at: { readonly depth: number; readonly nowMs: number; readonly fieldNames: TickerFieldNames },
): string | undefined {
  const covers = (symbol: string) => target.kind === 'all' || symbol === target.symbol;
  if (target.channel === 'ticker') {
    const mine = freshFor(
      target,
      tickers.filter((t) => covers(t.symbol)),
    );
    return mine.length === 0 ? undefined : tickerEvent(mine, at.nowMs, at.fieldNames);
  }
  const mine = pairs.filter((p) => covers(p.symbol));
  return mine.length === 0 ? undefined : orderbookEvent(mine, at.depth, at.nowMs);
}

const keyOf = (t: TickerTop): string =>
  [t.lastPrice, t.bestBid, t.bestBidQuantity, t.bestAsk, t.bestAskQuantity].join('|');

/**
 * The ticker channel's settings: its field names and, while `frozen` (a control fault), nothing published; each
 * subscription remembers what it last got, so the changes of a frozen time come out once it thaws.
 */
export class TickerPublication {
  fieldNames: TickerFieldNames;
  frozen = false;

  constructor(fieldNames: TickerFieldNames = 'documentation') {
    this.fieldNames = fieldNames;
  }
}
