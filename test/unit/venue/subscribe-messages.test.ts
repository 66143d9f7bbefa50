import { describe, expect, it } from 'vitest';
import {
  channelFor,
  compactUtc,
  connectionInitMessage,
  connectionProtocols,
  subscribeMessage,
  unsubscribeMessage,
} from '../../../src/venue/market-data/subscribe-messages.ts';

const AUTH = { host: 'abc.appsync-api.eu-central-1.amazonaws.com', apiKey: 'da2-k1', dateHeader: 'x-amz-date' };

describe('AppSync Events client messages', () => {
  it('names the channels of the specification', () => {
    expect(channelFor('BOND26EURe')).toBe('orderbook/bytradingpair/BOND26EURe');
    expect(channelFor('*')).toBe('orderbook/*');
  });

  it('writes the date in compact ISO 8601 basic form, UTC', () => {
    expect(compactUtc(Date.UTC(2026, 2, 2, 9, 3, 7, 999))).toBe('20260302T090307Z');
  });

  it('offers the Events subprotocol and the authorization as base64url JSON without padding', () => {
    const [events, header] = connectionProtocols(AUTH, Date.UTC(2026, 0, 5, 23, 59, 59));
    expect(events).toBe('aws-appsync-event-ws');
    expect(header).toMatch(/^header-[A-Za-z0-9_-]+$/);
    expect(JSON.parse(Buffer.from(header.slice('header-'.length), 'base64url').toString('utf8'))).toEqual({
      host: AUTH.host,
      'x-amz-date': '20260105T235959Z',
      'x-api-key': 'da2-k1',
    });
    expect(connectionInitMessage()).toEqual({ type: 'connection_init' });
  });

  it('carries host, the configured date field and the API key in each subscribe; unsubscribe names the subscription id', () => {
    const msg = subscribeMessage(
      '6f1c',
      'orderbook/*',
      { ...AUTH, dateHeader: 'x-acme-date' },
      Date.UTC(2026, 0, 5, 23, 59, 59),
    );
    expect(msg).toEqual({
      id: '6f1c',
      type: 'subscribe',
      channel: 'orderbook/*',
      authorization: { host: AUTH.host, 'x-acme-date': '20260105T235959Z', 'x-api-key': 'da2-k1' },
    });
    expect(unsubscribeMessage('6f1c')).toEqual({ id: '6f1c', type: 'unsubscribe' });
  });
});
