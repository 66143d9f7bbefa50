/**
 * WebSocket authorization and subscribe checks (API key, the date field in compact ISO 8601 within the
 * tolerance, the connection header's base64url JSON, channels), data messages whose level numbers keep every
 * digit inside their event envelope, and the REST fault rules.
 */
import { describe, expect, it } from 'vitest';
import { RestFaults } from '../../../../src/sandbox/api/faults.ts';
import {
  checkAuthorization,
  checkSubscribe,
  dataEnvelope,
  dataMessage,
  headerAuthorization,
  offeredProtocols,
  parseCompactUtc,
} from '../../../../src/sandbox/api/ws-messages.ts';
import { connectionProtocols } from '../../../../src/venue/market-data/subscribe-messages.ts';
import { decodeMarketDataMessage } from '../../../../src/venue/market-data/decode.ts';

const NOW = Date.UTC(2026, 2, 2, 9, 30, 0);
const cfg = { apiKey: 'secret-key', dateHeader: 'x-amz-date', toleranceMs: 300_000 };
const known = (s: string) => s === 'BOND26EURe';
const msg = (over: Record<string, unknown> = {}, auth: Record<string, unknown> = {}) => ({
  id: 'a1',
  type: 'subscribe',
  channel: 'orderbook/bytradingpair/BOND26EURe',
  authorization: { host: 'venue.example', 'x-amz-date': '20260302T093000Z', 'x-api-key': 'secret-key', ...auth },
  ...over,
});

function refusal(m: Record<string, unknown>): string {
  const r = checkSubscribe(m, cfg, NOW, known);
  return r.ok ? 'accepted' : `${r.error.errorType} ${r.id ?? '-'}`;
}

describe('subscribe checks', () => {
  it('accepts a valid subscribe for one market or all, with a leading slash tolerated', () => {
    expect(checkSubscribe(msg(), cfg, NOW, known)).toEqual({
      ok: true,
      id: 'a1',
      channel: 'orderbook/bytradingpair/BOND26EURe',
      target: { channel: 'orderbook', kind: 'pair', symbol: 'BOND26EURe' },
    });
    expect(checkSubscribe(msg({ channel: '/orderbook/*' }), cfg, NOW, known)).toMatchObject({
      ok: true,
      target: { channel: 'orderbook', kind: 'all' },
    });
    // The ticker channels of the venue's documentation, the same two forms.
    expect(checkSubscribe(msg({ channel: 'ticker/*' }), cfg, NOW, known)).toMatchObject({
      ok: true,
      target: { channel: 'ticker', kind: 'all' },
    });
    expect(checkSubscribe(msg({ channel: 'ticker/bytradingpair/BOND26EURe' }), cfg, NOW, known)).toMatchObject({
      ok: true,
      target: { channel: 'ticker', kind: 'pair', symbol: 'BOND26EURe' },
    });
    expect(checkSubscribe(msg({ channel: 'ticker/bytradingpair/NOPE' }), cfg, NOW, known)).toMatchObject({
      ok: false,
    });
  });

  it('refuses with an AppSync error type and the id echoed', () => {
    expect(refusal(msg({}, { 'x-api-key': 'wrong' }))).toBe('UnauthorizedException a1');
    expect(refusal(msg({}, { 'x-amz-date': '20260302T093501Z' }))).toBe('UnauthorizedException a1');
    expect(refusal(msg({}, { 'x-amz-date': '2026-03-02T09:30:00Z' }))).toBe('UnauthorizedException a1');
    expect(refusal(msg({}, { host: '' }))).toBe('UnauthorizedException a1');
    expect(refusal(msg({ authorization: undefined }))).toBe('UnauthorizedException a1');
    expect(refusal(msg({ channel: 'orderbook/bytradingpair/NOPE' }))).toBe('BadRequestException a1');
    expect(refusal(msg({ channel: 'trades/*' }))).toBe('BadRequestException a1');
    expect(refusal(msg({ id: 7 }))).toBe('BadRequestException -');
    expect(refusal(msg({}, { 'x-amz-date': '20260302T092500Z' }))).toBe('accepted');
    // AWS's client sends more keys (payload, x-amz-user-agent): never a reason to refuse.
    expect(refusal(msg({ payload: { channel: 'x' } }, { 'x-amz-user-agent': 'aws-amplify/6' }))).toBe('accepted');
  });

  it('reads the date from the configured field name', () => {
    const other = { ...cfg, dateHeader: 'x-acme-date' };
    expect(checkSubscribe(msg(), other, NOW, known).ok).toBe(false);
    expect(checkSubscribe(msg({}, { 'x-acme-date': '20260302T093000Z' }), other, NOW, known).ok).toBe(true);
  });

  it('reads the connection authorization from the header- subprotocol the client library writes', () => {
    const offered = offeredProtocols(
      connectionProtocols({ host: 'venue.example', apiKey: 'secret-key', dateHeader: 'x-amz-date' }, NOW).join(', '),
    );
    expect(offered[0]).toBe('aws-appsync-event-ws');
    const header = headerAuthorization(offered);
    expect(header).toEqual({ host: 'venue.example', 'x-amz-date': '20260302T093000Z', 'x-api-key': 'secret-key' });
    expect(checkAuthorization(header, cfg, NOW)).toBeUndefined();
    expect(checkAuthorization({ ...header, 'x-api-key': 'nope' }, cfg, NOW)).toEqual({
      errorType: 'UnauthorizedException',
      message: 'You are not authorized to make this call.',
    });
    expect(headerAuthorization(['aws-appsync-event-ws'])).toBeUndefined();
    expect(headerAuthorization(['header-e30'])).toEqual({});
    expect(headerAuthorization([`header-${Buffer.from('[1]').toString('base64url')}`])).toBeUndefined();
  });

  it('parses only real UTC times in the basic form', () => {
    expect(parseCompactUtc('20260302T093000Z')).toBe(NOW);
    for (const bad of ['20260230T093000Z', '20260302T253000Z', '20260302T0930Z', '20260302T093000'])
      expect(parseCompactUtc(bad)).toBeUndefined();
  });
});

describe('data messages', () => {
  it('writes levels as JSON numbers with every digit of the decimal', () => {
    const text = dataMessage([
      {
        symbol: 'BOND26EURe',
        buy: [{ limit: '123456789.123456789', totalQuantity: '0.000000000000000001', orderCount: 2 }],
        sell: [],
        time: '2026-03-02T09:30:00.000Z',
      },
    ]);
    expect(text).toContain('"limit":123456789.123456789');
    const decoded = decodeMarketDataMessage(dataEnvelope('sub-1', text));
    expect(decoded).toMatchObject({ type: 'data', id: 'sub-1' });
    const level = decoded.type === 'data' ? decoded.markets[0]?.buy[0] : undefined;
    expect([level?.limit.toFixed(), level?.quantity.toFixed(), level?.orderCount]).toEqual([
      '123456789.123456789',
      '0.000000000000000001',
      2,
    ]);
  });
});

describe('REST faults', () => {
  it('answers the next N matching calls with the status and Retry-After, then stops', () => {
    const f = new RestFaults(() => 0.5);
    f.add({ path: '/tradingpairs*', status: 429, count: 2, retryAfterSeconds: 3 });
    expect(f.decide('/financialinstruments')).toEqual({ delayMs: 0, headers: {} });
    expect(f.decide('/tradingpairs/x/orderbook')).toEqual({ delayMs: 0, status: 429, headers: { 'retry-after': '3' } });
    expect(f.decide('/tradingpairs')).toMatchObject({ status: 429 });
    expect(f.decide('/tradingpairs')).toEqual({ delayMs: 0, headers: {} });
    expect(f.list()).toEqual([]);
  });

  it('applies a rate with the random source, and delays without failing', () => {
    const draws = [0.1, 0.9, 0.2];
    const f = new RestFaults(() => draws.shift() ?? 1);
    f.add({ status: 503, rate: 0.5 });
    expect([f.decide('/a').status, f.decide('/a').status, f.decide('/a').status]).toEqual([503, undefined, 503]);
    f.clear();
    f.add({ path: '/slow', delayMs: 250 });
    expect(f.decide('/slow')).toEqual({ delayMs: 250, headers: {} });
    expect(f.list()[0]).toMatchObject({ path: '/slow', hits: 1 });
  });
});
