/**
 * The client-to-server messages of the `orderbook` channel. The subscribe authorization carries the host, a
 * vendor-prefixed date field in compact ISO 8601 (`YYYYMMDDTHHMMSSZ`, taken fresh for every message, since
 * a replayed or stale date may be refused) and the API key. The unsubscribe message is not published: it
 * mirrors subscribe without the authorization (`{id, type: 'unsubscribe', channel}`).
 */

export const ALL_MARKETS = '*';
export const DEFAULT_DATE_HEADER = 'x-venue-date';

export interface WsAuthorization {
  /** `authorization.host`, the WebSocket host of the venue. */
  readonly host: string;
  readonly apiKey: string;
  /** Name of the date field, `x-<vendor>-date`. */
  readonly dateHeader: string;
}

/** `orderbook/*` for every market, `orderbook/bytradingpair/<symbol>` for one. */
export function channelFor(symbol: string): string {
  return symbol === ALL_MARKETS ? 'orderbook/*' : `orderbook/bytradingpair/${symbol}`;
}

/** Compact ISO 8601 basic form in UTC: `20260302T093000Z`. */
export function compactUtc(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;
}

export function subscribeMessage(id: string, channel: string, auth: WsAuthorization, nowMs: number): Record<string, unknown> {
  return {
    id,
    type: 'subscribe',
    channel,
    authorization: { host: auth.host, [auth.dateHeader]: compactUtc(nowMs), 'x-api-key': auth.apiKey },
  };
}

export function unsubscribeMessage(id: string, channel: string): Record<string, unknown> {
  return { id, type: 'unsubscribe', channel };
}
