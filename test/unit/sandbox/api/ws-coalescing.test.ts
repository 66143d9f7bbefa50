/**
 * Book changes are coalesced: every change inside the coalescing window reaches a subscriber as one data
 * message with the book as it stands at the end of the window. Runs the real server on a loopback port
 * with a venue state fed by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestFaults } from '../../../../src/sandbox/api/faults.ts';
import { startApiServer, type ApiServer } from '../../../../src/sandbox/api/http-server.ts';
import { MarketDataServer } from '../../../../src/sandbox/api/ws-server.ts';
import { EventsProbe } from '../../../support/sandbox/events-probe.ts';
import { FIRST_PAIR, firstPairState } from '../../../support/sandbox/venue-state.ts';

const def = FIRST_PAIR;
const { state, market } = firstPairState('CONTINUOUS_TRADING', 'START_OF_TRADING_DAY');
const ws = new MarketDataServer({
  state,
  auth: { apiKey: 'k'.repeat(8), dateHeader: 'x-amz-date', toleranceMs: 60_000 },
  nowMs: () => Date.now(),
  coalesceMs: 40,
  snapshotIntervalMs: 600_000,
  depth: 10,
  keepAliveMs: 600_000,
  connectionTimeoutMs: 900_000,
});
let server: ApiServer;
let client: EventsProbe;
const frames: { symbol: string; buy: { limit: number }[] }[][] = [];

function rest(orderId: bigint, price: bigint): void {
  market.apply({ type: 'NewBuyOrder', client: '0xabc', orderId, quantity: 10_000n, price }, 0);
}

beforeAll(async () => {
  server = await startApiServer({
    port: 0,
    context: { state, accessToken: 't'.repeat(8), nowMs: () => Date.now() },
    faults: new RestFaults(() => 1),
    ws,
  });
  client = await EventsProbe.open(`ws://127.0.0.1:${server.port}/event/realtime`, {
    host: 'h',
    apiKey: 'k'.repeat(8),
    dateHeader: 'x-amz-date',
    nowMs: Date.now(),
  });
  client.subscribe('s', `orderbook/bytradingpair/${def.pair.symbol}`);
  await framesUntil(1);
});

/** Waits (bounded) until `n` data frames have arrived. */
async function framesUntil(n: number): Promise<void> {
  await client.waitFor(() => client.data().length >= n, `${n} data messages`, 0, 5_000);
  frames.splice(
    0,
    frames.length,
    ...client.data().map((m) => m.data as { symbol: string; buy: { limit: number }[] }[]),
  );
}

afterAll(async () => {
  client?.close();
  await ws.close();
  await server?.close();
});

describe('coalescing', () => {
  it('sends one message for a burst of changes, holding the final book', async () => {
    const before = frames.length;
    rest(1n, 990_000n);
    rest(2n, 991_000n);
    rest(3n, 992_000n);
    await framesUntil(before + 1);
    // A later change is a later message; anything the burst sent more would arrive before it.
    rest(4n, 993_000n);
    await framesUntil(before + 2);
    const levels = (n: number) => frames[n]?.[0]?.buy.map((l) => l.limit);
    expect(frames.length - before).toBe(2);
    expect([levels(before), levels(before + 1)]).toEqual([
      [99.2, 99.1, 99],
      [99.3, 99.2, 99.1, 99],
    ]);
  });
});
