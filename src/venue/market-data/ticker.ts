/**
 * One market of the venue's WebSocket `ticker` channel (its documentation; not in the specification): the last
 * price, the best bid and ask with their quantities, and a time. The documentation names them `bestBid`,
 * `bestBidQuantity`, `bestAsk`, `bestAskQuantity` (JSON numbers), the venue SDK `bestBuyLimit`,
 * `bestBuyQuantity`, `bestSellLimit`, `bestSellQuantity` (decimal strings): both are read, numbers through their
 * exact text. `null` or an absent field is "none" (an empty side, no trade yet); `time` (or `timestamp`) is ISO
 * 8601 or epoch seconds or milliseconds and required. A value that is present but not a non-negative amount
 * makes the market malformed.
 */
import type { Decimal } from '../../core/decimal.ts';
import { toDecimal } from '../payload/decimal-value.ts';
import { fieldError } from '../payload/problems.ts';
import { toEpochMs } from '../payload/timestamp.ts';

export interface TickerData {
  readonly symbol: string;
  readonly lastPrice?: Decimal;
  readonly bestBid?: Decimal;
  readonly bestBidQuantity?: Decimal;
  readonly bestAsk?: Decimal;
  readonly bestAskQuantity?: Decimal;
  /** The venue's time of the data, epoch ms. */
  readonly timeMs: number;
}

export interface TickerUpdate extends TickerData {
  /** When this process received it, clock ms. */
  readonly receivedAt: number;
}

/** A data message of the ticker channel: its `channel` says so, or the subscription it belongs to does. */
export function isTickerChannel(channel: string | undefined): boolean {
  return channel !== undefined && (channel === 'ticker' || channel.startsWith('ticker/'));
}

/** Our name, then the documentation's and the SDK's names of each amount. */
const AMOUNTS = [
  ['lastPrice', 'lastPrice', 'lastPrice'],
  ['bestBid', 'bestBid', 'bestBuyLimit'],
  ['bestBidQuantity', 'bestBidQuantity', 'bestBuyQuantity'],
  ['bestAsk', 'bestAsk', 'bestSellLimit'],
  ['bestAskQuantity', 'bestAskQuantity', 'bestSellQuantity'],
] as const;

/** Decodes `data[i]` of a ticker message; throws E_PAYLOAD_MALFORMED naming the field and the value. */
export function decodeTicker(raw: unknown, i: number, source: string): TickerData {
  const at = `data.${i}`;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw fieldError(source, at, raw, 'expected a ticker object');
  const m = raw as Record<string, unknown>;
  if (typeof m.symbol !== 'string' || m.symbol === '' || m.symbol.length > 255)
    throw fieldError(source, `${at}.symbol`, m.symbol, 'expected a market symbol');
  const timeKey = m.time === undefined && m.timestamp !== undefined ? 'timestamp' : 'time';
  const timeMs = toEpochMs(m[timeKey]);
  if (timeMs === undefined)
    throw fieldError(source, `${at}.${timeKey}`, m[timeKey], 'expected an ISO 8601 time or epoch seconds or ms');
  const out: Record<string, unknown> = { symbol: m.symbol, timeMs };
  for (const [name, documented, sdk] of AMOUNTS) {
    const key = m[documented] === undefined || m[documented] === null ? sdk : documented;
    const value = m[key];
    if (value === undefined || value === null) continue;
    const d = toDecimal(value);
    if (d === undefined || d.isNegative())
      throw fieldError(source, `${at}.${key}`, value, 'expected a non-negative decimal string or JSON number');
    out[name] = d;
  }
  return out as unknown as TickerData;
}
