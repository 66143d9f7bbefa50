/**
 * WebSocket subscribe checks (API key, the vendor date field in compact ISO 8601 within the tolerance,
 * channels), data messages whose level numbers keep every digit, and the REST fault rules.
 */
import { describe, expect, it } from 'vitest';
import { RestFaults } from '../../../../src/sandbox/api/faults.ts';
import { checkSubscribe, dataMessage, parseCompactUtc } from '../../../../src/sandbox/api/ws-messages.ts';
import { decodeMarketDataMessage } from '../../../../src/venue/market-data/decode.ts';

const NOW = Date.UTC(2026, 2, 2, 9, 30, 0);
const cfg = { apiKey: 'secret-key', dateHeader: 'x-venue-date', toleranceMs: 300_000 };
const known = (s: string) => s === 'BOND26EURe';
const msg = (over: Record<string, unknown> = {}, auth: Record<string, unknown> = {}) => ({
  id: 'a1',
  type: 'subscribe',
  channel: 'orderbook/bytradingpair/BOND26EURe',
  authorization: { host: 'venue.example', 'x-venue-date': '20260302T093000Z', 'x-api-key': 'secret-key', ...auth },
  ...over,
});

function refusal(m: Record<string, unknown>): string {
  const r = checkSubscribe(m, cfg, NOW, known);
  return r.ok ? 'accepted' : `${r.code} ${r.id ?? '-'}`;
}

describe('subscribe checks', () => {
  it('accepts a valid subscribe for one market or all, with a leading slash tolerated', () => {
    expect(checkSubscribe(msg(), cfg, NOW, known)).toEqual({ ok: true, id: 'a1', channel: 'orderbook/bytradingpair/BOND26EURe', target: { kind: 'pair', symbol: 'BOND26EURe' } });
    expect(checkSubscribe(msg({ channel: '/orderbook/*' }), cfg, NOW, known)).toMatchObject({ ok: true, target: { kind: 'all' } });
  });

  it('refuses with a code and the id echoed', () => {
    expect(refusal(msg({}, { 'x-api-key': 'wrong' }))).toBe('UNAUTHORIZED a1');
    expect(refusal(msg({}, { 'x-venue-date': '20260302T093501Z' }))).toBe('UNAUTHORIZED a1');
    expect(refusal(msg({}, { 'x-venue-date': '2026-03-02T09:30:00Z' }))).toBe('UNAUTHORIZED a1');
    expect(refusal(msg({}, { host: '' }))).toBe('UNAUTHORIZED a1');
    expect(refusal(msg({ authorization: undefined }))).toBe('UNAUTHORIZED a1');
    expect(refusal(msg({ channel: 'orderbook/bytradingpair/NOPE' }))).toBe('INVALID_CHANNEL a1');
    expect(refusal(msg({ channel: 'trades/*' }))).toBe('INVALID_CHANNEL a1');
    expect(refusal(msg({ id: 7 }))).toBe('BAD_REQUEST -');
    expect(refusal(msg({}, { 'x-venue-date': '20260302T092500Z' }))).toBe('accepted');
  });

  it('reads the date from the configured field name', () => {
    const other = { ...cfg, dateHeader: 'x-acme-date' };
    expect(checkSubscribe(msg(), other, NOW, known).ok).toBe(false);
    expect(checkSubscribe(msg({}, { 'x-acme-date': '20260302T093000Z' }), other, NOW, known).ok).toBe(true);
  });

  it('parses only real UTC times in the basic form', () => {
    expect(parseCompactUtc('20260302T093000Z')).toBe(NOW);
    for (const bad of ['20260230T093000Z', '20260302T253000Z', '20260302T0930Z', '20260302T093000']) expect(parseCompactUtc(bad)).toBeUndefined();
  });
});

describe('data messages', () => {
  it('writes levels as JSON numbers with every digit of the decimal', () => {
    const text = dataMessage([
      { symbol: 'BOND26EURe', buy: [{ limit: '123456789.123456789', totalQuantity: '0.000000000000000001', orderCount: 2 }], sell: [], time: '2026-03-02T09:30:00.000Z' },
    ]);
    expect(text).toContain('"limit":123456789.123456789');
    const decoded = decodeMarketDataMessage(text);
    const level = decoded.type === 'data' ? decoded.markets[0]?.buy[0] : undefined;
    expect([level?.limit.toFixed(), level?.quantity.toFixed(), level?.orderCount]).toEqual(['123456789.123456789', '0.000000000000000001', 2]);
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
