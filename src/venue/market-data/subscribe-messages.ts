/**
 * The client-to-server messages of the venue's WebSocket, which is AWS AppSync's Events API. The connection
 * offers two subprotocols: `aws-appsync-event-ws` and `header-<authorization>`, the authorization object as
 * JSON in base64url without padding. The same authorization object (host, the date field in compact ISO 8601
 * `YYYYMMDDTHHMMSSZ`, the API key) is carried by every `subscribe`, taken fresh for each message since a
 * replayed or stale date may be refused. `connection_init` opens the protocol; `unsubscribe` names the id of
 * the subscription it ends.
 */

export const ALL_MARKETS = '*';
/** The date field of the venue's subscribe example and of AppSync's API-key authorization. */
export const DEFAULT_DATE_HEADER = 'x-amz-date';
/** The subprotocol of AppSync's Events API; the server answers with it. */
export const EVENT_WS_PROTOCOL = 'aws-appsync-event-ws';

export interface WsAuthorization {
  /** `authorization.host`: the HTTP host of the venue's Events API. */
  readonly host: string;
  readonly apiKey: string;
  /** Name of the date field, `x-amz-date` unless configured. */
  readonly dateHeader: string;
}

/** The order book channel of the specification, or the ticker channel of the venue's documentation. */
export type ChannelKind = 'orderbook' | 'ticker';

/** `orderbook/*` for every market, `orderbook/bytradingpair/<symbol>` for one (`ticker/...` the same). */
export function channelFor(symbol: string, kind: ChannelKind = 'orderbook'): string {
  return symbol === ALL_MARKETS ? `${kind}/*` : `${kind}/bytradingpair/${symbol}`;
}

/** Compact ISO 8601 basic form in UTC: `20260302T093000Z`. */
export function compactUtc(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;
}

/** The authorization object: `{host, <date field>, x-api-key}`. */
export function authorizationOf(auth: WsAuthorization, nowMs: number): Record<string, string> {
  return { host: auth.host, [auth.dateHeader]: compactUtc(nowMs), 'x-api-key': auth.apiKey };
}

/** The subprotocols a connection offers: the Events protocol, then the authorization as `header-<base64url>`. */
export function connectionProtocols(auth: WsAuthorization, nowMs: number): [string, string] {
  const header = Buffer.from(JSON.stringify(authorizationOf(auth, nowMs)), 'utf8').toString('base64url');
  return [EVENT_WS_PROTOCOL, `header-${header}`];
}

export function connectionInitMessage(): Record<string, unknown> {
  return { type: 'connection_init' };
}

export function subscribeMessage(
  id: string,
  channel: string,
  auth: WsAuthorization,
  nowMs: number,
): Record<string, unknown> {
  return { id, type: 'subscribe', channel, authorization: authorizationOf(auth, nowMs) };
}

/** Ends the subscription with this id (AppSync identifies subscriptions by id, not by channel). */
export function unsubscribeMessage(id: string): Record<string, unknown> {
  return { id, type: 'unsubscribe' };
}
