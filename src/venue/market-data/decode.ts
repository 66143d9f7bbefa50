/**
 * Decodes one text frame of the `orderbook` channel. Data frames (`{channel, data: [...]}`) are checked by
 * hand, not by zod, because this runs for every market update (see test/bench/market-data.bench.ts).
 * Level prices and quantities are JSON numbers in the specification; they become Decimals through their
 * source text (see payload/json.ts), and decimal strings are accepted too. A bad market inside a frame is
 * set aside and the frame's other markets still apply; a frame that is not JSON or not a known shape is an
 * error. Control frames are told apart by `type`; those whose shape is not published
 * (`subscribe_failure`, `error`, anything else) are decoded leniently.
 */
import { parseVenueJson } from '../payload/json.ts';
import { decodeSide } from '../payload/price-level.ts';
import { fieldError, malformedPayload, problemsOf, type PayloadProblem } from '../payload/problems.ts';
import type { PriceLevel } from './book.ts';

export const WS_SOURCE = 'ws';

export interface MarketUpdate {
  readonly symbol: string;
  readonly buy: PriceLevel[];
  readonly sell: PriceLevel[];
  readonly time: string;
}

export type MarketDataMessage =
  | {
      readonly type: 'data';
      readonly channel: string;
      readonly markets: MarketUpdate[];
      readonly rejected: { readonly index: number; readonly symbol?: string; readonly problems: PayloadProblem[] }[];
    }
  | { readonly type: 'subscribe_success'; readonly id: string }
  | { readonly type: 'subscribe_failure' | 'error'; readonly id?: string; readonly message?: string }
  | { readonly type: 'other'; readonly name: string };

function decodeMarket(raw: unknown, i: number): MarketUpdate {
  const at = `data.${i}`;
  if (raw === null || typeof raw !== 'object') throw fieldError(WS_SOURCE, at, raw, 'expected a market object');
  const m = raw as Record<string, unknown>;
  if (typeof m.symbol !== 'string' || m.symbol === '' || m.symbol.length > 255) {
    throw fieldError(WS_SOURCE, `${at}.symbol`, m.symbol, 'expected a market symbol');
  }
  if (typeof m.time !== 'string' || Number.isNaN(Date.parse(m.time))) {
    throw fieldError(WS_SOURCE, `${at}.time`, m.time, 'expected an ISO 8601 time');
  }
  return {
    symbol: m.symbol,
    buy: decodeSide(m.buy, 'buy', WS_SOURCE, `${at}.buy`),
    sell: decodeSide(m.sell, 'sell', WS_SOURCE, `${at}.sell`),
    time: m.time,
  };
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function decodeMarketDataMessage(text: string): MarketDataMessage {
  let frame: unknown;
  try {
    frame = parseVenueJson(text);
  } catch (e) {
    throw malformedPayload(WS_SOURCE, [{ field: '(root)', value: text.slice(0, 200), message: 'frame is not JSON' }], e);
  }
  if (frame === null || typeof frame !== 'object' || Array.isArray(frame)) throw fieldError(WS_SOURCE, '(root)', frame, 'expected an object');
  const f = frame as Record<string, unknown>;
  if (typeof f.type === 'string') {
    switch (f.type) {
      case 'subscribe_success':
        if (typeof f.id !== 'string') throw fieldError(WS_SOURCE, 'id', f.id, 'expected the id of the subscribe message');
        return { type: 'subscribe_success', id: f.id };
      case 'subscribe_failure':
      case 'error': {
        const id = optionalString(f.id);
        const message = optionalString(f.message) ?? optionalString(f.error) ?? optionalString(f.reason);
        return { type: f.type, ...(id === undefined ? {} : { id }), ...(message === undefined ? {} : { message }) };
      }
      default:
        if (!Array.isArray(f.data)) return { type: 'other', name: f.type };
    }
  }
  if (!Array.isArray(f.data)) throw fieldError(WS_SOURCE, 'data', f.data, 'expected an array of markets (or a message type)');
  const markets: MarketUpdate[] = [];
  const rejected: { index: number; symbol?: string; problems: PayloadProblem[] }[] = [];
  f.data.forEach((raw: unknown, index: number) => {
    try {
      markets.push(decodeMarket(raw, index));
    } catch (e) {
      const symbol = optionalString((raw as { symbol?: unknown } | null)?.symbol);
      rejected.push({ index, ...(symbol === undefined ? {} : { symbol }), problems: problemsOf(e) });
    }
  });
  return { type: 'data', channel: optionalString(f.channel) ?? '', markets, rejected };
}
