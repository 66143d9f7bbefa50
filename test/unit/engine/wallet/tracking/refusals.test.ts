import { describe, expect, it } from 'vitest';
import type { ChainEvent } from '../../../../../src/chains/types.ts';
import { Decimal } from '../../../../../src/core/decimal.ts';
import { harness, start, TAKER, WALLET } from '../../../../support/engine/harness.ts';
import { metricValue } from '../../../../support/venue/metric-value.ts';

const PAIR = 'tp-evm-bond-eure';

function dump(h: Awaited<ReturnType<typeof harness>>): string {
  return JSON.stringify([
    h.store.db.prepare('SELECT * FROM orders').all(),
    h.store.db.prepare('SELECT * FROM order_transitions').all(),
    h.store.db.prepare('SELECT * FROM fills').all(),
    h.store.db.prepare('SELECT * FROM inventory').all(),
  ]);
}

describe('events the table refuses, and events seen twice', () => {
  it('a block delivered again changes nothing and is not counted as refused', async () => {
    const h = await harness();
    await start(h);
    await h.engine.place({ pairId: PAIR, side: 'sell', quantity: new Decimal('1'), price: new Decimal('100.1') });
    await h.block();
    h.venue.place(TAKER, PAIR, 'buy', 5_000n, 1_001_000n);
    await h.block();
    const before = dump(h);
    for (const b of h.venue.blocks)
      for (const tx of b.txs) h.parts.applier.applyFollowed(h.adapter.eventsOf({ ...b, txs: [tx] }));
    expect(dump(h)).toBe(before);
    expect(await metricValue(h.metrics, 'dltmm_order_events_refused_total')).toBe(0);
  });

  it('an impossible transition or a second fill of the same id is refused before anything changes, logged and counted', async () => {
    const h = await harness();
    await start(h);
    const p = await h.engine.place({
      pairId: PAIR,
      side: 'sell',
      quantity: new Decimal('1'),
      price: new Decimal('100.1'),
    });
    await h.block();
    h.venue.place(TAKER, PAIR, 'buy', 5_000n, 1_001_000n);
    await h.block();
    const [fill] = h.store.orders.fills({ wallet: WALLET });
    const filled = h.store.orders.get(WALLET, p.clientOrderId);
    const again = {
      type: 'Filled',
      fillId: fill?.fillId as string,
      quantity: 1n,
      price: 1_001_000n,
      role: 'maker',
    } as const;
    expect(h.parts.applier.events.apply(filled as NonNullable<typeof filled>, again)).toBeNull();
    expect(await metricValue(h.metrics, 'dltmm_order_events_refused_total', { event: 'Filled' })).toBe(1);
    await h.engine.cancel(p.clientOrderId);
    await h.block();
    const before = dump(h);
    const at = { pairId: PAIR, txHash: '0xfeed', height: 99n, blockHash: null, timeMs: 0 };
    // A rest after the cancellation (an event of a transaction the chain never had).
    const rest: ChainEvent = {
      ...at,
      key: '0xfeed:0',
      type: 'OrderResting',
      orderId: 1n,
      client: WALLET,
      side: 'sell',
      quantity: 10_000n,
      price: 1_001_000n,
    };
    h.parts.applier.applyFollowed([rest]);
    expect(dump(h)).toBe(before);
    expect(await metricValue(h.metrics, 'dltmm_order_events_refused_total', { event: 'Rested' })).toBe(1);
    expect(h.logs.filter((l) => l.msg === 'order event refused; nothing changed').map((l) => l.reason)).toEqual([
      `duplicate fill ${fill?.fillId}`,
      'Rested is impossible in status cancelled',
    ]);
  });
});
