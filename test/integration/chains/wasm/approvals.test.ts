/**
 * Approvals with `expiration_ledger`: the adapter approves a bounded budget when none of its own is recorded,
 * records the expiry the token does not echo back, tops up when the allowance left falls short of the next
 * order, renews ahead of the expiry, and recovers when the allowance was spent behind its back.
 */
import { describe, expect, it } from 'vitest';
import { approve } from '../../../../src/sandbox/wasm/operator.ts';
import type { Store } from '../../../../src/store/store.ts';
import {
  accepted,
  adapterFor,
  BIG,
  channels,
  freshBook,
  placeCommand,
  fileHarness,
  wallet,
} from '../../../support/chains/wasm/harness.ts';

const h = fileHarness();

function approvals(store: Store): number {
  return store.db.prepare("SELECT COUNT(*) AS n FROM transactions WHERE kind = 'approve' AND status = 'included'").get()
    ?.n as number;
}

const allowanceOnChain = (who: string) => h.d.quote.allowances.get(`${who}|${h.pair.orderBook}`);

describe('approvals', () => {
  it('approves a budget before the first order, records the expiry and reports it with the allowance', async () => {
    const trader = wallet(h);
    const cmd = placeCommand(h, 'buy', '1', '12.00');
    const built = adapterFor(h, trader, {
      channelKeys: channels(h, 1),
      approvals: { multiplier: 3, lifetimeLedgers: 500 },
    });
    await accepted(await built.adapter.submit(cmd));
    const need = cmd.approval.amount;
    const record = built.store.state.approval('wasm', trader.publicKey(), h.pair.quoteToken, h.pair.orderBook);
    expect(record?.amount).toBe(need * 3n);
    expect(record?.expiresAtLedger).toBe(allowanceOnChain(trader.publicKey())?.expirationLedger);
    const allowance = await built.adapter.readAllowance(h.pair, 'quote');
    // The pre-funded resting buy took its lock out of the allowance.
    expect(allowance).toEqual({
      amount: h.d.quote.allowances.get(`${trader.publicKey()}|${h.pair.orderBook}`)?.amount,
      expiresAtLedger: record?.expiresAtLedger,
    });
    expect(allowance.amount).toBeLessThan(need * 3n);
    await built.adapter.close();
  });

  it('tops up when what is left is below the next order, and not before', async () => {
    const trader = wallet(h);
    const first = placeCommand(h, 'buy', '1', '12.00');
    const budget = (first.approval.amount * 5n) / 2n;
    const built = adapterFor(h, trader, { approvals: { budgets: { [h.pair.pairId]: { quote: budget } } } });
    await accepted(await built.adapter.submit(first));
    await accepted(await built.adapter.submit(placeCommand(h, 'buy', '1', '12.00')));
    expect(approvals(built.store)).toBe(1);
    // Half an order's worth left: the third order needs a top-up first.
    await accepted(await built.adapter.submit(placeCommand(h, 'buy', '1', '12.00')));
    expect(approvals(built.store)).toBe(2);
    expect(built.store.state.approval('wasm', trader.publicKey(), h.pair.quoteToken, h.pair.orderBook)?.amount).toBe(
      budget,
    );
    await built.adapter.close();
  });

  it('renews ahead of the recorded expiry even when the amount would do', async () => {
    const trader = wallet(h);
    const built = adapterFor(h, trader, { approvals: { multiplier: 10, lifetimeLedgers: 12, renewMarginLedgers: 4 } });
    await accepted(await built.adapter.submit(placeCommand(h, 'buy', '1', '12.00')));
    const expiry = built.store.state.approval('wasm', trader.publicKey(), h.pair.quoteToken, h.pair.orderBook)
      ?.expiresAtLedger as number;
    while (h.emu.latest.seq < expiry - 4) h.ledger();
    await accepted(await built.adapter.submit(placeCommand(h, 'buy', '1', '12.00')));
    expect(approvals(built.store)).toBe(2);
    expect(
      built.store.state.approval('wasm', trader.publicKey(), h.pair.quoteToken, h.pair.orderBook)?.expiresAtLedger,
    ).toBeGreaterThan(expiry);
    await built.adapter.close();
  });

  it('ensureAllowance: nothing to do while enough is approved far from expiry, else an approval to follow', async () => {
    const trader = wallet(h);
    const built = adapterFor(h, trader);
    const sub = await built.adapter.ensureAllowance(h.pair, 'base', 5_000_000n);
    expect(sub).not.toBeNull();
    await accepted(sub!);
    expect(await built.adapter.ensureAllowance(h.pair, 'base', 5_000_000n)).toBeNull();
    expect(await built.adapter.readAllowance(h.pair, 'base')).toMatchObject({ amount: 20_000_000n });
    await built.adapter.close();
  });

  it('an allowance spent behind its back: the simulation says #9, the adapter re-reads, tops up and retries once', async () => {
    const trader = wallet(h);
    const built = adapterFor(h, trader, { approvals: { multiplier: 10 } });
    await accepted(await built.adapter.submit(placeCommand(h, 'buy', '1', '12.00')));
    approve(h.emu, h.d, 'quote', trader.publicKey(), h.pair.orderBook, 0n, h.emu.latest.seq + 100);
    h.ledger();
    const o = await accepted(await built.adapter.submit(placeCommand(h, 'buy', '1', '12.00')));
    expect(o.orderId).not.toBeNull();
    expect(approvals(built.store)).toBe(2);
    await built.adapter.close();
  });
});

describe('allowance reserved per order in flight', () => {
  it('the orders of one ledger are covered together: a top-up counts the orders in flight, and none fails for its allowance', async () => {
    const trader = wallet(h);
    const first = placeCommand(h, 'buy', '1', '12.00');
    const budget = first.approval.amount * 3n;
    const built = adapterFor(h, trader, {
      channelKeys: channels(h, 8),
      approvals: { budgets: { [h.pair.pairId]: { quote: budget } } },
    });
    await accepted(await built.adapter.submit(first));
    // Two more orders' worth is left; five orders go out in one ledger.
    h.sleeper.hold();
    const subs = [];
    for (let i = 0; i < 2; i++) subs.push(await built.adapter.submit(placeCommand(h, 'buy', '1', '12.00')));
    expect(approvals(built.store)).toBe(1);
    // The third needs a top-up: it must count the two in flight (the chain does not show them yet).
    const sent = { count: 0 };
    const more = [0, 1, 2].map(() =>
      built.adapter.submit(placeCommand(h, 'buy', '1', '12.00')).then((x) => ((sent.count += 1), x)),
    );
    // The ledger stays open until the three went out, or until a top-up waits for its inclusion.
    const approving = () =>
      built.store.db.prepare("SELECT COUNT(*) AS n FROM transactions WHERE kind = 'approve' AND status = 'sent'").get()
        ?.n as number;
    while (sent.count < 3 && approving() === 0) await new Promise<void>((r) => setImmediate(r));
    h.sleeper.open();
    subs.push(...(await Promise.all(more)));
    const outcomes = await Promise.all(subs.map((x) => x.outcome));
    expect(outcomes.map((o) => o.kind)).toEqual(['accepted', 'accepted', 'accepted', 'accepted', 'accepted']);
    expect(approvals(built.store)).toBe(2);
    await built.adapter.close();
  });

  it('placements that wait together behind a top-up are covered by it: one approval for a whole ladder', async () => {
    const trader = wallet(h);
    const built = adapterFor(h, trader, { channelKeys: channels(h, 8), approvals: { multiplier: 1 } });
    // Three buys of a ladder, handed over at once to a wallet that has approved nothing yet.
    h.sleeper.hold();
    const subs = ['12.00', '11.90', '11.80'].map((price) => built.adapter.submit(placeCommand(h, 'buy', '1', price)));
    const approving = () =>
      built.store.db.prepare("SELECT COUNT(*) AS n FROM transactions WHERE kind = 'approve'").get()?.n as number;
    while (approving() === 0) await new Promise<void>((r) => setImmediate(r));
    h.sleeper.open();
    const outcomes = await Promise.all((await Promise.all(subs)).map((x) => x.outcome));
    expect(outcomes.map((o) => o.kind)).toEqual(['accepted', 'accepted', 'accepted']);
    expect(approvals(built.store)).toBe(1);
    await built.adapter.close();
  });

  it('on a no-prefund book the allowance covers every live order of the wallet together, so matching draws them all', async () => {
    const { d, pair } = freshBook(h, 'no-prefund-allowance', { prefunded: false });
    const trader = wallet(h, {}, d);
    const one = placeCommand(h, 'buy', '1', '12.00', { pair });
    const need = one.approval.amount;
    const built = adapterFor(h, trader, { approvals: { budgets: { [pair.pairId]: { quote: need * 2n } } } });
    const ids: bigint[] = [];
    for (let i = 0; i < 3; i++) {
      // What the engine passes: the draw of the wallet's other live orders on the book.
      const o = await accepted(
        await built.adapter.submit({ ...placeCommand(h, 'buy', '1', '12.00', { pair }), committed: need * BigInt(i) }),
      );
      ids.push(o.orderId as bigint);
    }
    expect(d.quote.allowances.get(`${trader.publicKey()}|${pair.orderBook}`)?.amount).toBeGreaterThanOrEqual(need * 3n);
    // A taker sells into all three at once: each is drawn in turn, none is cancelled for a short allowance.
    const taker = adapterFor(h, wallet(h, { approve: BIG }, d));
    const t = await accepted(await taker.adapter.submit(placeCommand(h, 'sell', '3', '12.00', { pair })));
    expect(t.events.filter((e) => e.type === 'OrderCancelled')).toEqual([]);
    expect(d.book.book.buys.filter((b) => ids.includes(b.id))).toEqual([]);
    await built.adapter.close();
    await taker.adapter.close();
  });
});
