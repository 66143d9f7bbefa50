/**
 * Orders a block not final yet shows off the book (a taker filled them, or they were cancelled) are not
 * cancelled while their removal is pending: the confirmed batch settles them. A rollback of the tentative
 * block puts them back as cancellable.
 */
import { describe, expect, it } from 'vitest';
import { harness, placeOrder, start, TAKER, WALLET, type Harness } from '../../../../support/engine/harness.ts';

const PAIR = 'tp-evm-bond-eure';
const cancelsSent = (h: Harness) => h.adapter.sent.filter((x) => x.command.kind === 'cancel').length;

async function restingSellFilledTentatively() {
  const h = await harness({ adapter: { confirmations: 1 } });
  await start(h);
  const p = await h.engine.place(placeOrder('sell', '1', '100.1'));
  await h.block();
  await h.block();
  expect(h.store.orders.get(WALLET, p.clientOrderId)?.status).toBe('resting');
  // A taker takes all of it; the block is not final yet (one confirmation).
  h.venue.place(TAKER, PAIR, 'buy', 10_000n, 1_001_000n);
  await h.block();
  expect(h.store.orders.get(WALLET, p.clientOrderId)?.status).toBe('resting');
  return { h, cid: p.clientOrderId };
}

describe('what blocks not final yet show', () => {
  it('an order a tentative block fills in full is not cancelled; its confirmation settles it as filled', async () => {
    const { h, cid } = await restingSellFilledTentatively();
    expect(h.parts.applier.tentative.gone(cid)).toBe(true);
    await expect(h.engine.cancel(cid)).rejects.toMatchObject({ code: 'E_ORDER_STATE' });
    const all = h.engine.cancelAll({ timeoutMs: 60_000 });
    await h.block();
    expect((await all).open).toEqual([]);
    expect(cancelsSent(h)).toBe(0);
    expect(h.store.orders.get(WALLET, cid)?.status).toBe('filled');
    expect(h.parts.applier.tentative.gone(cid)).toBe(false);
  });

  it('an order placed and filled in the same tentative block is recognised once its placement is applied', async () => {
    const h = await harness({ adapter: { confirmations: 1 } });
    await start(h);
    const p = await h.engine.place(placeOrder('sell', '1', '100.1'));
    h.venue.place(TAKER, PAIR, 'buy', 10_000n, 1_001_000n);
    await h.block();
    expect(h.store.orders.get(WALLET, p.clientOrderId)?.status).toBe('resting');
    expect(h.parts.applier.tentative.gone(p.clientOrderId)).toBe(true);
    await expect(h.engine.cancel(p.clientOrderId)).rejects.toMatchObject({ code: 'E_ORDER_STATE' });
    await h.block();
    expect(h.store.orders.get(WALLET, p.clientOrderId)?.status).toBe('filled');
    expect(cancelsSent(h)).toBe(0);
  });

  it('a tentative fill withdrawn by a reorganisation makes the order cancellable again', async () => {
    const { h, cid } = await restingSellFilledTentatively();
    // The fill's block is replaced by one without it.
    h.venue.reorg(h.venue.height - 1n);
    await h.block();
    expect(h.parts.applier.tentative.gone(cid)).toBe(false);
    await h.engine.cancel(cid);
    await h.block();
    await h.block();
    expect(cancelsSent(h)).toBe(1);
    expect(h.store.orders.get(WALLET, cid)?.status).toBe('cancelled');
  });

  it('asked again after the order changed, the answer follows the store, not the last answer', async () => {
    const { h, cid } = await restingSellFilledTentatively();
    const view = h.parts.applier.tentative;
    expect(view.goneOrders().has(cid)).toBe(true);
    // The same question with nothing changed gets the same answer.
    expect(view.goneOrders()).toBe(view.goneOrders());
    // The order leaves the book in the store (cancelled in full): the tentative fill no longer has it to fill.
    const order = h.store.orders.get(WALLET, cid);
    expect(order?.status).toBe('resting');
    h.store.orders.apply(WALLET, cid, { type: 'Cancelled', by: 'ByParticipant', quantity: order?.quantity as bigint });
    expect(view.goneOrders().has(cid)).toBe(false);
    expect(view.gone(cid)).toBe(false);
  });
});
