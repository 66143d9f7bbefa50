import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../../src/core/decimal.ts';
import { harness, start, TAKER, WALLET, withClock, type Harness } from '../../../../support/engine/harness.ts';

const PAIR = 'tp-evm-bond-eure';

/** Our sell of `qty` at 100.0; `foreignTrades: false` is a follower without other clients' trade events (the blind case). */
async function restingSell(qty: string, foreignTrades = false): Promise<{ h: Harness; cid: bigint }> {
  const h = await harness({ adapter: { foreignTrades } });
  await start(h);
  const p = await h.engine.place({ pairId: PAIR, side: 'sell', quantity: new Decimal(qty), price: new Decimal('100') });
  await h.block();
  return { h, cid: p.clientOrderId };
}

describe('maker fills the movements cannot decide', () => {
  it('are parked and the pair paused; the cancellation that follows decides them, and trading resumes', async () => {
    // 11 at 100.0 pays what 10 at 110.0 would: without the trade event the quote alone cannot tell.
    const { h, cid } = await restingSell('12');
    h.venue.place(TAKER, PAIR, 'buy', 110_000n, 1_000_000n);
    await h.block();
    expect(h.store.alerts.pausing('evm', WALLET, PAIR).map((a) => a.kind)).toEqual(['ambiguous-fill']);
    expect(h.store.orders.get(WALLET, cid)?.filled).toBe(0n);
    // Nothing guessed, yet the inventory counts the quote received.
    expect(await h.engine.compareInventory()).toMatchObject({ comparable: true, mismatched: [] });
    await h.settle();
    expect(h.store.orders.get(WALLET, cid)?.status).toBe('cancelRequested');
    await h.block();
    await h.block();
    expect(h.store.orders.get(WALLET, cid)).toMatchObject({ status: 'cancelled', filled: 110_000n, unexplained: 0n });
    expect(h.store.orders.fills({ wallet: WALLET })).toMatchObject([
      { role: 'maker', quantity: 110_000n, price: 1_000_000n },
    ]);
    expect(h.store.alerts.pausing('evm', WALLET, PAIR)).toEqual([]);
    expect(await h.engine.compareInventory()).toMatchObject({ comparable: true, mismatched: [] });
  });

  it('an order filled in full is decided by its cancellation being refused', async () => {
    const { h, cid } = await restingSell('11');
    h.venue.place(TAKER, PAIR, 'buy', 110_000n, 1_000_000n);
    await h.block();
    expect(h.store.alerts.pausing('evm', WALLET, PAIR).map((a) => a.kind)).toEqual(['ambiguous-fill']);
    await h.block();
    await h.block();
    expect(h.store.orders.get(WALLET, cid)).toMatchObject({ status: 'filled', filled: 110_000n });
    expect(h.store.alerts.pausing('evm', WALLET, PAIR)).toEqual([]);
    expect(await h.engine.compareInventory()).toMatchObject({ comparable: true, mismatched: [] });
  });

  it('survive a restart: reconciliation asks again for the cancellations a crash interrupted', async () => {
    let { h, cid } = await restingSell('12');
    h.adapter.faults.push('drop');
    h.venue.place(TAKER, PAIR, 'buy', 110_000n, 1_000_000n);
    await h.block();
    await h.settle();
    h = await h.restart();
    const report = await start(h);
    expect(report.pausedPairs).toEqual([PAIR]);
    for (let i = 0; i < 5; i++) await h.block();
    await withClock(h, h.engine.idle());
    for (let i = 0; i < 2; i++) await h.block();
    expect(h.store.orders.get(WALLET, cid)).toMatchObject({ status: 'cancelled', filled: 110_000n });
    expect((await start(h)).pausedPairs).toEqual([]);
  });
});

describe('the same fill with the incoming order trade event the followers deliver', () => {
  it('is attributed at once at its execution price: nothing parked, the pair not paused', async () => {
    const { h, cid } = await restingSell('12', true);
    h.venue.place(TAKER, PAIR, 'buy', 110_000n, 1_000_000n);
    await h.block();
    expect(h.store.alerts.pausing('evm', WALLET, PAIR)).toEqual([]);
    expect(h.store.orders.get(WALLET, cid)).toMatchObject({ status: 'partiallyFilled', filled: 110_000n });
    expect(h.store.orders.fills({ wallet: WALLET })).toMatchObject([
      { role: 'maker', quantity: 110_000n, price: 1_000_000n },
    ]);
    expect(h.adapter.sent).toHaveLength(1);
    expect(await h.engine.compareInventory()).toMatchObject({ comparable: true, mismatched: [] });
  });
});
