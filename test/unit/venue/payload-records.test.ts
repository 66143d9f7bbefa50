import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.ts';
import { decodeAppError, errorCodeForStatus, httpError } from '../../../src/venue/payload/app-error.ts';
import { parseInstrument, parseInstrumentList } from '../../../src/venue/payload/instruments.ts';
import { JsonNumberText } from '../../../src/venue/payload/json.ts';
import { parseOhlcSeries } from '../../../src/venue/payload/ohlc.ts';
import {
  isClosedStatus,
  parseOrderList,
  parseOrderPage,
  unknownOrderValues,
} from '../../../src/venue/payload/orders.ts';
import { parseTradeInfo } from '../../../src/venue/payload/trade-info.ts';
import { parsePair, parsePairPage } from '../../../src/venue/payload/trading-pairs.ts';
import { thrown } from '../../support/errors.ts';
import { loadPairFixture } from '../../support/pairs.ts';

describe('trade info', () => {
  it('parses the decimal strings to Decimal and keeps the other fields', () => {
    const info = parseTradeInfo(
      {
        lastPrice: '101.2',
        referencePrice: '100',
        priceChange24h: '-1.25',
        tradeVolume24h: '340.5',
        liquidityBand: 4,
        tradingStatus: 'CONTINUOUS_TRADING',
        statusChangeReason: 'START_OF_TRADING_DAY',
        tradingHaltCounter: 0,
        venueExtra: 'x',
      },
      't',
    );
    expect(info.lastPrice?.eq(new Decimal('101.2'))).toBe(true);
    expect(info.priceChange24h?.eq(new Decimal('-1.25'))).toBe(true);
    expect(info.tradeVolume24h?.toFixed()).toBe('340.5');
    expect([info.liquidityBand, info.tradingStatus, info.statusChangeReason, info.tradingHaltCounter]).toEqual([
      4,
      'CONTINUOUS_TRADING',
      'START_OF_TRADING_DAY',
      0,
    ]);
    expect(info.raw.venueExtra).toBe('x');
  });
  it('reads null as no value, and names a bad field with its value', () => {
    expect(parseTradeInfo({ lastPrice: null, tradingStatus: 'OUT_OF_TRADING' }, 't').lastPrice).toBeUndefined();
    const e = thrown(() =>
      parseTradeInfo({ lastPrice: '1.2.3', tradingHaltCounter: -1 }, '/tradingpairs/{id}/tradeinfo'),
    );
    expect(e.code).toBe('E_PAYLOAD_MALFORMED');
    expect(e.details.problems).toEqual([
      { field: 'lastPrice', value: '1.2.3', message: 'expected a decimal string or a JSON number' },
      { field: 'tradingHaltCounter', value: -1, message: expect.stringContaining('>=0') },
    ]);
  });
});

describe('OHLC series', () => {
  it('accepts numbers or decimal strings, and x in epoch seconds, epoch milliseconds or ISO text', () => {
    const ms = Date.UTC(2026, 2, 2, 9, 0, 0);
    const series = parseOhlcSeries(
      [
        { x: ms / 1000, o: '100', h: '101.5', l: 99.5, c: 100.25 },
        { x: ms, o: 1, h: 1, l: 1, c: 1 },
        { x: '2026-03-02T09:00:00Z', o: '1', h: '1', l: '1', c: '1' },
      ],
      'o',
    );
    expect(series.items.map((p) => p.startMs)).toEqual([ms, ms, ms]);
    expect(series.items[0]?.low.toFixed()).toBe('99.5');
    expect(series.items[0]?.close.toFixed()).toBe('100.25');
  });
  it('finds the series inside an object and sets a bad point aside with its field and value', () => {
    const r = parseOhlcSeries(
      {
        series: [
          { x: 1, o: '1', h: '1', l: '1', c: '1' },
          { x: 'yesterday', o: '1', h: '1', l: '1', c: '1' },
        ],
      },
      'o',
    );
    expect(r.items).toHaveLength(1);
    expect(r.rejected).toEqual([
      {
        index: 1,
        problems: [
          {
            field: 'series.1.x',
            value: 'yesterday',
            message: 'expected epoch seconds or milliseconds, or an ISO 8601 date-time',
          },
        ],
      },
    ]);
  });
});

describe('order records', () => {
  it('requires externalOrderId as a uint64 (safe JSON number or string) and keeps every other field', () => {
    const r = parseOrderList(
      {
        orders: [
          { externalOrderId: 42, price: '1.5', side: 'BUY' },
          { externalOrderId: '18446744073709551615' },
          { externalOrderId: 2 ** 60 },
          { externalOrderId: new JsonNumberText('9007199254740993') },
          { externalOrderId: '18446744073709551616' },
          { price: '1' },
        ],
      },
      'w',
    );
    expect(r.items.map((o) => o.externalOrderId)).toEqual([42n, 18446744073709551615n]);
    expect(r.items[0]?.raw).toEqual({ externalOrderId: 42, price: '1.5', side: 'BUY' });
    expect(r.rejected.map((x) => [x.index, x.problems[0]?.field, x.problems[0]?.message])).toEqual([
      [2, 'orders.2.externalOrderId', 'not a safe integer: a 64-bit id must be sent as a string'],
      [3, 'orders.3.externalOrderId', 'not a safe integer: a 64-bit id must be sent as a string'],
      [4, 'orders.4.externalOrderId', 'outside uint64'],
      [5, 'orders.5.externalOrderId', 'expected a 64-bit unsigned integer (number or string)'],
    ]);
  });
  it("reads the venue SDK's record: side from orderKind, decimal strings as Decimals, the page envelope", () => {
    const sdk = {
      id: 'ord-9',
      creationDate: '2026-03-02T09:00:00Z',
      modificationDate: '2026-03-02T09:05:00Z',
      externalOrderId: 9,
      tradingPairId: 'tp-1',
      orderKind: 'SELL',
      orderType: 'LIMIT',
      initialQuantity: '2',
      remainingQuantity: '0.5',
      priceLimit: '100.25',
      status: 'OPEN',
      statusReason: 'N_A',
      statusChangeTime: '2026-03-02T09:00:00Z',
      finalityStatus: 'NON_FINAL',
    };
    const page = parseOrderPage(
      {
        items: [
          sdk,
          { ...sdk, externalOrderId: 10, orderKind: 'SIDEWAYS' },
          { ...sdk, externalOrderId: 11, remainingQuantity: '-1' },
        ],
        next_cursor: 'c2',
        total_count: 7,
      },
      'w',
    );
    expect(page.items).toHaveLength(1);
    const o = page.items[0];
    expect([
      o?.id,
      o?.tradingPairId,
      o?.side,
      o?.orderType,
      o?.status,
      o?.statusReason,
      o?.finalityStatus,
      o?.creationDate,
      o?.modificationDate,
    ]).toEqual([
      'ord-9',
      'tp-1',
      'sell',
      'LIMIT',
      'OPEN',
      'N_A',
      'NON_FINAL',
      '2026-03-02T09:00:00Z',
      '2026-03-02T09:05:00Z',
    ]);
    expect([o?.initialQuantity?.toFixed(), o?.remainingQuantity?.toFixed(), o?.priceLimit?.toFixed()]).toEqual([
      '2',
      '0.5',
      '100.25',
    ]);
    expect(page.rejected.map((x) => x.problems[0]?.field)).toEqual(['items.1.orderKind', 'items.2.remainingQuantity']);
    expect([page.received, page.nextCursor, page.totalCount]).toEqual([3, 'c2', 7]);
  });
  it('reads the further fields of a closed order: reporting values, cross identifier, validity, condition, address', () => {
    const closed = {
      externalOrderId: 12,
      status: 'CANCELLED',
      statusReason: 'BY_CONTRACT',
      statusChangeTime: '2026-03-02T16:05:00Z',
      ownerReportingData: { ownerReportingId: 21, decisionReportingId: '1' },
      crossIdentifier: 3_506_438_145,
      validUntil: '2026-03-02T16:00:00Z',
      executionCondition: 'NONE',
      address: '0x00000000000000000000000000000000000000aa',
    };
    const page = parseOrderPage(
      {
        items: [
          closed,
          { ...closed, externalOrderId: 13, status: 'FILLED', crossIdentifier: '0xd1000002', ownerReportingData: null },
          { ...closed, externalOrderId: 14, status: 'REJECTED', crossIdentifier: '', validUntil: null },
          { ...closed, externalOrderId: 15, crossIdentifier: 2 ** 32 },
          { ...closed, externalOrderId: 16, ownerReportingData: { ownerReportingId: -1 } },
          { ...closed, externalOrderId: 17, ownerReportingData: 'x' },
          { ...closed, externalOrderId: 18, validUntil: 'tomorrow' },
        ],
      },
      'w',
    );
    expect(page.items.map((o) => [o.externalOrderId, o.status, o.crossIdentifier, o.ownerReportingData])).toEqual([
      [12n, 'CANCELLED', 0xd1_000001n, { ownerReportingId: 21, decisionReportingId: 1 }],
      [13n, 'FILLED', 0xd1_000002n, undefined],
      [14n, 'REJECTED', undefined, { ownerReportingId: 21, decisionReportingId: 1 }],
    ]);
    expect(page.items[0]).toMatchObject({
      statusReason: 'BY_CONTRACT',
      statusChangeTime: '2026-03-02T16:05:00Z',
      validUntil: '2026-03-02T16:00:00Z',
      executionCondition: 'NONE',
      address: '0x00000000000000000000000000000000000000aa',
    });
    expect(page.items[2]?.validUntil).toBeUndefined();
    // A malformed further field sets its item aside, like any known field.
    expect(page.rejected.map((x) => x.problems[0]?.field)).toEqual([
      'items.3.crossIdentifier',
      'items.4.ownerReportingData.ownerReportingId',
      'items.5.ownerReportingData',
      'items.6.validUntil',
    ]);
    expect(page.items.map((o) => isClosedStatus(o.status))).toEqual([true, true, true]);
    expect([isClosedStatus('OPEN'), isClosedStatus('SUSPENDED'), isClosedStatus(undefined)]).toEqual([
      false,
      false,
      false,
    ]);
  });
  it('an order status or reason it does not know is kept as data and named', () => {
    const page = parseOrderPage(
      {
        items: [
          { externalOrderId: 1, status: 'OPEN', statusReason: 'N_A' },
          { externalOrderId: 2, status: 'CANCELLED', statusReason: 'TRADING_PAIR_OFFBOARDING' },
          { externalOrderId: 3, status: 'SUSPENDED', statusReason: 'CAPACITY_LIMIT_HALT' },
        ],
      },
      'w',
    );
    expect(page.rejected).toEqual([]);
    expect(page.items.map(unknownOrderValues)).toEqual([
      [],
      [{ field: 'order.statusReason', value: 'TRADING_PAIR_OFFBOARDING' }],
      [
        { field: 'order.status', value: 'SUSPENDED' },
        { field: 'order.statusReason', value: 'CAPACITY_LIMIT_HALT' },
      ],
    ]);
    // An unknown status never reads as an ended order.
    expect(isClosedStatus(page.items[2]?.status)).toBe(false);
  });
  it('finds the array of an unnamed container, or refuses an ambiguous one', () => {
    expect(parseOrderList({ whatever: [{ externalOrderId: 1 }] }, 'w').items).toHaveLength(1);
    expect(parseOrderList([{ externalOrderId: 1 }], 'w').items).toHaveLength(1);
    expect(thrown(() => parseOrderList({ a: [], b: [] }, 'w')).code).toBe('E_PAYLOAD_MALFORMED');
  });
});

describe('instruments', () => {
  it('keeps the valid items of a list and sets the bad one aside', () => {
    const r = parseInstrumentList(
      [{ symbol: 'BOND26', isin: 'DE000A1B2C34', other: 1 }, { symbol: 'X', isin: 'not-an-isin' }, { symbol: null }],
      'i',
    );
    expect(r.items.map((i) => i.symbol)).toEqual(['BOND26', null]);
    expect(r.items[0]).toMatchObject({ other: 1 });
    expect(r.rejected).toEqual([
      { index: 1, problems: [{ field: '1.isin', value: 'not-an-isin', message: 'expected an ISIN' }] },
    ]);
  });
  it('the detail requires fullName and checks the formats', () => {
    expect(
      parseInstrument({ fullName: 'Bond 2026', cfi: 'DBFTFB', domicile: 'DE', displayData: { any: 'thing' } }, 'i')
        .fullName,
    ).toBe('Bond 2026');
    const e = thrown(() => parseInstrument({ cfi: 'dbf', wkn: '1234567' }, 'i'));
    expect((e.details.problems as { field: string }[]).map((p) => p.field)).toEqual(['fullName', 'wkn', 'cfi']);
  });
});

describe('trading pairs', () => {
  it('a page keeps valid pairs, sets bad ones aside with field and value, and reads cursor and count', () => {
    const good = loadPairFixture('evm-pair');
    const page = parsePairPage(
      { items: [good, { ...good, id: 'bad', smartContractBase: '0xZZ' }], next_cursor: 'abc', total_count: 2 },
      '/tradingpairs',
    );
    expect(page.items.map((p) => p.id)).toEqual(['tp-evm-bond-eure']);
    expect(page.rejected).toEqual([
      {
        index: 1,
        problems: [{ field: 'items.1.smartContractBase', value: '0xZZ', message: 'expected a hex contract address' }],
      },
    ]);
    expect([page.received, page.nextCursor, page.totalCount]).toEqual([2, 'abc', 2]);
  });
  it('the list must be the object envelope, not a top-level array', () => {
    expect(thrown(() => parsePairPage([loadPairFixture('evm-pair')], '/tradingpairs')).code).toBe(
      'E_PAYLOAD_MALFORMED',
    );
  });
  it('a single pair that fails is E_PAIR_INVALID with every problem and its value; a zero scale too', () => {
    const e = thrown(() =>
      parsePair(
        { ...loadPairFixture('wasm-pair'), quoteTokenNativeScale: 7, smartContractQuote: 'G...' },
        '/tradingpairs/{id}',
      ),
    );
    expect(e.code).toBe('E_PAIR_INVALID');
    expect((e.details.problems as { field: string; value: unknown }[]).map((p) => [p.field, p.value])).toEqual([
      ['smartContractQuote', 'G...'],
      ['quoteTokenNativeScale', 7],
    ]);
    expect(thrown(() => parsePair({ ...loadPairFixture('wasm-pair'), baseTokenNativeScale: '0' }, 's')).code).toBe(
      'E_SCALE_FORMAT',
    );
  });
});

describe('AppError', () => {
  it('decodes the error body into the error details and picks the code by status', () => {
    const body = JSON.stringify({ code: 'RATE_LIMITED', message: 'slow down', status: 429, details: ['x'] });
    expect(decodeAppError(body)).toEqual({ code: 'RATE_LIMITED', message: 'slow down', status: 429, details: ['x'] });
    expect(decodeAppError('<html>')).toBeUndefined();
    expect([401, 403, 404, 400, 409, 429, 500, 503].map(errorCodeForStatus)).toEqual([
      'E_REST_AUTH',
      'E_REST_AUTH',
      'E_REST_NOT_FOUND',
      'E_REST_REQUEST',
      'E_REST_REQUEST',
      'E_REST_UNAVAILABLE',
      'E_REST_UNAVAILABLE',
      'E_REST_UNAVAILABLE',
    ]);
    const e = httpError({
      method: 'GET',
      endpoint: '/x/{id}',
      path: '/x/1',
      status: 404,
      bodyText: JSON.stringify({ code: 'NOT_FOUND', message: 'no pair' }),
      attempts: 1,
    });
    expect(e.message).toBe('GET /x/1: HTTP 404: NOT_FOUND: no pair');
    expect(e.details.appError).toEqual({ code: 'NOT_FOUND', message: 'no pair' });
    expect(
      httpError({ method: 'GET', endpoint: '/x', path: '/x', status: 502, bodyText: 'Bad Gateway', attempts: 3 })
        .details,
    ).toMatchObject({ body: 'Bad Gateway', attempts: 3 });
  });
});
