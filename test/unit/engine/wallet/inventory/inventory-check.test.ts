import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../../src/core/decimal.ts';
import type { PlaceOrder } from '../../../../../src/engine/wallet/orders/order-manager.ts';
import {
  harness,
  start,
  TAKER,
  WALLET,
  type Harness,
  type HarnessOptions,
} from '../../../../support/engine/harness.ts';
import { timersDueIn, whenTrue } from '../../../../support/condition.ts';

const PAIR = 'tp-evm-bond-eure';

const sell = (price: string): PlaceOrder => ({
  pairId: PAIR,
  side: 'sell',
  quantity: new Decimal('1'),
  price: new Decimal(price),
});

async function ready(options: HarnessOptions = {}): Promise<Harness> {
  const h = await harness(options);
  await start(h);
  return h;
}

/** The harness's `inventory.coverageTimeoutMs`: how long a look waits for the follower. */
const COVERAGE_TIMEOUT_MS = 5_000;

/** Resolves once `look` waits for the follower (its deadline is on the clock), or has ended; the clock does not move. */
async function waitingForFollower(h: Harness, look: { done: boolean }, before: number): Promise<void> {
  await whenTrue(
    () => look.done || timersDueIn(h.clock, COVERAGE_TIMEOUT_MS) > before,
    'the look waits for the follower',
  );
}

/** Two resting sells of ours, then a taker fills one of them in a block the follower has not delivered yet. */
async function fillBehindTheFollower(h: Harness): Promise<void> {
  await h.engine.place(sell('100.1'));
  await h.engine.place(sell('100.1'));
  await h.block();
  h.adapter.hold();
  h.venue.place(TAKER, PAIR, 'buy', 10_000n, 1_001_000n);
  h.venue.mine();
}

const pausing = (h: Harness) => h.store.alerts.pausing('evm', WALLET, PAIR).map((a) => a.kind);

describe('inventory check: decided at one point of the chain', () => {
  it('a look that raced a fill the follower had not delivered raises nothing, and the check agrees as soon as the follower delivers it, with no pause on the clock', async () => {
    const h = await ready();
    await fillBehindTheFollower(h);
    const clockAt = h.clock.now();
    let result: unknown = null;
    const before = timersDueIn(h.clock, COVERAGE_TIMEOUT_MS);
    const look = { done: false };
    const verifying = h.engine.verifyInventory().then((r) => {
      look.done = true;
      result = r;
    });
    await waitingForFollower(h, look, before);
    // The balances already show the fill; the store does not: the look waits for the follower, not for time.
    expect(result).toBe(null);
    await h.adapter.resume();
    await h.settle();
    await verifying;
    expect(result).toMatchObject({ comparable: true, mismatched: [] });
    expect((result as { inconclusive?: boolean }).inconclusive).toBeUndefined();
    expect(pausing(h)).toEqual([]);
    expect(h.store.orders.fills({ wallet: WALLET })).toHaveLength(1);
    expect(h.clock.now()).toBe(clockAt);
  });

  it('where the chain keeps past state, a look reads at the height the follower has delivered: a deposit is decided at once and exactly, a fill still on its way changes nothing', async () => {
    const h = await ready({ adapter: { pastReads: true } });
    await h.engine.place(sell('100.1'));
    await h.engine.place(sell('100.1'));
    await h.block();
    // A deposit nothing explains, in a block the follower has delivered (it carries no event of ours).
    h.venue.mint(h.pair.quoteToken, WALLET, 123n);
    await h.block();
    await fillBehindTheFollower(h);
    const report = await h.engine.verifyInventory();
    expect(report).toMatchObject({ comparable: true, mismatched: [{ token: h.pair.quoteToken, difference: 123n }] });
    expect(pausing(h)).toEqual(['inventory-mismatch']);
    await h.adapter.resume();
    await h.settle();
    expect(h.store.orders.fills({ wallet: WALLET })).toHaveLength(1);
  });

  it('a follower that does not deliver in time decides nothing: no alert, and the report says so', async () => {
    const h = await ready();
    await fillBehindTheFollower(h);
    const checking = { done: false };
    const before = timersDueIn(h.clock, COVERAGE_TIMEOUT_MS);
    const verified = h.engine.verifyInventory().finally(() => (checking.done = true));
    await waitingForFollower(h, checking, before);
    // The follower's deadline passes without a delivery.
    h.clock.advance(COVERAGE_TIMEOUT_MS);
    expect(await verified).toMatchObject({ comparable: true, mismatched: [], inconclusive: true });
    expect(pausing(h)).toEqual([]);
    await h.adapter.resume();
    await h.settle();
    expect(await h.engine.verifyInventory()).toMatchObject({ comparable: true, mismatched: [] });
  });

  it('an inventory alert the next decided look explains is resolved at the restart, so it does not pause the pair for the next run', async () => {
    const h = await ready();
    await h.engine.place(sell('100.1'));
    await h.block();
    h.venue.mint(h.pair.quoteToken, WALLET, 500n);
    await h.block();
    await h.engine.verifyInventory();
    expect(pausing(h)).toEqual(['inventory-mismatch']);
    // The movement reverses (the transfer is sent back) while the bot is stopped; our sell fills meanwhile too.
    h.venue.balances.set(`${h.pair.quoteToken}:${WALLET}`, h.venue.balance(h.pair.quoteToken, WALLET) - 500n);
    h.venue.place(TAKER, PAIR, 'buy', 10_000n, 1_001_000n);
    h.venue.mine();
    const next = await h.restart();
    await start(next);
    expect(pausing(next)).toEqual([]);
    const resolved = next.store.db
      .prepare("SELECT resolution FROM alerts WHERE kind = 'inventory-mismatch'")
      .all() as Array<{ resolution: string | null }>;
    expect(resolved.map((r) => r.resolution?.startsWith('a decided check at height'))).toEqual([true]);
  });

  it('re-basing takes the difference of a decided look only', async () => {
    const h = await ready({ adapter: { pastReads: true } });
    h.venue.mint(h.pair.quoteToken, WALLET, 77n);
    await h.block();
    await fillBehindTheFollower(h);
    const corrected = await h.engine.rebaselineInventory('deposit of 77 units');
    expect(corrected.mismatched.map((t) => [t.token, t.difference])).toEqual([[h.pair.quoteToken, 77n]]);
    await h.adapter.resume();
    await h.settle();
    expect(await h.engine.verifyInventory()).toMatchObject({ comparable: true, mismatched: [] });
  });
});
