import { describe, expect, it } from 'vitest';
import { channelFor, compactUtc, subscribeMessage, unsubscribeMessage } from '../../../src/venue/market-data/subscribe-messages.ts';

describe('subscribe messages', () => {
  it('names the channels of the specification', () => {
    expect(channelFor('BOND26EURe')).toBe('orderbook/bytradingpair/BOND26EURe');
    expect(channelFor('*')).toBe('orderbook/*');
  });

  it('writes the date in compact ISO 8601 basic form, UTC', () => {
    expect(compactUtc(Date.UTC(2026, 2, 2, 9, 3, 7, 999))).toBe('20260302T090307Z');
  });

  it('carries host, the vendor-prefixed date field and the API key in authorization', () => {
    const msg = subscribeMessage('6f1c', 'orderbook/*', { host: 'ws.venue.example', apiKey: 'k-1', dateHeader: 'x-acme-date' }, Date.UTC(2026, 0, 5, 23, 59, 59));
    expect(msg).toEqual({
      id: '6f1c',
      type: 'subscribe',
      channel: 'orderbook/*',
      authorization: { host: 'ws.venue.example', 'x-acme-date': '20260105T235959Z', 'x-api-key': 'k-1' },
    });
    expect(unsubscribeMessage('7a', 'orderbook/*')).toEqual({ id: '7a', type: 'unsubscribe', channel: 'orderbook/*' });
  });
});
