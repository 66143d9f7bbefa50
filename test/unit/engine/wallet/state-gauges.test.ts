/**
 * The wallet's state gauges are read from the store at every scrape: after every kind of change (a placement,
 * a rest, a fill, a cancellation, an alert and its resolution) each one equals what the store says, without a
 * reconciliation in between, together with the height of the chain they stand at.
 */
import { describe, expect, it } from 'vitest';
import { harness, placeOrder, start, TAKER, WALLET, withClock, type Harness } from '../../../support/engine/harness.ts';
import { metricValue } from '../../../support/venue/metric-value.ts';

const PAIR = 'tp-evm-bond-eure';

async function gaugesEqualStore(h: Harness): Promise<void> {
  const live = h.store.orders.live({ wallet: WALLET }).filter((o) => o.status !== 'intended');
  const labels = { chain: 'evm', wallet: WALLET };
  expect(await metricValue(h.metrics, 'dltmm_orders_live', labels)).toBe(live.length);
  expect(await metricValue(h.metrics, 'dltmm_orders_unknown_outcome', labels)).toBe(
    live.filter((o) => o.status === 'unknown').length,
  );
  expect(await metricValue(h.metrics, 'dltmm_foreign_orders', labels)).toBe(h.store.foreign.open('evm', WALLET).length);
  const paused = h.store.alerts.pausing('evm', WALLET, PAIR).length > 0 ? 1 : 0;
  expect(await metricValue(h.metrics, 'dltmm_pair_paused', { chain: 'evm', pair: PAIR })).toBe(paused);
  // The height they stand at: every event up to the venue's head is applied (this chain confirms at once).
  expect(await metricValue(h.metrics, 'dltmm_events_covered', { chain: 'evm', wallet: WALLET })).toBe(
    Number(h.venue.height),
  );
}

describe('state gauges', () => {
  it('equal the store at every scrape through placements, fills, cancellations and alerts', async () => {
    const h = await harness();
    await start(h);
    await gaugesEqualStore(h);
    const a = await h.engine.place(placeOrder('sell', '1', '100.1'));
    await h.engine.place(placeOrder('buy', '1', '99.5'));
    await gaugesEqualStore(h);
    expect(await metricValue(h.metrics, 'dltmm_orders_live', { chain: 'evm', wallet: WALLET })).toBe(2);
    await h.block();
    await gaugesEqualStore(h);
    h.venue.place(TAKER, PAIR, 'buy', 10_000n, 1_001_000n);
    await h.block();
    await gaugesEqualStore(h);
    expect(await metricValue(h.metrics, 'dltmm_orders_live', { chain: 'evm', wallet: WALLET })).toBe(1);
    expect(h.store.orders.get(WALLET, a.clientOrderId)?.status).toBe('filled');
    const [left] = h.store.orders.live({ wallet: WALLET });
    await h.engine.cancel(left?.clientOrderId as bigint);
    await h.block();
    await gaugesEqualStore(h);
    expect(await metricValue(h.metrics, 'dltmm_orders_live', { chain: 'evm', wallet: WALLET })).toBe(0);
    // A movement nothing explains pauses the pair; re-basing resolves it.
    h.venue.mint(h.pair.quoteToken, WALLET, 123n);
    await h.block();
    await withClock(h, h.engine.verifyInventory());
    await gaugesEqualStore(h);
    expect(await metricValue(h.metrics, 'dltmm_pair_paused', { chain: 'evm', pair: PAIR })).toBe(1);
    await h.engine.rebaselineInventory('deposit');
    await gaugesEqualStore(h);
    expect(await metricValue(h.metrics, 'dltmm_pair_paused', { chain: 'evm', pair: PAIR })).toBe(0);
  });
});
