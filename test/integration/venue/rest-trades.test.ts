/**
 * `getWalletTrades` over real HTTP: every page is followed with `count=true`, the bearer token is sent, and a
 * malformed item is logged and counted in `dltmm_venue_malformed_payloads_total` while the others are kept.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeRestVenue } from '../../support/venue/fake-rest-venue.ts';
import { metricValue } from '../../support/venue/metric-value.ts';
import { ACCESS_TOKEN, restHarness } from '../../support/venue/rest-harness.ts';

let venue: FakeRestVenue;
beforeEach(async () => {
  venue = await FakeRestVenue.start();
});
afterEach(async () => {
  await venue.close();
});

const WALLET = '0x00000000000000000000000000000000000000aa';
const PATH = `/wallets/${WALLET}/trades`;
const ENDPOINT = '/wallets/{wallet_address}/trades';

function trade(n: number): Record<string, unknown> {
  return { id: `t${n}`, orderId: String(n), transactionHash: `0x${n}`, baseTokenQuantity: '1', price: '100' };
}

describe('REST wallet trades', () => {
  it('reads every page and sets aside a malformed item', async () => {
    venue
      .requireBearer(ACCESS_TOKEN)
      .route(PATH, (req) =>
        req.query.cursor === undefined
          ? { body: { items: [trade(1), { ...trade(2), price: null }], next_cursor: 'p2', total_count: 3 } }
          : { body: { items: [trade(3)], total_count: 3 } },
      );
    const { client, metrics, lines } = restHarness(venue);
    const trades = await client.getWalletTrades(WALLET, { pageSize: 2 });
    expect(trades.map((t) => t.id)).toEqual(['t1', 't3']);
    expect(venue.requestsTo(PATH).map((r) => r.query)).toEqual([
      { limit: '2', count: 'true' },
      { limit: '2', cursor: 'p2', count: 'true' },
    ]);
    expect(await metricValue(metrics, 'dltmm_venue_malformed_payloads_total', { source: ENDPOINT })).toBe(1);
    expect(lines.filter((l) => l.includes('venue list item rejected'))).toHaveLength(1);
  });
});
