/**
 * The adapter against the chain B emulator over RPC: placing (resting, partial and full fills), cancelling,
 * channel accounts with the trading account's address-credential authorization, and up to N transactions
 * in one ledger with N channels.
 */
import { xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import type { ChainEvent } from '../../../../src/chains/types.ts';
import { createChannelAccounts } from '../../../../src/chains/wasm/channel-setup.ts';
import { metricValue } from '../../../support/venue/metric-value.ts';
import {
  accepted,
  adapterFor,
  approveAhead,
  BIG,
  cancelCommand,
  channels,
  freshBook,
  placeCommand,
  fileHarness,
  typesOf,
  wallet,
} from '../../../support/chains/wasm/harness.ts';
import { pacedClock } from '../../../support/clock.ts';

const h = fileHarness();

function authCredentialTypes(envelopeB64: string): number[] {
  const env = xdr.TransactionEnvelope.schema.decode(Buffer.from(envelopeB64, 'base64'));
  if (env.type !== 2) throw new Error('not a v1 envelope');
  return env.v1.tx.operations.flatMap((op) =>
    op.body.type === 24 ? op.body.invokeHostFunctionOp.auth.map((a) => a.credentials.type) : [],
  );
}

function only<T extends ChainEvent['type']>(events: readonly ChainEvent[], type: T): Extract<ChainEvent, { type: T }> {
  const found = events.filter((e): e is Extract<ChainEvent, { type: T }> => e.type === type);
  if (found.length !== 1) throw new Error(`expected one ${type}, got ${found.length}`);
  return found[0] as Extract<ChainEvent, { type: T }>;
}

describe('placing through a channel account', () => {
  it('resolves once sent (journalled first), then settles accepted with the order id and the resting events', async () => {
    const trader = wallet(h, { approve: BIG });
    const [channel] = channels(h, 1);
    const { adapter, store } = adapterFor(h, trader, { channelKeys: [channel!] });
    await approveAhead(adapter, h.pair);
    const cmd = placeCommand(h, 'buy', '1', '12.00');
    h.sleeper.hold();
    const sub = await adapter.submit(cmd);
    const hash = sub.txHash as string;
    // Sent, not yet included: the journal already holds the signed envelope.
    expect(h.emu.isPending(hash)).toBe(true);
    const record = store.transactions.get(hash);
    expect([record?.status, record?.source, record?.kind, record?.clientOrderId]).toEqual([
      'sent',
      channel!.publicKey(),
      'place',
      cmd.clientOrderId,
    ]);
    // The channel is the source; the trading account authorizes `user` with address credentials (type 1).
    expect(authCredentialTypes(record?.raw ?? '')).toEqual([1]);
    h.sleeper.open();
    const o = await accepted(sub);
    expect(typesOf(o.events)).toEqual(['OrderReceived', 'OrderResting']);
    const received = only(o.events, 'OrderReceived');
    expect([
      received.orderId,
      received.side,
      received.quantity,
      received.price,
      received.crossIdentifier,
      received.client,
    ]).toEqual([o.orderId, 'buy', 1000n, 120_000n, cmd.clientOrderId, trader.publicKey()]);
    expect(h.d.book.book.buys.find((b) => b.id === o.orderId)?.wallet).toBe(trader.publicKey());
    expect(store.transactions.get(hash)?.status).toBe('included');
    // The channel paid the fee and spent its sequence number.
    expect(h.emu.world.accounts.get(channel!.publicKey())?.seqNum).toBe(record?.sequence);
    await adapter.close();
  });

  it('with eight channel accounts, seven placements land in one ledger and the eighth source is kept for a cancel', async () => {
    const trader = wallet(h, { approve: BIG });
    const { adapter, store } = adapterFor(h, trader, { channelKeys: channels(h, 8) });
    await approveAhead(adapter, h.pair);
    const resting = await accepted(await adapter.submit(placeCommand(h, 'sell', '1', '13.20')));
    h.sleeper.hold();
    const subs = [];
    for (let i = 0; i < 7; i++)
      subs.push(await adapter.submit(placeCommand(h, 'buy', '1', (11.5 + i * 0.02).toFixed(2))));
    expect(subs.every((s) => h.emu.isPending(s.txHash as string))).toBe(true);
    // An eighth placement waits for a source; a cancel does not: it takes the one kept free.
    let eighthSent = false;
    const eighth = adapter.submit(placeCommand(h, 'buy', '1', '11.70')).then((s) => ((eighthSent = true), s));
    const cancel = await adapter.submit(cancelCommand(h, 'sell', resting.orderId as bigint));
    expect(h.emu.isPending(cancel.txHash as string)).toBe(true);
    expect(eighthSent).toBe(false);
    h.sleeper.open();
    const outcomes = await Promise.all([...subs, cancel].map(accepted));
    expect(new Set(outcomes.map((o) => o.height)).size).toBe(1);
    expect(new Set([...subs, cancel].map((s) => store.transactions.get(s.txHash as string)?.source)).size).toBe(8);
    await accepted(await eighth);
    await adapter.close();
  });

  it('without channels, the trading account is the source and authorizes as the source account', async () => {
    const trader = wallet(h, { approve: BIG });
    const { adapter, store } = adapterFor(h, trader);
    expect(adapter.sources).toEqual([trader.publicKey()]);
    const sub = await adapter.submit(placeCommand(h, 'sell', '1', '13.00'));
    const o = await accepted(sub);
    expect(typesOf(o.events)).toEqual(['OrderReceived', 'OrderResting']);
    expect(authCredentialTypes(store.transactions.get(sub.txHash as string)?.raw ?? '')).toEqual([0]);
    await adapter.close();
  });
});

describe('urgent work first on a congested network', () => {
  it('with the queue full, a cancel outbids it into the next ledger while a placement backs off without holding a source', async () => {
    const trader = wallet(h, { approve: BIG });
    // One source account: the cancel can only go out if the placement's back-off does not hold it.
    const t = adapterFor(h, trader);
    await approveAhead(t.adapter, h.pair);
    const resting = await accepted(await t.adapter.submit(placeCommand(h, 'sell', '1', '13.40')));
    const fillers = [0, 1].map(() => adapterFor(h, wallet(h, { approve: BIG })).adapter);
    for (const f of fillers) await approveAhead(f, h.pair);
    h.sleeper.hold();
    h.emu.queueCapacity = 2;
    try {
      // Two other participants fill the queue at the base inclusion fee.
      for (const [i, f] of fillers.entries())
        expect(
          h.emu.isPending((await f.submit(placeCommand(h, 'buy', '1', (11.0 + i * 0.02).toFixed(2)))).txHash as string),
        ).toBe(true);
      let placed = false;
      const placement = t.adapter.submit(placeCommand(h, 'buy', '1', '11.60')).then((s) => ((placed = true), s));
      while ((await metricValue(t.metrics, 'dltmm_wasm_try_again_later_total')) < 1)
        await new Promise<void>((r) => setImmediate(r));
      const at = h.emu.latest.seq;
      const cancel = await t.adapter.submit(cancelCommand(h, 'sell', resting.orderId as bigint));
      expect(h.emu.isPending(cancel.txHash as string)).toBe(true);
      expect(placed).toBe(false);
      h.sleeper.open();
      expect((await accepted(cancel)).height).toBe(BigInt(at + 1));
      h.emu.queueCapacity = null;
      expect((await accepted(await placement)).orderId).not.toBeNull();
    } finally {
      h.emu.queueCapacity = null;
      h.sleeper.open();
      for (const f of fillers) await f.close();
      await t.adapter.close();
    }
  });
});

describe('fills and cancellation', () => {
  it('reports a full fill of the incoming order (trade, nothing rests) and a partial one (trade, the remainder rests)', async () => {
    const { d, pair } = freshBook(h, 'fills');
    const maker = adapterFor(h, wallet(h, {}, d));
    const taker = adapterFor(h, wallet(h, {}, d), { channelKeys: channels(h, 2) });
    const resting = await accepted(await maker.adapter.submit(placeCommand(h, 'sell', '3', '12.40', { pair })));

    const full = await accepted(await taker.adapter.submit(placeCommand(h, 'buy', '1', '12.40', { pair })));
    expect(typesOf(full.events)).toEqual(['OrderReceived', 'Trade']);
    const trade = only(full.events, 'Trade');
    expect([trade.orderId, trade.side, trade.quantity, trade.price]).toEqual([full.orderId, 'buy', 1000n, 124_000n]);
    expect(d.book.book.sells.find((s) => s.id === resting.orderId)?.remaining).toBe(2000n);

    const partial = await accepted(await taker.adapter.submit(placeCommand(h, 'buy', '3', '12.40', { pair })));
    expect(typesOf(partial.events)).toEqual(['OrderReceived', 'Trade', 'OrderResting']);
    expect([only(partial.events, 'Trade').quantity, only(partial.events, 'OrderResting').quantity]).toEqual([
      2000n,
      1000n,
    ]);
    // The maker's order is gone: filled in full by the two takers.
    expect(d.book.book.sells.some((s) => s.id === resting.orderId)).toBe(false);
    await Promise.all([maker.adapter.close(), taker.adapter.close()]);
  });

  it('cancels a resting order: accepted with the order id and CancelOrder ByParticipant returning the base', async () => {
    const trader = wallet(h, { approve: BIG });
    const { adapter } = adapterFor(h, trader, { channelKeys: channels(h, 1) });
    const placed = await accepted(await adapter.submit(placeCommand(h, 'sell', '2', '15.00')));
    const cancelled = await accepted(await adapter.submit(cancelCommand(h, 'sell', placed.orderId as bigint)));
    expect(cancelled.orderId).toBe(placed.orderId);
    const e = only(cancelled.events, 'OrderCancelled');
    expect([e.orderId, e.quantity, e.price, e.cancellationType, e.token, e.toAddress]).toEqual([
      placed.orderId,
      2000n,
      150_000n,
      'ByParticipant',
      h.pair.baseToken,
      trader.publicKey(),
    ]);
    expect(h.d.book.book.sells.some((s) => s.id === placed.orderId)).toBe(false);
    await adapter.close();
  });

  it('gives outcome events the ids getEvents gives them, so the engine can match the two streams', async () => {
    const trader = wallet(h, { approve: BIG });
    const { adapter } = adapterFor(h, trader);
    const o = await accepted(await adapter.submit(placeCommand(h, 'buy', '1', '11.00')));
    const page = (await (
      await fetch(h.rpc.url, {
        method: 'POST',
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'getEvents',
          params: { startLedger: Number(o.height), filters: [{ type: 'contract', contractIds: [h.pair.orderBook] }] },
        }),
      })
    ).json()) as { result: { events: Array<{ id: string; txHash: string }> } };
    expect(o.events.map((e) => e.key)).toEqual(
      page.result.events.filter((e) => e.txHash === o.txHash).map((e) => e.id),
    );
    await adapter.close();
  });
});

describe('channel account set-up', () => {
  it('creates and funds the channel accounts from a funding account; the adapter then places through them', async () => {
    const funder = channels(h, 1)[0]!;
    const { accounts, txHashes } = await createChannelAccounts({
      rpcUrl: h.rpc.url,
      networkPassphrase: h.emu.passphrase,
      funder,
      count: 3,
      startingBalance: '25',
      clock: pacedClock(() => h.clock.now(), h.sleeper.sleep),
      pollIntervalMs: 1,
    });
    expect(txHashes).toHaveLength(1);
    expect(accounts.map((k) => h.emu.world.accounts.get(k.publicKey())?.balance)).toEqual([
      250_000_000n,
      250_000_000n,
      250_000_000n,
    ]);
    const trader = wallet(h);
    const { adapter, store } = adapterFor(h, trader, { channelKeys: accounts });
    const sub = await adapter.submit(placeCommand(h, 'buy', '1', '11.50'));
    await accepted(sub);
    expect(accounts.map((k) => k.publicKey())).toContain(store.transactions.get(sub.txHash as string)?.source);
    await adapter.close();
  });
});
