import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../../src/core/decimal.ts';
import { ZERO_REPORTING } from '../../../../../src/core/encoding/reporting.ts';
import { approvalFor } from '../../../../../src/core/money.ts';
import { newOrder, remainingOf } from '../../../../../src/core/order-state.ts';
import { DEFAULT_ORDER_OPTIONS } from '../../../../../src/core/order-terms.ts';
import { harness, start, TAKER, WALLET, type Harness } from '../../../../support/engine/harness.ts';
import { between, pick, seeded } from '../../../../support/engine/random.ts';

const PAIR = 'tp-evm-bond-eure';

/** The chain's truth against the store: every resting order known, no id placed twice, inventory equal. */
async function checkInvariants(h: Harness): Promise<void> {
  const book = h.venue.pair(PAIR).book;
  const resting = [...book.buys, ...book.sells].filter((o) => o.wallet === WALLET);
  for (const r of resting) {
    const o = h.store.orders.byVenueId('evm', PAIR, r.id);
    expect(o === undefined ? `unknown order ${r.id}` : [o.status, remainingOf(o)]).toEqual([
      expect.stringMatching(/^(resting|partiallyFilled|cancelRequested)$/),
      r.remaining,
    ]);
  }
  const live = h.store.orders
    .live({ wallet: WALLET })
    .filter((o) => o.status === 'resting' || o.status === 'partiallyFilled' || o.status === 'cancelRequested');
  expect(live.map((o) => o.orderId).toSorted()).toEqual(resting.map((r) => r.id).toSorted());
  const received = h.venue.blocks
    .flatMap((b) => b.txs.flatMap((t) => t.events))
    .filter((e) => e.type === 'OrderReceived' && e.client === WALLET);
  const ids = received.map((e) => (e.type === 'OrderReceived' ? e.crossIdentifier : 0n));
  expect(new Set(ids).size).toBe(ids.length);
  const report = await h.engine.compareInventory();
  expect(report).toMatchObject({ comparable: true, mismatched: [] });
}

describe('restarts at random points of a busy order flow (fake chain)', () => {
  it('after every restart the store knows every resting order, nothing was placed twice and inventory equals the chain', async () => {
    const random = seeded(20_260_302);
    let h = await harness({ adapter: { foreignTrades: false } });
    await start(h);
    let kills = 0;
    for (let cycle = 0; cycle < 30; cycle++) {
      const actions = between(random, 1, 4);
      for (let i = 0; i < actions; i++) {
        const live = h.store.orders
          .live({ wallet: WALLET })
          .filter((o) => o.status === 'resting' || o.status === 'partiallyFilled');
        const what = pick(random, ['buy', 'sell', 'cancel', 'replace', 'taker'] as const);
        const price = (side: 'buy' | 'sell') =>
          new Decimal(side === 'buy' ? 99 + between(random, 0, 9) / 10 : 100.1 + between(random, 0, 9) / 10).toFixed(1);
        if ((what === 'buy' || what === 'sell') && live.length < 8) {
          await h.engine
            .place({
              pairId: PAIR,
              side: what,
              quantity: new Decimal(between(random, 1, 4) / 2),
              price: new Decimal(price(what)),
            })
            .catch(() => {});
        } else if (what === 'cancel' && live.length > 0) {
          await h.engine.cancel(pick(random, live).clientOrderId).catch(() => {});
        } else if (what === 'replace' && live.length > 0) {
          const old = pick(random, live);
          await h.engine
            .replace(old.clientOrderId, {
              pairId: PAIR,
              side: old.side,
              quantity: new Decimal('1'),
              price: new Decimal(price(old.side)),
            })
            .catch(() => {});
        } else if (what === 'taker') {
          const side = pick(random, ['buy', 'sell'] as const);
          h.venue.place(
            TAKER,
            PAIR,
            side,
            BigInt(between(random, 1, 4)) * 5_000n,
            side === 'buy' ? 1_005_000n : 995_000n,
          );
        }
        if (random() < 0.5) await h.block();
      }
      // Where the process dies: anywhere in flight, or at one of the named points of a placement.
      const point = pick(random, ['anywhere', 'after-record', 'after-journal', 'after-broadcast'] as const);
      if (point !== 'anywhere') {
        const cid = h.parts.ctx.ids.next();
        const terms = {
          ...DEFAULT_ORDER_OPTIONS,
          side: 'sell' as const,
          quantity: new Decimal('0.5'),
          price: new Decimal('100.9'),
        };
        h.store.orders.create(
          newOrder({ clientOrderId: cid, pairId: PAIR, side: 'sell', quantity: 5_000n, price: 1_009_000n }),
          { wallet: WALLET, chain: 'evm', lockRateBps: 10, prefunded: true },
        );
        if (point === 'after-journal') h.adapter.faults.push('drop');
        if (point !== 'after-record') {
          await h.adapter.submit({
            kind: 'place',
            pair: h.pair,
            clientOrderId: cid,
            terms,
            reporting: ZERO_REPORTING,
            approval: approvalFor(
              'sell',
              terms.quantity,
              terms.price,
              h.pair.rules.scales,
              h.pair.rules.commissions,
              false,
            ),
          });
        }
      }
      if (random() < 0.5) h.venue.mine();
      h = await h.restart();
      kills++;
      // Let the chain move on so that transactions lost in the crash expire, then reconcile until ready.
      for (let tries = 0; tries < 5 && !(await start(h)).ready; tries++) h.venue.mine();
      await checkInvariants(h);
    }
    expect(kills).toBe(30);
    expect(h.store.orders.fills({ wallet: WALLET }).length).toBeGreaterThan(0);
  });
});
