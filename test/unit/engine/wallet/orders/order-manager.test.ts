import { describe, expect, it } from 'vitest';
import { auditTrail } from '../../../../../src/store/audit-trail.ts';
import {
  harness,
  placeOrder,
  start,
  TAKER,
  WALLET,
  withClock,
  type Harness,
} from '../../../../support/engine/harness.ts';
import { pairWith } from '../../../../support/pairs.ts';
import { lockOf } from '../../../../../src/engine/wallet/fills/amounts.ts';
import { metricValue } from '../../../../support/venue/metric-value.ts';
import { whenTrue } from '../../../../support/condition.ts';
import type { ChainAdapter } from '../../../../../src/chains/types.ts';

async function ready(): Promise<Harness> {
  const h = await harness();
  await start(h);
  return h;
}

const submissionsOf = (h: Harness) =>
  (h.store.db.prepare('SELECT COUNT(*) AS n FROM transactions').get() as { n: number }).n;

const statuses = (h: Harness, cid: bigint) => h.store.orders.transitions(WALLET, cid).map((t) => t.to);

describe('placing', () => {
  it('writes the order and its decision before the transaction is signed, then follows it to resting', async () => {
    const h = await ready();
    const submit = h.adapter.submit.bind(h.adapter);
    const seenAtSubmit: unknown[] = [];
    h.adapter.submit = async (cmd) => {
      if (cmd.kind === 'place') seenAtSubmit.push(h.store.orders.get(WALLET, cmd.clientOrderId)?.status);
      return submit(cmd);
    };
    const decision = {
      pairId: 'tp-evm-bond-eure',
      strategy: 'ladder',
      configHash: 'abc',
      params: { spreadBps: 20 },
      market: { mid: '100' },
      risk: { passed: ['collar'] },
    };
    const placed = await h.engine.place(placeOrder('buy', '1.5', '99.5', { decision }));
    expect(seenAtSubmit).toEqual(['intended']);
    expect(h.store.orders.get(WALLET, placed.clientOrderId)?.status).toBe('submitting');
    await h.block();
    const stored = h.store.orders.get(WALLET, placed.clientOrderId);
    expect(stored).toMatchObject({
      status: 'resting',
      txHash: placed.txHash,
      orderId: 1n,
      quantity: 15_000n,
      price: 995_000n,
    });
    expect(statuses(h, placed.clientOrderId)).toEqual(['submitting', 'received', 'resting']);
    expect(h.store.state.decision(stored?.decisionId as number)).toMatchObject({
      strategy: 'ladder',
      configHash: 'abc',
      risk: { passed: ['collar'] },
    });
    expect(h.store.transactions.get(placed.txHash as string)?.clientOrderId).toBe(placed.clientOrderId);
  });

  it('carries the client order id as a cross identifier tagged 0xD1 in the high byte', async () => {
    const h = await ready();
    const a = await h.engine.place(placeOrder('buy', '1', '99'));
    const b = await h.engine.place(placeOrder('buy', '1', '98.9'));
    await h.block();
    expect([a.clientOrderId >> 24n, b.clientOrderId - a.clientOrderId]).toEqual([0xd1n, 1n]);
    const received = h.venue.blocks
      .flatMap((bl) => bl.txs.flatMap((t) => t.events))
      .filter((e) => e.type === 'OrderReceived');
    expect(received.map((e) => (e.type === 'OrderReceived' ? e.crossIdentifier : 0n))).toEqual([
      a.clientOrderId,
      b.clientOrderId,
    ]);
  });

  it('submits commands in order without waiting for outcomes, so several transactions are in flight', async () => {
    const h = await ready();
    const placed = await Promise.all([
      h.engine.place(placeOrder('buy', '1', '99')),
      h.engine.place(placeOrder('sell', '1', '101')),
      h.engine.place(placeOrder('buy', '1', '98')),
    ]);
    expect(h.adapter.sent.map((s) => s.txHash)).toEqual(placed.map((p) => p.txHash));
    expect(placed.map((p) => h.store.orders.get(WALLET, p.clientOrderId)?.status)).toEqual([
      'submitting',
      'submitting',
      'submitting',
    ]);
    await h.block();
    expect(placed.map((p) => h.store.orders.get(WALLET, p.clientOrderId)?.status)).toEqual([
      'resting',
      'resting',
      'resting',
    ]);
  });

  it('records a refusal before signing, and a revert with its reason', async () => {
    const h = await ready();
    h.adapter.faults.push('throw');
    const refused = await h.engine.place(placeOrder('buy', '1', '99'));
    expect(await refused.settled).toMatchObject({ status: 'rejected', rejection: { code: 'E_CHAIN_RPC' } });
    // 130 is outside the 20% collar around 100: the book reverts it.
    const reverted = await h.engine.place(placeOrder('buy', '1', '130'));
    await h.block();
    expect(await reverted.settled).toMatchObject({
      status: 'rejected',
      rejection: { code: 'E_VENUE_PRICE_ABOVE_MAX_RANGE' },
    });
  });

  it('refuses to place before reconciliation and while the pair is paused', async () => {
    const h = await harness();
    await expect(h.engine.place(placeOrder('buy', '1', '99'))).rejects.toMatchObject({ code: 'E_TRADING_PAUSED' });
    await start(h);
    h.store.alerts.raise({
      chain: 'evm',
      wallet: WALLET,
      pairId: 'tp-evm-bond-eure',
      kind: 'inventory-mismatch',
      message: 'x',
      details: {},
      pauses: true,
    });
    await expect(h.engine.place(placeOrder('buy', '1', '99'))).rejects.toMatchObject({ code: 'E_TRADING_PAUSED' });
    expect(await metricValue(h.metrics, 'dltmm_pair_paused', { pair: 'tp-evm-bond-eure' })).toBe(1);
  });
});

describe('unknown outcomes', () => {
  it('stay unknown until the chain settles them, and are never sent again', async () => {
    const h = await ready();
    h.adapter.faults.push('unknown');
    const p = await h.engine.place(placeOrder('sell', '2', '101'));
    await h.settle();
    expect(h.store.orders.get(WALLET, p.clientOrderId)?.status).toBe('unknown');
    await h.block();
    expect(h.store.orders.get(WALLET, p.clientOrderId)?.status).toBe('resting');
    expect(statuses(h, p.clientOrderId)).toEqual(['submitting', 'unknown', 'received', 'resting']);
    expect(h.adapter.sent).toHaveLength(1);
  });

  it('a transaction that never reached the chain is settled as expired by asking again, not by resending', async () => {
    const h = await ready();
    h.adapter.faults.push('drop');
    const p = await h.engine.place(placeOrder('sell', '2', '101'));
    await h.settle();
    for (let i = 0; i < 3; i++) await h.block();
    h.clock.advance(1_000);
    await h.settle();
    h.clock.advance(2_000);
    await h.settle();
    expect(h.store.orders.get(WALLET, p.clientOrderId)).toMatchObject({
      status: 'rejected',
      rejection: { code: 'E_CHAIN_TX_EXPIRED' },
    });
    expect(h.adapter.sent).toHaveLength(1);
  });

  it('a broadcast that failed after the journal write is unknown, then settled from the chain', async () => {
    const h = await ready();
    h.adapter.faults.push('throw-after-journal');
    const p = await h.engine.place(placeOrder('buy', '1', '99'));
    expect(h.store.orders.get(WALLET, p.clientOrderId)?.status).toBe('unknown');
    await h.block();
    expect(h.store.orders.get(WALLET, p.clientOrderId)?.status).toBe('resting');
    expect(h.adapter.sent).toHaveLength(1);
  });
});

describe('cancelling and replacing', () => {
  it('cancels a resting order and returns its lock', async () => {
    const h = await ready();
    const p = await h.engine.place(placeOrder('buy', '1', '99'));
    await h.block();
    const c = await h.engine.cancel(p.clientOrderId);
    expect(h.store.orders.get(WALLET, p.clientOrderId)?.status).toBe('cancelRequested');
    await h.block();
    expect(await c.settled).toMatchObject({ status: 'cancelled', cancelledBy: 'ByParticipant', unexplained: 0n });
  });

  it('refuses to cancel an order that does not rest', async () => {
    const h = await ready();
    const p = await h.engine.place(placeOrder('buy', '1', '99'));
    await expect(h.engine.cancel(p.clientOrderId)).rejects.toMatchObject({ code: 'E_ORDER_STATE' });
  });

  it('replaces by placing the new order first and cancelling the old one once the new one rests', async () => {
    const h = await ready();
    const old = await h.engine.place(placeOrder('sell', '1', '101'));
    await h.block();
    const r = await h.engine.replace(old.clientOrderId, placeOrder('sell', '1', '100.8'));
    await h.block();
    expect(h.store.orders.get(WALLET, r.placed.clientOrderId)?.status).toBe('resting');
    expect(h.store.orders.get(WALLET, old.clientOrderId)?.status).toBe('cancelRequested');
    await h.block();
    expect(h.store.orders.get(WALLET, old.clientOrderId)?.status).toBe('cancelled');
    // Never an empty side: the new order rested a block before the old one left.
    const kinds = h.venue.blocks
      .slice(-2)
      .map((b) => b.txs.flatMap((t) => t.events.filter((e) => e.type !== 'Transfer').map((e) => e.type)));
    expect(kinds).toEqual([['OrderReceived', 'OrderResting'], ['OrderCancelled']]);
  });

  it('cancels the stale quote when its replacement is rejected', async () => {
    const h = await ready();
    const old = await h.engine.place(placeOrder('sell', '1', '101'));
    await h.block();
    // Beyond the price collar: the chain rejects the replacement; the old quote is stale all the same.
    const r = await h.engine.replace(old.clientOrderId, placeOrder('sell', '1', '130'));
    await h.block();
    expect(h.store.orders.get(WALLET, r.placed.clientOrderId)?.status).toBe('rejected');
    expect(await r.cancelled).not.toBeNull();
    await h.block();
    expect(h.store.orders.get(WALLET, old.clientOrderId)?.status).toBe('cancelled');
  });

  it('cancels the stale quote when its replacement cannot even be queued', async () => {
    const h = await ready();
    const old = await h.engine.place(placeOrder('sell', '1', '101'));
    await h.block();
    h.engine.halt('kill switch');
    await expect(h.engine.replace(old.clientOrderId, placeOrder('sell', '1', '100.8'))).rejects.toMatchObject({
      code: 'E_ORDER_WITHDRAWN',
    });
    await h.block();
    expect(h.store.orders.get(WALLET, old.clientOrderId)?.status).toBe('cancelled');
  });

  it('cancel-all cancels every live order, one still in flight included, and waits for them to be final', async () => {
    const h = await ready();
    const a = await h.engine.place(placeOrder('buy', '1', '99'));
    const b = await h.engine.place(placeOrder('sell', '1', '101'));
    await h.block();
    const c = await h.engine.place(placeOrder('sell', '1', '101.5'));
    const all = h.engine.cancelAll({ timeoutMs: 60_000 });
    for (let i = 0; i < 3; i++) await h.block();
    const report = await all;
    expect(report.open).toEqual([]);
    expect(report.final.map((o) => [o.clientOrderId, o.status])).toEqual([
      [a.clientOrderId, 'cancelled'],
      [b.clientOrderId, 'cancelled'],
      [c.clientOrderId, 'cancelled'],
    ]);
    expect(
      h.venue
        .pair('tp-evm-bond-eure')
        .book.buys.concat(h.venue.pair('tp-evm-bond-eure').book.sells)
        .filter((o) => o.wallet === WALLET),
    ).toEqual([]);
  });
});

describe('allowance on a no-prefund book', () => {
  it("each placement carries what the wallet's other live orders of its token may still draw", async () => {
    const h = await harness({ pairs: [{ pair: pairWith('evm-pair'), prefunded: false }] });
    await start(h);
    await h.engine.place(placeOrder('buy', '1', '99'));
    await h.engine.place(placeOrder('sell', '1', '101'));
    await h.engine.place(placeOrder('buy', '2', '98'));
    const [firstBuy, sell, secondBuy] = h.adapter.sent.map((x) => x.command).filter((c) => c.kind === 'place');
    expect(firstBuy?.committed).toBe(0n);
    // Another side's token is not drawn on: the sell's base allowance owes nothing to the buy.
    expect(sell?.committed).toBe(0n);
    // The first buy rests at the maker rate: its draw is its notional and maker commission, short of its approval.
    const rested = h.store.orders.live({ wallet: WALLET }).find((o) => o.side === 'buy' && o.quantity === 10_000n);
    const draw = lockOf(
      { side: 'buy', price: rested?.price as bigint, remaining: 10_000n, lockRateBps: rested?.lockRateBps as number },
      h.pair.rules.scales,
      true,
    ).quote;
    expect(secondBuy?.committed).toBe(draw);
    expect(draw).toBeGreaterThan(firstBuy?.approval.principal as bigint);
  });
});

describe('urgent work first', () => {
  it('a cancel goes out while placements wait in a congested adapter, and withdrawing them refuses them unsigned', async () => {
    const h = await ready();
    const resting = await h.engine.place(placeOrder('sell', '1', '101'));
    await h.block();
    const release = h.adapter.stallPlacements();
    const first = h.engine.place(placeOrder('buy', '1', '99'));
    const second = h.engine.place(placeOrder('buy', '1', '98.9'));
    const cancel = await h.engine.cancel(resting.clientOrderId);
    expect(cancel.txHash).not.toBeNull();
    expect(h.adapter.sent.map((x) => x.command.kind)).toEqual(['place', 'cancel']);
    // The kill switch: what was queued or not yet signed is refused at once, and nothing more is accepted.
    h.engine.halt('kill switch tripped');
    const [a, b] = await Promise.allSettled([first, second]);
    const firstSettled = a.status === 'fulfilled' ? await a.value.settled : null;
    expect(firstSettled).toMatchObject({ status: 'rejected', rejection: { code: 'E_ORDER_WITHDRAWN' } });
    expect(b).toMatchObject({ status: 'rejected', reason: { code: 'E_ORDER_WITHDRAWN' } });
    await expect(h.engine.place(placeOrder('buy', '1', '98.8'))).rejects.toMatchObject({ code: 'E_ORDER_WITHDRAWN' });
    release();
    await h.block();
    expect(h.adapter.sent.map((x) => x.command.kind)).toEqual(['place', 'cancel']);
    expect(h.store.orders.get(WALLET, resting.clientOrderId)?.status).toBe('cancelled');
  });

  it('withdrawing one pair leaves later placements free to go', async () => {
    const h = await ready();
    const release = h.adapter.stallPlacements();
    const stale = h.engine.place(placeOrder('buy', '1', '99'));
    h.engine.withdrawPlacements('stale market data', 'tp-evm-bond-eure');
    expect(await (await stale).settled).toMatchObject({ status: 'rejected', rejection: { code: 'E_ORDER_WITHDRAWN' } });
    release();
    const fresh = await h.engine.place(placeOrder('buy', '1', '99'));
    await h.block();
    expect(h.store.orders.get(WALLET, fresh.clientOrderId)?.status).toBe('resting');
  });

  it('a cancel waiting in the adapter is dropped unsigned once the order fills meanwhile', async () => {
    const h = await ready();
    const p = await h.engine.place(placeOrder('sell', '1', '100.1'));
    await h.block();
    const release = h.adapter.stall('cancel');
    const c = h.engine.cancel(p.clientOrderId);
    h.venue.place(TAKER, 'tp-evm-bond-eure', 'buy', 10_000n, 1_001_000n);
    // The block is mined while the cancel still waits (settling would wait for it).
    h.venue.mine();
    await h.adapter.delivered();
    expect((await c).txHash).toBeNull();
    release();
    expect(h.adapter.sent.filter((x) => x.command.kind === 'cancel')).toEqual([]);
    expect(h.store.orders.get(WALLET, p.clientOrderId)).toMatchObject({ status: 'filled' });
    expect(await metricValue(h.metrics, 'dltmm_order_commands_total', { command: 'cancel', result: 'moot' })).toBe(1);
  });

  it('hands the adapter as many placements at once as it takes (chain B: one per source account)', async () => {
    let entered = 0;
    // An adapter that takes three placements at once (as chain B's with three source accounts).
    const h = await harness({
      wrapAdapter: (a) =>
        new Proxy(a, {
          get(target, key) {
            if (key === 'placementLanes') return 3;
            if (key === 'submit')
              return (c: Parameters<ChainAdapter['submit']>[0]) => {
                entered++;
                return target.submit(c);
              };
            const value: unknown = Reflect.get(target, key, target);
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          },
        }),
    });
    await start(h);
    const release = h.adapter.stallPlacements();
    const handed = ['99', '98.9', '98.8', '98.7'].map((p) => h.engine.handOver(placeOrder('buy', '1', p)));
    await whenTrue(() => entered === 3, 'three placements in the adapter');
    // The fourth waits in the queue until one of the three has left.
    expect(entered).toBe(3);
    release();
    await Promise.all(handed.map((x) => x.sent));
    expect(entered).toBe(4);
  });

  it('a placement handed over is recorded as intended at once; withdrawn while queued, it is refused at once and never signed', async () => {
    const h = await ready();
    const release = h.adapter.stallPlacements();
    // The first waits in the adapter (no free account), the others behind it in the queue.
    const handed = [placeOrder('buy', '1', '99'), placeOrder('buy', '1', '98.9'), placeOrder('sell', '1', '101')].map(
      (o) => h.engine.handOver(o),
    );
    for (const x of handed) expect(h.store.orders.get(WALLET, x.clientOrderId)?.status).toBe('intended');
    expect(h.engine.quotableOrders('tp-evm-bond-eure')).toHaveLength(3);
    h.engine.supersede('tp-evm-bond-eure');
    // None counts for the decision that superseded them, the one the adapter holds (it may be past signing) included.
    expect(h.engine.quotableOrders('tp-evm-bond-eure')).toEqual([]);
    // Those still queued are refused in the store at the moment of the withdrawal, before anything else runs.
    for (const x of handed.slice(1))
      expect(h.store.orders.get(WALLET, x.clientOrderId)).toMatchObject({
        status: 'rejected',
        rejection: { code: 'E_ORDER_WITHDRAWN' },
      });
    const sent = await Promise.allSettled(handed.map((x) => x.sent));
    release();
    await h.block();
    expect(sent.slice(1).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(h.store.orders.get(WALLET, handed[0]!.clientOrderId)).toMatchObject({
      status: 'rejected',
      rejection: { code: 'E_ORDER_WITHDRAWN' },
    });
    expect(h.adapter.sent).toEqual([]);
    expect(submissionsOf(h)).toBe(0);
  });

  it('a replacement superseded by a newer decision leaves the old order to that decision; one withdrawn otherwise cancels it', async () => {
    const h = await ready();
    const kept = await h.engine.place(placeOrder('sell', '1', '101'));
    const stale = await h.engine.place(placeOrder('sell', '1', '101.5'));
    await h.block();
    const release = h.adapter.stallPlacements();
    const superseded = h.engine.handOverReplace(kept.clientOrderId, placeOrder('sell', '1', '100.8'));
    h.engine.supersede('tp-evm-bond-eure');
    expect(await superseded.cancelled).toBeNull();
    const withdrawn = h.engine.handOverReplace(stale.clientOrderId, placeOrder('sell', '1', '100.9'));
    h.engine.withdrawPlacements('stale market data', 'tp-evm-bond-eure');
    expect(await withdrawn.cancelled).not.toBeNull();
    release();
    await h.block();
    expect(h.store.orders.get(WALLET, kept.clientOrderId)?.status).toBe('resting');
    expect(h.store.orders.get(WALLET, stale.clientOrderId)?.status).toBe('cancelled');
    expect(h.adapter.sent.filter((x) => x.command.kind === 'place')).toHaveLength(2);
  });

  it('one cancellation per order at a time: a second request while the first is queued is refused', async () => {
    const h = await ready();
    const p = await h.engine.place(placeOrder('sell', '1', '101'));
    await h.block();
    const [one, two] = await Promise.allSettled([h.engine.cancel(p.clientOrderId), h.engine.cancel(p.clientOrderId)]);
    expect(one.status).toBe('fulfilled');
    expect(two).toMatchObject({ status: 'rejected', reason: { code: 'E_ORDER_STATE' } });
    expect(h.adapter.sent.filter((x) => x.command.kind === 'cancel')).toHaveLength(1);
  });
});

/**
 * Our resting sell of `quantity` at 100.1, and a taker's buy of `takes` (raw) landing in the same block ahead of
 * our cancel, with the follower held back so that the cancel's outcome arrives first.
 */
async function cancelRacingATaker(h: Harness, quantity: string, takes: bigint) {
  const p = await h.engine.place(placeOrder('sell', quantity, '100.1'));
  await h.block();
  h.adapter.hold();
  h.venue.place(TAKER, 'tp-evm-bond-eure', 'buy', takes, 1_001_000n);
  const c = await h.engine.cancel(p.clientOrderId);
  h.venue.mine();
  await h.engine.submitted();
  return { p, c };
}

describe('fills and inventory', () => {
  it('a placement that trades at once records a taker fill with the exact token movements', async () => {
    const h = await ready();
    h.venue.place(TAKER, 'tp-evm-bond-eure', 'sell', 10_000n, 1_000_000n);
    await h.block();
    const { base: b0, quote: q0 } = await h.adapter.readBalances(h.pair);
    const p = await h.engine.place(placeOrder('buy', '2', '100.5'));
    await h.block();
    const o = h.store.orders.get(WALLET, p.clientOrderId);
    expect(o).toMatchObject({ status: 'partiallyFilled', filled: 10_000n });
    const [fill] = h.store.orders.fills({ wallet: WALLET });
    const { base: b1, quote: q1 } = await h.adapter.readBalances(h.pair);
    // The wallet paid the fill and locked the resting half; the fill's own quote is the payment less that lock.
    expect(fill).toMatchObject({ role: 'taker', quantity: 10_000n, price: 1_000_000n, baseDelta: b1 - b0 });
    const report = await h.engine.compareInventory();
    expect(report).toMatchObject({ comparable: true, mismatched: [] });
    expect(q1 - q0).toBeLessThan(fill?.quoteDelta as bigint);
  });

  it('maker fills of our resting orders keep the inventory equal to the chain', async () => {
    const h = await ready();
    await h.engine.place(placeOrder('sell', '1', '100.1'));
    await h.engine.place(placeOrder('sell', '2', '100.2'));
    await h.engine.place(placeOrder('buy', '1.5', '99.5'));
    await h.block();
    h.venue.place(TAKER, 'tp-evm-bond-eure', 'buy', 20_000n, 1_003_000n);
    await h.block();
    h.venue.place(TAKER, 'tp-evm-bond-eure', 'sell', 5_000n, 990_000n);
    await h.block();
    const fills = h.store.orders.fills({ wallet: WALLET });
    expect(fills.map((f) => [f.role, f.side, f.quantity])).toEqual([
      ['maker', 'sell', 10_000n],
      ['maker', 'sell', 10_000n],
      ['maker', 'buy', 5_000n],
    ]);
    expect(await h.engine.compareInventory()).toMatchObject({ comparable: true, mismatched: [] });
    expect(await metricValue(h.metrics, 'dltmm_fills_total', { role: 'maker' })).toBe(3);
  });

  it('a fill racing our cancel is applied first, and the cancellation accounts for the rest', async () => {
    const h = await ready();
    const { p, c } = await cancelRacingATaker(h, '2', 5_000n);
    // The cancel's outcome arrived first and reports 1.5 of 2 returned: not applied until the fill is seen.
    expect(h.store.orders.get(WALLET, p.clientOrderId)?.status).toBe('cancelRequested');
    await h.adapter.resume();
    await h.settle();
    expect(await c.settled).toMatchObject({ status: 'cancelRequested' });
    expect(h.store.orders.get(WALLET, p.clientOrderId)).toMatchObject({
      status: 'cancelled',
      filled: 5_000n,
      unexplained: 0n,
    });
    expect(statuses(h, p.clientOrderId)).toEqual([
      'submitting',
      'received',
      'resting',
      'cancelRequested',
      'cancelRequested',
      'cancelled',
    ]);
    expect(await h.engine.compareInventory()).toMatchObject({ comparable: true, mismatched: [] });
  });

  it('a cancel that meets a fill of the whole order leaves it for good: never cancelled again, settled by the fill', async () => {
    const h = await ready();
    // The taker takes all of it, ahead of our cancel in the same block: the cancel reverts, order not found.
    const { p, c } = await cancelRacingATaker(h, '1', 10_000n);
    expect(await c.settled).toMatchObject({ status: 'cancelRequested', cancelTxHash: null });
    // Shutdown's cancel-all (and any later round) must not cancel it again.
    const all = h.engine.cancelAll({ timeoutMs: 60_000 });
    await expect(h.engine.cancel(p.clientOrderId)).rejects.toMatchObject({ code: 'E_ORDER_STATE' });
    await h.adapter.resume();
    await h.settle();
    expect((await all).open).toEqual([]);
    expect(h.adapter.sent.filter((s) => s.command.kind === 'cancel')).toHaveLength(1);
    expect(h.store.orders.get(WALLET, p.clientOrderId)).toMatchObject({ status: 'filled', filled: 10_000n });
    expect(statuses(h, p.clientOrderId)).toEqual([
      'submitting',
      'received',
      'resting',
      'cancelRequested',
      'cancelRequested',
      'filled',
    ]);
    expect(await h.engine.compareInventory()).toMatchObject({ comparable: true, mismatched: [] });
  });

  it('a movement nothing explains is an alert and a metric, and pauses the pair until a check agrees', async () => {
    const h = await ready();
    h.venue.mint(h.pair.quoteToken, WALLET, 123n);
    const report = withClock(h, h.engine.verifyInventory());
    expect(await report).toMatchObject({ mismatched: [{ difference: 123n }] });
    expect(h.store.alerts.pausing('evm', WALLET, 'tp-evm-bond-eure').map((a) => a.kind)).toEqual([
      'inventory-mismatch',
    ]);
    expect(await metricValue(h.metrics, 'dltmm_inventory_mismatch', { token: h.pair.quoteToken })).toBe(123);
    await expect(h.engine.place(placeOrder('buy', '1', '99'))).rejects.toMatchObject({ code: 'E_TRADING_PAUSED' });
    h.venue.balances.set(`${h.pair.quoteToken}:${WALLET}`, h.venue.balance(h.pair.quoteToken, WALLET) - 123n);
    await withClock(h, h.engine.verifyInventory());
    expect(h.store.alerts.pausing('evm', WALLET, 'tp-evm-bond-eure')).toEqual([]);
  });

  it('a deposit the operator re-bases on resumes the pair, and later fills count from the new baseline', async () => {
    const h = await ready();
    h.venue.mint(h.pair.quoteToken, WALLET, 5_000n);
    await withClock(h, h.engine.verifyInventory());
    expect(h.store.alerts.pausing('evm', WALLET, 'tp-evm-bond-eure').map((a) => a.kind)).toEqual([
      'inventory-mismatch',
    ]);
    const corrected = await h.engine.rebaselineInventory('deposit of 5000 units');
    expect(corrected.mismatched.map((t) => [t.token, t.difference])).toEqual([[h.pair.quoteToken, 5_000n]]);
    expect(h.store.alerts.pausing('evm', WALLET, 'tp-evm-bond-eure')).toEqual([]);
    expect(h.store.alerts.open({ wallet: WALLET })).toEqual([]);
    expect(await metricValue(h.metrics, 'dltmm_inventory_mismatch', { token: h.pair.quoteToken })).toBe(0);
    // Trading resumes, and a fill afterwards is explained from the new baseline.
    const p = await h.engine.place(placeOrder('sell', '1', '100.1'));
    await h.block();
    h.venue.place(TAKER, 'tp-evm-bond-eure', 'buy', 10_000n, 1_001_000n);
    h.venue.mine();
    await h.settle();
    expect(h.store.orders.get(WALLET, p.clientOrderId)?.status).toBe('filled');
    expect(await withClock(h, h.engine.verifyInventory())).toMatchObject({ comparable: true, mismatched: [] });
  });

  it('re-basing waits for every order of the wallet to be settled', async () => {
    const h = await ready();
    h.adapter.hold();
    await h.engine.place(placeOrder('sell', '1', '100.1'));
    await expect(h.engine.rebaselineInventory('x')).rejects.toMatchObject({
      code: 'E_ORDER_STATE',
      message: expect.stringContaining('not settled'),
    });
    await h.adapter.resume();
  });
});

describe('audit trail', () => {
  it('links an order to the decision that made it, its transactions, its transitions and its fills', async () => {
    const h = await ready();
    const decision = {
      pairId: 'tp-evm-bond-eure',
      strategy: 'ladder',
      configHash: 'cfg-1',
      params: { spreadBps: 10 },
      market: { bid: '99.9', ask: '100.3' },
      risk: { passed: ['value', 'collar'] },
    };
    const p = await h.engine.place(placeOrder('sell', '1', '100.1', { decision }));
    await h.block();
    h.venue.place(TAKER, 'tp-evm-bond-eure', 'buy', 5_000n, 1_001_000n);
    await h.block();
    const c = await h.engine.cancel(p.clientOrderId);
    await h.block();
    const trail = auditTrail(h.store, WALLET, p.clientOrderId);
    expect(trail?.decision).toMatchObject({ configHash: 'cfg-1', risk: { passed: ['value', 'collar'] } });
    expect(trail?.transactions.map((t) => [t.txHash, t.kind])).toEqual([
      [p.txHash, 'place'],
      [c.txHash, 'cancel'],
    ]);
    expect(trail?.transitions.map((t) => t.to)).toEqual([
      'submitting',
      'received',
      'resting',
      'partiallyFilled',
      'cancelRequested',
      'cancelled',
    ]);
    expect(trail?.fills.map((f) => [f.role, f.quantity])).toEqual([['maker', 5_000n]]);
  });
});
