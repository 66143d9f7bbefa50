import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.ts';
import { decodeMarketDataMessage, describeErrors } from '../../../src/venue/market-data/decode.ts';
import { thrown } from '../../support/errors.ts';

const TIME = '2026-03-02T09:00:00.000Z';

function data(text: string) {
  const m = decodeMarketDataMessage(text);
  if (m.type !== 'data') throw new Error(`expected a data frame, got ${m.type}`);
  return m;
}

describe('market-data frame decoding', () => {
  it('turns number levels into Decimals equal to their source text, never floats', () => {
    const m = data(
      `{"channel":"orderbook","data":[{"symbol":"BOND26EURe","buy":[{"limit":0.3,"totalQuantity":0.1,"orderCount":2}],"sell":[{"limit":123456789.123456789,"totalQuantity":1e-7,"orderCount":1}],"time":"${TIME}"}]}`,
    );
    const market = m.markets[0];
    expect(market?.symbol).toBe('BOND26EURe');
    expect(market?.buy[0]?.limit.eq(new Decimal('0.3'))).toBe(true);
    expect(market?.buy[0]?.quantity.eq(new Decimal('0.1'))).toBe(true);
    // 0.1 + 0.2 is 0.30000000000000004 in floats; Decimals from the source text add up exactly.
    expect(market?.buy[0]?.quantity.add(new Decimal('0.2')).eq(market.buy[0]?.limit ?? 0)).toBe(true);
    // 18 significant digits: a double would give 123456789.12345679.
    expect(market?.sell[0]?.limit.toFixed()).toBe('123456789.123456789');
    expect(market?.sell[0]?.quantity.toFixed()).toBe('0.0000001');
    expect(market?.sell[0]?.orderCount).toBe(1);
    expect(market?.time).toBe(TIME);
  });

  it('accepts decimal strings as well as numbers', () => {
    const m = data(
      `{"channel":"orderbook","data":[{"symbol":"A","buy":[{"limit":"99.5","totalQuantity":"2","orderCount":1}],"sell":[],"time":"${TIME}"}]}`,
    );
    expect(m.markets[0]?.buy[0]?.limit.toFixed()).toBe('99.5');
  });

  it('keeps the good markets of a frame and sets a bad one aside with the field and value', () => {
    const m = data(
      JSON.stringify({
        channel: 'orderbook',
        data: [
          { symbol: 'A', buy: [], sell: [], time: TIME },
          { symbol: 'B', buy: [{ limit: 'abc', totalQuantity: 1, orderCount: 1 }], sell: [], time: TIME },
          { symbol: 'C', buy: [], sell: [], time: 'yesterday' },
        ],
      }),
    );
    expect(m.markets.map((x) => x.symbol)).toEqual(['A']);
    expect(m.rejected).toEqual([
      {
        index: 1,
        symbol: 'B',
        problems: [
          { field: 'data.1.buy.0.limit', value: 'abc', message: 'expected a decimal string or a JSON number' },
        ],
      },
      {
        index: 2,
        symbol: 'C',
        problems: [{ field: 'data.2.time', value: 'yesterday', message: 'expected an ISO 8601 time' }],
      },
    ]);
  });

  it('reads events in the AppSync envelope, the data message as a JSON string with numbers or decimal strings', () => {
    const event = `{"channel":"orderbook","data":[{"symbol":"A","buy":[{"limit":99.5,"totalQuantity":"2","orderCount":1}],"sell":[{"limit":"100.25","totalQuantity":0.5,"orderCount":2}],"time":"${TIME}"}]}`;
    const m = decodeMarketDataMessage(JSON.stringify({ type: 'data', id: 'sub-9', event }));
    if (m.type !== 'data') throw new Error(m.type);
    expect(m.id).toBe('sub-9');
    expect(m.channel).toBe('orderbook');
    expect(m.markets[0]?.buy.map((l) => [l.limit.toFixed(), l.quantity.toFixed()])).toEqual([['99.5', '2']]);
    expect(m.markets[0]?.sell.map((l) => [l.limit.toFixed(), l.quantity.toFixed(), l.orderCount])).toEqual([
      ['100.25', '0.5', 2],
    ]);
    // Digits a double cannot hold survive the string round trip.
    const long = decodeMarketDataMessage(
      JSON.stringify({
        type: 'data',
        id: 's',
        event: `{"channel":"orderbook","data":[{"symbol":"A","buy":[{"limit":123456789.123456789,"totalQuantity":1,"orderCount":1}],"sell":[],"time":"${TIME}"}]}`,
      }),
    );
    expect(long.type === 'data' ? long.markets[0]?.buy[0]?.limit.toFixed() : undefined).toBe('123456789.123456789');
  });

  it('decodes the control messages of the Events protocol with their errors arrays', () => {
    expect(decodeMarketDataMessage('{"type":"connection_ack","connectionTimeoutMs":300000}')).toEqual({
      type: 'connection_ack',
      connectionTimeoutMs: 300000,
    });
    expect(decodeMarketDataMessage('{"type":"connection_ack"}')).toEqual({ type: 'connection_ack' });
    expect(decodeMarketDataMessage('{"type":"ka"}')).toEqual({ type: 'ka' });
    expect(decodeMarketDataMessage('{"id":"u-1","type":"subscribe_success"}')).toEqual({
      type: 'subscribe_success',
      id: 'u-1',
    });
    expect(decodeMarketDataMessage('{"id":"u-1","type":"unsubscribe_success"}')).toEqual({
      type: 'unsubscribe_success',
      id: 'u-1',
    });
    expect(
      decodeMarketDataMessage(
        '{"type":"connection_error","errors":[{"errorType":"UnauthorizedException","errorCode":401}]}',
      ),
    ).toEqual({
      type: 'connection_error',
      errors: [{ errorType: 'UnauthorizedException', errorCode: 401 }],
    });
    expect(
      decodeMarketDataMessage(
        '{"id":"u-2","type":"subscribe_error","errors":[{"errorType":"BadRequestException","message":"Invalid Channel Format"}]}',
      ),
    ).toEqual({
      type: 'subscribe_error',
      id: 'u-2',
      errors: [{ errorType: 'BadRequestException', message: 'Invalid Channel Format' }],
    });
    expect(
      decodeMarketDataMessage('{"type":"error","payload":{"errors":[{"errorType":"X","message":"nested"}]}}'),
    ).toEqual({ type: 'error', errors: [{ errorType: 'X', message: 'nested' }] });
    expect(
      decodeMarketDataMessage('{"id":"u-3","type":"subscribe_failure","code":"UNAUTHORIZED","message":"bad key"}'),
    ).toEqual({
      type: 'subscribe_error',
      id: 'u-3',
      errors: [{ errorType: 'UNAUTHORIZED', message: 'bad key' }],
    });
    expect(decodeMarketDataMessage('{"type":"heartbeat"}')).toEqual({ type: 'other', name: 'heartbeat' });
    expect(
      describeErrors([{ errorType: 'UnauthorizedException', message: 'You are not authorized' }, { errorCode: 429 }]),
    ).toBe('UnauthorizedException: You are not authorized; code 429');
  });

  it('refuses frames that are not JSON or have no known shape, naming what was wrong', () => {
    expect(thrown(() => decodeMarketDataMessage('{"channel":')).details.problems).toEqual([
      { field: '(root)', value: '{"channel":', message: 'frame is not JSON' },
    ]);
    expect(thrown(() => decodeMarketDataMessage('[1,2]')).code).toBe('E_PAYLOAD_MALFORMED');
    expect(thrown(() => decodeMarketDataMessage('{"channel":"orderbook","data":{}}')).details.problems).toEqual([
      { field: 'data', value: {}, message: 'expected an array of markets (or a message type)' },
    ]);
    expect(thrown(() => decodeMarketDataMessage('{"type":"subscribe_success"}')).details.problems).toEqual([
      { field: 'id', value: undefined, message: 'expected the id of the subscription' },
    ]);
    expect(thrown(() => decodeMarketDataMessage('{"type":"data","id":"s","event":"{nope"}')).details.problems).toEqual([
      { field: 'event', value: '{nope', message: 'event is not JSON' },
    ]);
    expect(thrown(() => decodeMarketDataMessage('{"type":"data","id":"s","event":7}')).details.problems).toEqual([
      { field: 'event', value: 7, message: 'expected the event as a JSON string' },
    ]);
  });
});

const envelope = (event: string, id = 't-1') => JSON.stringify({ type: 'data', id, event });
function tickers(text: string, channelOf?: (id: string) => string | undefined) {
  const m = decodeMarketDataMessage(text, channelOf);
  if (m.type !== 'ticker') throw new Error(`expected a ticker frame, got ${m.type}`);
  return m;
}

describe('ticker frames', () => {
  it('reads the documentation shape: bestBid / bestAsk as JSON numbers by their exact text, time in ISO 8601', () => {
    const m = tickers(
      envelope(
        `{"channel":"ticker","data":[{"symbol":"BOND26EURe","lastPrice":100.3,"bestBid":0.3,"bestBidQuantity":0.1,"bestAsk":123456789.123456789,"bestAskQuantity":2,"time":"${TIME}"}]}`,
      ),
    );
    expect(m.id).toBe('t-1');
    const [t] = m.tickers;
    expect(
      [t?.lastPrice, t?.bestBid, t?.bestBidQuantity, t?.bestAsk, t?.bestAskQuantity].map((d) => d?.toFixed()),
    ).toEqual(['100.3', '0.3', '0.1', '123456789.123456789', '2']);
    expect(t?.bestBidQuantity?.add(new Decimal('0.2')).eq(t.bestBid ?? 0)).toBe(true);
    expect(t?.timeMs).toBe(Date.parse(TIME));
  });

  it("reads the SDK's shape: bestBuyLimit / bestSellLimit as decimal strings, time in epoch ms, null as none", () => {
    const m = tickers(
      envelope(
        '{"channel":"ticker","data":[{"symbol":"FUND1EURe","lastPrice":null,"bestBuyLimit":"12.2","bestBuyQuantity":"0.5","bestSellLimit":null,"bestSellQuantity":null,"time":1772442000000}]}',
      ),
    );
    expect(m.tickers).toEqual([
      { symbol: 'FUND1EURe', bestBid: new Decimal('12.2'), bestBidQuantity: new Decimal('0.5'), timeMs: 1772442000000 },
    ]);
  });

  it('tells a ticker event without a channel field by the subscription it belongs to', () => {
    const event = `{"data":[{"symbol":"A","bestBid":"1","bestAsk":"2","time":"${TIME}"}]}`;
    expect(
      tickers(envelope(event, 's-9'), (id) => (id === 's-9' ? 'ticker/bytradingpair/A' : undefined)).tickers,
    ).toHaveLength(1);
    expect(decodeMarketDataMessage(envelope(event, 's-9')).type).toBe('data');
  });

  it('sets a malformed market aside with the field and value, keeping the others', () => {
    const m = tickers(
      envelope(
        `{"channel":"ticker","data":[{"symbol":"A","bestBid":"abc","time":"${TIME}"},{"symbol":"B","bestAsk":-1,"time":"${TIME}"},{"symbol":"C","bestBid":1},{"bestBid":1,"time":"${TIME}"},7,{"symbol":"D","bestAsk":"2.5","time":"${TIME}"}]}`,
      ),
    );
    expect(m.tickers.map((t) => t.symbol)).toEqual(['D']);
    expect(m.rejected.map((r) => [r.index, r.symbol, r.problems[0]?.field, r.problems[0]?.value])).toEqual([
      [0, 'A', 'data.0.bestBid', 'abc'],
      [1, 'B', 'data.1.bestAsk', -1],
      [2, 'C', 'data.2.time', undefined],
      [3, undefined, 'data.3.symbol', undefined],
      [4, undefined, 'data.4', 7],
    ]);
  });
});
