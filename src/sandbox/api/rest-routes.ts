/**
 * The REST endpoints under `/api/v1`, as pure request -> response functions over the venue state. The
 * server (http-server.ts) adds faults, timing and the AppError rendering of every thrown HttpError.
 */
import { badRequest, HttpError, notFound } from './http-error.ts';
import {
  instrumentDetail,
  instrumentId,
  instrumentSummary,
  type InstrumentSource,
  type PublishedNav,
} from './instruments.ts';
import {
  orderCursor,
  parseBoolean,
  parseInstant,
  parseInstrumentFilter,
  parseInterval,
  parseLimit,
  parseNonNegativeInteger,
  parseOrderCursor,
  parseUnixSeconds,
  pathSegment,
} from './query.ts';
import { tradesBody } from './trade-records.ts';
import { recentPostTrades } from './posttrade.ts';
import { ohlcPoint, orderBook, orderRecord, pairRecord, priceLevels, tradeInfo } from './render.ts';
import { walletKey, type VenuePair, type VenueState } from './venue-state.ts';

export interface ApiRequest {
  readonly method: string;
  /** Path below `/api/v1`. */
  readonly path: string;
  readonly params: URLSearchParams;
  readonly authorization: string | undefined;
}

export interface ApiContext {
  readonly state: VenueState;
  /** A fixed token that is always accepted (the manifest's `accessToken`). */
  readonly accessToken: string;
  /** Tokens granted by the token endpoint, accepted until they expire. */
  readonly tokens?: { check(token: string): 'valid' | 'expired' | 'unknown' };
  nowMs(): number;
  /** A fund pair's last published NAV; without it (or for a bond) the record carries none. */
  nav?(pairId: string): PublishedNav | null;
  /** When an automatic halt of the pair is due to end (venue ms); undefined when none is. */
  haltEnd?(pairId: string): number | undefined;
  /** Until when a day order placed at this venue time is valid (venue ms); undefined without trading days. */
  validUntil?(placedAtMs: number): number | undefined;
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const WASM_ACCOUNT = /^G[A-Z2-7]{55}$/;
const MAX_OHLC_POINTS = 1000;
const ORDER_PAGE = 100;

function instrumentSources(ctx: ApiContext): InstrumentSource[] {
  const seen = new Map<string, InstrumentSource>();
  for (const p of ctx.state.activePairs()) {
    const base = p.record.baseTokenData;
    if (base === undefined || seen.has(base.symbol)) continue;
    seen.set(base.symbol, {
      seed: p.instrument,
      symbol: base.symbol,
      isin: base.isin ?? '',
      dti: base.dti ?? '',
      blockChain: p.record.blockChain ?? '',
      tokenAddress: p.addresses.base.hex,
      nav: p.instrument.kind === 'fund' ? (ctx.nav?.(p.id) ?? null) : null,
    });
  }
  return [...seen.values()];
}

/** 401 with an AppError for a missing, unknown or expired bearer token (RFC 6750 challenge in WWW-Authenticate). */
function requireBearer(req: ApiRequest, ctx: ApiContext): void {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.authorization ?? '');
  const token = m?.[1];
  if (token === undefined)
    throw new HttpError(401, 'Full authentication is required', [], { 'www-authenticate': 'Bearer' });
  if (token === ctx.accessToken) return;
  const check = ctx.tokens?.check(token) ?? 'unknown';
  if (check === 'valid') return;
  const expired = check === 'expired';
  throw new HttpError(401, expired ? 'The access token has expired' : 'The bearer token is not valid', [], {
    'www-authenticate': `Bearer error="invalid_token", error_description="${expired ? 'The access token expired' : 'The access token is not valid'}"`,
  });
}

function pairOr404(ctx: ApiContext, rawId: string): VenuePair {
  const id = pathSegment(rawId, 'trading pair id');
  const p = ctx.state.pair(id);
  if (p === undefined || !ctx.state.activePairs().includes(p)) throw notFound(`No trading pair with id ${id}`);
  return p;
}

/**
 * An order list page, with the venue SDK's query: `trading_pair` (a pair id), `only_open` (default true; false
 * adds the filled, cancelled and rejected orders the venue still keeps), `limit` (1-1000, default 100), `cursor`
 * (from `next_cursor`), `count` (adds `total_count`). Orders come in (pair id, order id) order.
 */
function ordersBody(req: ApiRequest, ctx: ApiContext, filter: (wallet: string) => boolean): Record<string, unknown> {
  const pair = req.params.get('trading_pair');
  const onlyOpen = parseBoolean(req.params, 'only_open') ?? true;
  const limit = parseLimit(req.params, 'limit') ?? ORDER_PAGE;
  const count = parseBoolean(req.params, 'count') ?? false;
  const after = parseOrderCursor(req.params);
  const orders = ctx.state.orders.list(
    (o) => filter(o.wallet) && (pair === null || pair === '' || o.pairId === pair),
    onlyOpen,
  );
  const start =
    after === undefined
      ? 0
      : orders.findIndex((o) => o.pairId > after.pairId || (o.pairId === after.pairId && o.orderId > after.orderId));
  const page = start < 0 ? [] : orders.slice(start, start + limit);
  const last = page.at(-1);
  const more = start >= 0 && start + limit < orders.length && last !== undefined;
  const items = page.flatMap((o) => {
    const p = ctx.state.pair(o.pairId);
    return p === undefined ? [] : [orderRecord(p, o, ctx.validUntil?.(o.placedAtMs))];
  });
  return {
    items,
    ...(more ? { next_cursor: orderCursor(last.pairId, last.orderId) } : {}),
    ...(count ? { total_count: orders.length } : {}),
  };
}

function tradingPairList(req: ApiRequest, ctx: ApiContext): Record<string, unknown> {
  // The test environment ignores limit and returns every active pair in one page; the values are still checked.
  parseNonNegativeInteger(req.params, 'limit');
  parseNonNegativeInteger(req.params, 'offset');
  parseBoolean(req.params, 'count');
  const cursor = req.params.get('cursor');
  if (cursor !== null && cursor !== '') throw badRequest(`cursor ${JSON.stringify(cursor)} was not issued by this API`);
  const items = ctx.state.activePairs().map(pairRecord);
  return { items, total_count: items.length };
}

function ohlc(req: ApiRequest, ctx: ApiContext, p: VenuePair): Record<string, unknown> {
  const interval = parseInterval(req.params);
  const now = ctx.nowMs();
  const to = parseInstant(req.params, 'to') ?? now + 1;
  const from = parseUnixSeconds(req.params, 'starting') ?? parseInstant(req.params, 'from') ?? to - interval.ms * 500;
  if (from >= to) throw badRequest('from must be before to');
  const limit = parseLimit(req.params, 'limit', MAX_OHLC_POINTS) ?? MAX_OHLC_POINTS;
  const items = p.market.trades.candles(interval.ms, from, to, limit).map((c) => ohlcPoint(p, c));
  return { tradingPairId: p.id, interval: interval.name, items };
}

/** Answers one API request; throws HttpError for every refusal. */
export function routeApi(req: ApiRequest, ctx: ApiContext): unknown {
  if (req.method !== 'GET')
    throw new HttpError(405, `${req.method} is not allowed; the venue API is read-only`, [], { allow: 'GET' });
  const seg = req.path.split('/').slice(1);
  const [head, id, tail, ...rest] = seg;
  if (rest.length > 0) throw notFound(`No resource ${req.path}`);
  switch (head) {
    case 'financialinstruments': {
      const sources = instrumentSources(ctx);
      if (id === undefined) {
        const f = parseInstrumentFilter(req.params);
        return sources
          .filter(
            (s) =>
              (f.primaryMarket === undefined || s.seed.primaryMarket === f.primaryMarket) &&
              (f.secondaryMarket === undefined || f.secondaryMarket),
          )
          .map(instrumentSummary);
      }
      if (tail !== undefined) break;
      const wanted = pathSegment(id, 'instrument id');
      const src = sources.find((s) => instrumentId(s.symbol) === wanted || s.isin === wanted);
      if (src === undefined) throw notFound(`No financial instrument with id ${wanted}`);
      return instrumentDetail(src);
    }
    case 'tradingpairs': {
      if (id === undefined) return tradingPairList(req, ctx);
      const p = pairOr404(ctx, id);
      switch (tail) {
        case undefined:
          return pairRecord(p);
        case 'ohlc':
          return ohlc(req, ctx, p);
        case 'tradeinfo':
          return tradeInfo(p, ctx.nowMs(), ctx.haltEnd?.(p.id));
        case 'pricelevels':
          return priceLevels(p, parseLimit(req.params));
        case 'orderbook':
          return orderBook(p, parseLimit(req.params));
        default:
          break;
      }
      break;
    }
    case 'posttrade':
      if (id === 'recent' && tail === undefined) return recentPostTrades(ctx.state.activePairs(), req.params);
      break;
    case 'participants': {
      if (id === undefined || tail !== 'orders') break;
      requireBearer(req, ctx);
      const participant = pathSegment(id, 'participant id');
      if (participant !== ctx.state.participantId) throw notFound(`No participant ${participant} for this token`);
      return ordersBody(req, ctx, (w) => ctx.state.ownsWallet(w));
    }
    case 'wallets': {
      if (id === 'byaddress' && tail !== undefined) {
        requireBearer(req, ctx);
        const record = ctx.state.walletRecord(pathSegment(tail, 'wallet address'));
        if (record === undefined) throw notFound(`No wallet ${tail} of this participant`);
        return { address: pathSegment(tail, 'wallet address'), ...record };
      }
      if (id === undefined || (tail !== 'orders' && tail !== 'trades')) break;
      requireBearer(req, ctx);
      const address = pathSegment(id, 'wallet address');
      if (!EVM_ADDRESS.test(address) && !WASM_ACCOUNT.test(address)) {
        throw badRequest(
          `wallet address ${JSON.stringify(address)} is neither a chain A address (0x and 40 hex digits) nor a chain B account (G...)`,
        );
      }
      if (!ctx.state.ownsWallet(address)) throw notFound(`No wallet ${address} of this participant`);
      if (tail === 'trades') return tradesBody(req.params, ctx.state, address);
      const key = walletKey(address);
      return ordersBody(req, ctx, (w) => walletKey(w) === key);
    }
    default:
      break;
  }
  throw notFound(`No resource ${req.path}`);
}
