/**
 * Every REST endpoint of the venue, with typed results validated at the boundary. Lists keep their valid
 * items and report each bad one (log line and `dltmm_venue_malformed_payloads_total`); a single record
 * that fails is an error naming the field and the value, and is counted the same way.
 */
import type { Logger } from 'pino';
import { DltError } from '../core/errors.ts';
import type { TradingPair } from '../core/pair.ts';
import type { Metrics } from '../telemetry/metrics.ts';
import { collectPages, type PageCheck } from './collect-pages.ts';
import {
  parseInstrument,
  parseInstrumentList,
  type FinancialInstrument,
  type FinancialInstrumentSummary,
} from './payload/instruments.ts';
import { parseOhlcSeries, type OhlcPoint } from './payload/ohlc.ts';
import { parseOrderBookSnapshot, type OrderBookSnapshot } from './payload/order-book.ts';
import { parseOrderPage, unknownOrderValues, type VenueOrder, type VenueOrderPage } from './payload/orders.ts';
import { parsePostTrades, type PostTrade } from './payload/posttrade.ts';
import type { Lenient } from './payload/problems.ts';
import { parseTradeInfo, unknownValues, type TradeInfo } from './payload/trade-info.ts';
import { parseWalletStatus, type WalletStatus } from './payload/wallet-status.ts';
import { parseTradePage, type VenueTrade, type VenueTradePage } from './payload/wallet-trades.ts';
import { parsePair, parsePairPage, type TradingPairPage } from './payload/trading-pairs.ts';
import type { CallOptions, InstrumentFilter, OrderQuery, PairPageQuery } from './rest-queries.ts';
import type { QueryValue, RestTransport } from './rest-transport.ts';

export type { CallOptions, InstrumentFilter, OrderQuery, PairPageQuery } from './rest-queries.ts';

const seg = encodeURIComponent;

export class VenueRestClient {
  readonly #transport: RestTransport;
  readonly #logger: Logger;
  readonly #metrics: Metrics;
  /** Unknown values said once each (they are counted every time). */
  readonly #unknownSeen = new Set<string>();

  constructor(transport: RestTransport) {
    this.#transport = transport;
    this.#logger = transport.logger;
    this.#metrics = transport.metrics;
  }

  /**
   * `GET /financialinstruments`. The serialisation of the `query` object is not published: its booleans are
   * sent as plain query parameters (`?primaryMarket=true&secondaryMarket=false`).
   */
  async listFinancialInstruments(
    filter: InstrumentFilter = {},
    options: CallOptions = {},
  ): Promise<FinancialInstrumentSummary[]> {
    const endpoint = '/financialinstruments';
    const body = await this.#get(
      endpoint,
      endpoint,
      { primaryMarket: filter.primaryMarket, secondaryMarket: filter.secondaryMarket },
      options,
    );
    return this.#lenient(
      endpoint,
      this.#single(endpoint, () => parseInstrumentList(body, endpoint)),
    );
  }

  async getFinancialInstrument(id: string, options: CallOptions = {}): Promise<FinancialInstrument> {
    const endpoint = '/financialinstruments/{id}';
    const body = await this.#get(endpoint, `/financialinstruments/${seg(id)}`, {}, options);
    return this.#single(endpoint, () => parseInstrument(body, endpoint));
  }

  /** One page of `GET /tradingpairs`; see `listTradingPairs` for every pair. */
  async getTradingPairPage(query: PairPageQuery = {}, options: CallOptions = {}): Promise<TradingPairPage> {
    const endpoint = '/tradingpairs';
    const body = await this.#get(
      endpoint,
      endpoint,
      { cursor: query.cursor, limit: query.limit, count: query.count },
      options,
    );
    const page = this.#single(endpoint, () => parsePairPage(body, endpoint));
    this.#lenient(endpoint, page);
    return page;
  }

  /**
   * Every active pair. The test environment ignores `limit` and returns all pairs in one page; a venue that
   * pages is followed by `next_cursor` until `total_count` items have arrived.
   */
  async listTradingPairs(options: CallOptions & { readonly pageSize?: number } = {}): Promise<TradingPair[]> {
    return collectPages(
      (cursor) =>
        this.getTradingPairPage(
          { ...(cursor === undefined ? {} : { cursor }), limit: options.pageSize, count: true },
          options,
        ),
      (check) => this.#reportPaging(check),
    );
  }

  async getTradingPair(id: string, options: CallOptions = {}): Promise<TradingPair> {
    const endpoint = '/tradingpairs/{id}';
    const body = await this.#get(endpoint, `/tradingpairs/${seg(id)}`, {}, options);
    return this.#single(endpoint, () => parsePair(body, endpoint));
  }

  /** `GET /tradingpairs/{id}/ohlc`; its query parameters are not published, so they pass through as given. */
  async getOhlc(
    id: string,
    query: Readonly<Record<string, QueryValue>> = {},
    options: CallOptions = {},
  ): Promise<OhlcPoint[]> {
    const endpoint = '/tradingpairs/{id}/ohlc';
    const body = await this.#get(endpoint, `/tradingpairs/${seg(id)}/ohlc`, query, options);
    return this.#lenient(
      endpoint,
      this.#single(endpoint, () => parseOhlcSeries(body, endpoint)),
    );
  }

  async getTradeInfo(id: string, options: CallOptions = {}): Promise<TradeInfo> {
    const endpoint = '/tradingpairs/{id}/tradeinfo';
    const body = await this.#get(endpoint, `/tradingpairs/${seg(id)}/tradeinfo`, {}, options);
    const info = this.#single(endpoint, () => parseTradeInfo(body, endpoint));
    this.#unknown(endpoint, unknownValues(info), { pair: id });
    return info;
  }

  /**
   * `GET /posttrade/recent` (anonymous): the venue's public trades, newest first, of one pair when `tradingPair`
   * (a pair id) is given; `limit` asks for at most that many. Bad items are skipped, logged and counted.
   */
  async getRecentPostTrades(
    query: { readonly tradingPair?: string; readonly limit?: number } = {},
    options: CallOptions = {},
  ): Promise<PostTrade[]> {
    const endpoint = '/posttrade/recent';
    const body = await this.#get(endpoint, endpoint, { tradingpair: query.tradingPair, limit: query.limit }, options);
    return this.#lenient(
      endpoint,
      this.#single(endpoint, () => parsePostTrades(body, endpoint)),
    );
  }

  /** Aggregated by price; `limit` bounds the levels per side. */
  async getPriceLevels(id: string, limit?: number, options: CallOptions = {}): Promise<OrderBookSnapshot> {
    const endpoint = '/tradingpairs/{id}/pricelevels';
    const body = await this.#get(endpoint, `/tradingpairs/${seg(id)}/pricelevels`, { limit }, options);
    return this.#single(endpoint, () => parseOrderBookSnapshot(body, endpoint, id));
  }

  /** One entry per order; `limit` bounds the entries per side. */
  async getOrderBook(id: string, limit?: number, options: CallOptions = {}): Promise<OrderBookSnapshot> {
    const endpoint = '/tradingpairs/{id}/orderbook';
    const body = await this.#get(endpoint, `/tradingpairs/${seg(id)}/orderbook`, { limit }, options);
    return this.#single(endpoint, () => parseOrderBookSnapshot(body, endpoint, id));
  }

  /** Open orders across the participant's wallets (bearer token), every page; `onlyOpen: false` adds ended ones. */
  getParticipantOrders(
    participantId: string,
    query: OrderQuery = {},
    options: CallOptions = {},
  ): Promise<VenueOrder[]> {
    return this.#orders(
      '/participants/{participant_id}/orders',
      `/participants/${seg(participantId)}/orders`,
      query,
      options,
    );
  }

  /** Open orders of one wallet (bearer token), every page; `onlyOpen: false` adds ended ones. */
  getWalletOrders(walletAddress: string, query: OrderQuery = {}, options: CallOptions = {}): Promise<VenueOrder[]> {
    return this.#orders('/wallets/{wallet_address}/orders', `/wallets/${seg(walletAddress)}/orders`, query, options);
  }

  /** The venue's record of one of the participant's wallets (bearer token): its status and designation. */
  async getWalletStatus(walletAddress: string, options: CallOptions = {}): Promise<WalletStatus> {
    const endpoint = '/wallets/byaddress/{wallet_address}';
    const body = await this.#get(endpoint, `/wallets/byaddress/${seg(walletAddress)}`, {}, options, true);
    return this.#single(endpoint, () => parseWalletStatus(body, endpoint));
  }

  /**
   * The wallet's trades (bearer token), every page (`count=true`, following `next_cursor`); a malformed item
   * is logged, counted and left out. `tradingPair` narrows to one pair id; `pageSize` is `limit`.
   */
  getWalletTrades(
    walletAddress: string,
    query: { readonly tradingPair?: string; readonly pageSize?: number } = {},
    options: CallOptions = {},
  ): Promise<VenueTrade[]> {
    const endpoint = '/wallets/{wallet_address}/trades';
    const path = `/wallets/${seg(walletAddress)}/trades`;
    const fetchPage = async (cursor: string | undefined): Promise<VenueTradePage> => {
      const q = { trading_pair: query.tradingPair, limit: query.pageSize, cursor, count: true };
      const body = await this.#get(endpoint, path, q, options, true);
      const page = this.#single(endpoint, () => parseTradePage(body, endpoint));
      this.#lenient(endpoint, page);
      return page;
    };
    return collectPages(fetchPage, (check) => this.#reportPaging(check, endpoint));
  }

  /** Follows `next_cursor` through an order list (`count=true` asks for `total_count`, so a short list is seen). */
  #orders(endpoint: string, path: string, query: OrderQuery, options: CallOptions): Promise<VenueOrder[]> {
    const fetchPage = async (cursor: string | undefined): Promise<VenueOrderPage> => {
      const q = {
        trading_pair: query.tradingPair,
        only_open: query.onlyOpen ?? true,
        limit: query.pageSize,
        cursor,
        count: true,
      };
      const body = await this.#get(endpoint, path, q, options, true);
      const page = this.#single(endpoint, () => parseOrderPage(body, endpoint));
      for (const o of this.#lenient(endpoint, page))
        this.#unknown(endpoint, unknownOrderValues(o), { orderId: o.externalOrderId.toString() });
      return page;
    };
    return collectPages(fetchPage, (check) => this.#reportPaging(check, endpoint));
  }

  #get(
    endpoint: string,
    path: string,
    query: Readonly<Record<string, QueryValue>>,
    options: CallOptions,
    auth = false,
  ): Promise<unknown> {
    return this.#transport.get({
      endpoint,
      path,
      query,
      auth,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }

  /** Values the bot does not know are counted every time and said once each: data, never a failure. */
  #unknown(
    endpoint: string,
    values: readonly { readonly field: string; readonly value: string }[],
    context: Record<string, string>,
  ): void {
    for (const u of values) {
      this.#metrics.venue.unknownValues.inc({ field: u.field, value: u.value.slice(0, 64) });
      if (this.#unknownSeen.has(`${u.field}=${u.value}`)) continue;
      this.#unknownSeen.add(`${u.field}=${u.value}`);
      this.#logger.warn({ endpoint, ...context, ...u }, 'venue sent a value this bot does not know; kept as data');
    }
  }

  /** Runs a parser; a failure is counted, logged and rethrown. */
  #single<T>(endpoint: string, parse: () => T): T {
    try {
      return parse();
    } catch (e) {
      if (e instanceof DltError) {
        this.#metrics.venue.malformedPayloads.inc({ source: endpoint });
        this.#metrics.venue.restErrors.inc({ endpoint, code: e.code });
        this.#logger.warn({ err: e, endpoint }, 'venue payload rejected');
      }
      throw e;
    }
  }

  /** Reports the items a list set aside and returns the valid ones. */
  #lenient<T>(endpoint: string, result: Lenient<T>): T[] {
    for (const r of result.rejected) {
      this.#metrics.venue.malformedPayloads.inc({ source: endpoint });
      this.#logger.warn(
        { endpoint, index: r.index, problems: r.problems },
        'venue list item rejected; keeping the others',
      );
    }
    return result.items;
  }

  #reportPaging(check: PageCheck, endpoint = '/tradingpairs'): void {
    this.#metrics.venue.malformedPayloads.inc({ source: `${endpoint}#paging` });
    this.#logger.warn({ ...check, endpoint }, 'venue list is incomplete');
  }
}
