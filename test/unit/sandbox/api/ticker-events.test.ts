/**
 * The sandbox's ticker channel sends each subscription a market's ticker when it differs from what that
 * subscription last received: never the same one twice (a flush or a snapshot that finds nothing new for it
 * sends nothing), and a change reaches every subscription that covers the market, new ones included.
 */
import { describe, expect, it } from 'vitest';
import { subscriptionEvent, type Ticker } from '../../../../src/sandbox/api/ws-events.ts';
import { parseChannel, type ChannelTarget } from '../../../../src/sandbox/api/ws-messages.ts';

const AT = { depth: 10, nowMs: Date.parse('2026-03-02T09:00:00Z'), fieldNames: 'documentation' as const };
const top = (bid: string | null, last = '12.5'): Ticker => ({
  symbol: 'FUND1EURe',
  lastPrice: last,
  bestBid: bid,
  bestBidQuantity: bid === null ? null : '0.5',
  bestAsk: '12.5',
  bestAskQuantity: '0.5',
});
const target = (channel: string) => parseChannel(channel) as ChannelTarget;
const symbols = (event: string | undefined) =>
  event === undefined ? [] : (JSON.parse(event) as { data: Array<{ symbol: string }> }).data.map((d) => d.symbol);

describe('ticker events per subscription', () => {
  it('sends a market once as it is, again when it changes, to each subscription on its own', () => {
    const all = target('ticker/*');
    const one = target('ticker/bytradingpair/FUND1EURe');
    expect(symbols(subscriptionEvent(all, [], [top(null)], AT))).toEqual(['FUND1EURe']);
    // The same ticker again (a flush of another change, a snapshot): nothing for that subscription.
    expect(subscriptionEvent(all, [], [top(null)], AT)).toBeUndefined();
    // A subscription made now gets it once too.
    expect(symbols(subscriptionEvent(one, [], [top(null)], AT))).toEqual(['FUND1EURe']);
    expect(subscriptionEvent(one, [], [top(null)], AT)).toBeUndefined();
    // A new best bid goes to both, once.
    expect(symbols(subscriptionEvent(all, [], [top('12.2')], AT))).toEqual(['FUND1EURe']);
    expect(symbols(subscriptionEvent(one, [], [top('12.2')], AT))).toEqual(['FUND1EURe']);
    expect(subscriptionEvent(one, [], [top('12.2')], AT)).toBeUndefined();
    // A market a subscription does not cover is never sent to it.
    expect(subscriptionEvent(one, [], [{ ...top('99'), symbol: 'BOND26EURe' }], AT)).toBeUndefined();
  });
});
