/**
 * Self-trade prevention across our own wallets: an order of one wallet that would meet an order of another of
 * ours on the same pair (resting, or recorded and on its way) is refused before it is signed, with the reason.
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../../src/core/decimal.ts';
import { newOrder } from '../../../../../src/core/order-state.ts';
import { priceToRaw, quantityToRaw } from '../../../../../src/core/units.ts';
import type { PlaceOrder } from '../../../../../src/engine/wallet/orders/order-manager.ts';
import { harness, start, TAKER, WALLET, type Harness } from '../../../../support/engine/harness.ts';

const order = (side: 'buy' | 'sell', price: string): PlaceOrder => ({
  pairId: 'tp-evm-bond-eure',
  side,
  quantity: new Decimal('1'),
  price: new Decimal(price),
});

/** An order of our other wallet (TAKER's address stands for it), as the shared store records it. */
function otherWallets(h: Harness, side: 'buy' | 'sell', price: string, status: 'intended' | 'resting') {
  const s = h.pair.rules.scales;
  h.store.orders.create(
    {
      ...newOrder({
        clientOrderId: 900_001n,
        pairId: h.pair.pairId,
        side,
        quantity: quantityToRaw(new Decimal(1), s),
        price: priceToRaw(new Decimal(price), s),
      }),
      status,
    },
    { wallet: TAKER, chain: 'evm' },
  );
}

describe('orders of our other wallets', () => {
  it('refuses before signing a placement that would meet one, and lets one that would not go', async () => {
    const h = await harness();
    await start(h);
    otherWallets(h, 'sell', '100', 'resting');
    const sent = () => h.adapter.sent.length;
    const before = sent();
    const ordersOf = () => h.store.orders.live({ wallet: WALLET }).length;
    await expect(h.engine.place(order('buy', '100'))).rejects.toMatchObject({
      code: 'E_OWN_WALLETS_WOULD_TRADE',
      message: expect.stringContaining(`of our wallet ${TAKER}`),
    });
    await expect(h.engine.place(order('buy', '100.5'))).rejects.toMatchObject({ code: 'E_OWN_WALLETS_WOULD_TRADE' });
    expect([sent(), ordersOf()]).toEqual([before, 0]);
    // Below the other wallet's ask, and on the same side as it: no meeting.
    await h.engine.place(order('buy', '99.9'));
    await h.engine.place(order('sell', '99'));
    expect([sent(), ordersOf()]).toEqual([before + 2, 2]);
  });

  it('counts an order of the other wallet still on its way: two wallets deciding together cannot both pass', async () => {
    const h = await harness();
    await start(h);
    otherWallets(h, 'buy', '100', 'intended');
    await expect(h.engine.place(order('sell', '99.5'))).rejects.toMatchObject({ code: 'E_OWN_WALLETS_WOULD_TRADE' });
  });

  it("never refuses for the wallet's own orders (those wait for their cancellation in the strategy loop)", async () => {
    const h = await harness();
    await start(h);
    await h.engine.place(order('sell', '100'));
    await h.engine.place(order('buy', '100.5'));
    expect(h.adapter.sent).toHaveLength(2);
  });
});
