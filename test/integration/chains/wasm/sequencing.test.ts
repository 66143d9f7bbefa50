/**
 * Sequence numbers and fates: TRY_AGAIN_LATER (rebuilt on the current sequence number after a pause), a
 * sequence number moved by a transaction sent from the same source outside the adapter (txBAD_SEQ, reloaded),
 * a transaction that expired in the queue (known never to have applied; its sequence number reused), and
 * outcomes left open by a stop or an unreachable node, settled later from the journal and the chain.
 */
import { Account, Asset, Keypair, Operation, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { httpTransport, rpcFailure, type RpcTransport } from '../../../../src/chains/wasm/json-rpc.ts';
import { openStore } from '../../../../src/store/store.ts';
import { metricValue } from '../../../support/venue/metric-value.ts';
import {
  accepted,
  adapterFor,
  approveAhead,
  channels,
  placeCommand,
  rejected,
  fileHarness,
  wallet,
} from '../../../support/chains/wasm/harness.ts';
import { pacedClock } from '../../../support/clock.ts';

const h = fileHarness();

/** A native payment from `source`, sent straight to the node, outside any adapter. */
async function sendExternal(source: Keypair, sequence: bigint): Promise<string> {
  const tx: Transaction = new TransactionBuilder(new Account(source.publicKey(), sequence.toString()), {
    fee: '100',
    networkPassphrase: h.emu.passphrase,
  })
    .addOperation(
      Operation.payment({ destination: h.venue.operator.publicKey(), asset: Asset.native(), amount: '0.0000001' }),
    )
    .setTimebounds(0, Math.floor(h.clock.now() / 1000) + 300)
    .build();
  tx.sign(source);
  const sent = h.emu.submit(tx.toXDR());
  if (sent.status !== 'PENDING') throw new Error(`external send: ${sent.status}`);
  return sent.hash;
}

const seqOf = (g: string): bigint => h.emu.world.accounts.get(g)?.seqNum ?? -1n;

function journalOf(
  store: ReturnType<typeof openStore>,
  clientOrderId: bigint,
): Array<{ status: string; sequence: string }> {
  return store.db
    .prepare('SELECT status, sequence FROM transactions WHERE client_order_id = ? ORDER BY created_ms, rowid')
    .all(clientOrderId.toString())
    .map((r) => ({
      status: String((r as { status: string }).status),
      sequence: String((r as { sequence: string }).sequence),
    }));
}

function transportWith(fail: (method: string) => boolean): RpcTransport {
  const base = httpTransport(h.rpc.url, { timeoutMs: 5000 });
  return (method, params) =>
    fail(method) ? Promise.reject(rpcFailure(method, 'transport', 'connection reset by peer')) : base(method, params);
}

describe('sequence numbers', () => {
  it('TRY_AGAIN_LATER: waits, rebuilds on the current sequence number and gets the order in', async () => {
    const trader = wallet(h);
    const built = adapterFor(h, trader);
    await approveAhead(built.adapter, h.pair);
    // Another transaction of the same source is pending: the node takes one per source.
    const external = await sendExternal(trader, seqOf(trader.publicKey()));
    const cmd = placeCommand(h, 'buy', '1', '12.00');
    const o = await accepted(await built.adapter.submit(cmd));
    expect(h.emu.transaction(external)?.success).toBe(true);
    const attempts = journalOf(built.store, cmd.clientOrderId);
    expect(attempts.map((a) => a.status)).toEqual(['dropped', 'included']);
    expect(BigInt(attempts[1]!.sequence)).toBe(BigInt(attempts[0]!.sequence) + 1n);
    expect(await metricValue(built.metrics, 'dltmm_wasm_try_again_later_total')).toBe(1);
    expect(await metricValue(built.metrics, 'dltmm_wasm_sequence_resyncs_total', { reason: 'try_again_later' })).toBe(
      1,
    );
    expect(o.orderId).not.toBeNull();
    await built.adapter.close();
  });

  it('txBAD_SEQ after a transaction sent from the same channel outside the adapter: reloads and resends', async () => {
    const [channel] = channels(h, 1);
    const built = adapterFor(h, wallet(h), { channelKeys: [channel!] });
    await approveAhead(built.adapter, h.pair);
    // The adapter knows the channel's sequence number; someone else uses the next one.
    await sendExternal(channel!, seqOf(channel!.publicKey()));
    h.ledger();
    const cmd = placeCommand(h, 'buy', '1', '12.00');
    await accepted(await built.adapter.submit(cmd));
    expect(journalOf(built.store, cmd.clientOrderId).map((a) => a.status)).toEqual(['dropped', 'included']);
    expect(await metricValue(built.metrics, 'dltmm_wasm_sequence_resyncs_total', { reason: 'bad_seq' })).toBe(1);
    await built.adapter.close();
  });
});

describe('expiry', () => {
  it('a transaction whose time bound passed in the queue is rejected as never applied, and its sequence number is reused', async () => {
    const [channel] = channels(h, 1);
    const built = adapterFor(h, wallet(h), { channelKeys: [channel!], txTimeoutSeconds: 30 });
    await approveAhead(built.adapter, h.pair);
    h.sleeper.hold();
    const sub = await built.adapter.submit(placeCommand(h, 'buy', '1', '12.00'));
    const expiredSeq = built.store.transactions.get(sub.txHash as string)?.sequence;
    h.clock.advance(60 * 1000);
    h.sleeper.open();
    const o = await rejected(sub);
    expect([o.included, o.error.code]).toEqual([false, 'E_CHAIN_TX_EXPIRED']);
    expect(built.store.transactions.get(sub.txHash as string)?.status).toBe('dropped');
    expect(seqOf(channel!.publicKey())).toBe((expiredSeq as bigint) - 1n);
    const next = await built.adapter.submit(placeCommand(h, 'buy', '1', '12.00'));
    await accepted(next);
    expect(built.store.transactions.get(next.txHash as string)?.sequence).toBe(expiredSeq);
    await built.adapter.close();
  });
});

describe('a clock behind the network', () => {
  it('a transaction the node finds too late (txTOO_LATE) is rejected as expired, never applied', async () => {
    const trader = wallet(h);
    const store = openStore(':memory:', () => h.clock.now());
    const setup = adapterFor(h, trader, { store });
    await approveAhead(setup.adapter, h.pair);
    await setup.adapter.close();
    const behind = adapterFor(h, trader, {
      store,
      clock: pacedClock(() => h.clock.now() - 60_000, h.sleeper.sleep),
      txTimeoutSeconds: 30,
    });
    const sub = await behind.adapter.submit(placeCommand(h, 'buy', '1', '12.00'));
    const o = await rejected(sub);
    expect([o.included, o.error.code, sub.txHash === null]).toEqual([false, 'E_CHAIN_TX_EXPIRED', false]);
    expect(store.transactions.get(sub.txHash as string)?.status).toBe('dropped');
    await behind.adapter.close();
  });
});

describe('settling unknown outcomes', () => {
  it('after a stop: a new adapter on the same store settles the sent transaction from the chain', async () => {
    const trader = wallet(h);
    const store = openStore(':memory:', () => h.clock.now());
    const first = adapterFor(h, trader, { store, channelKeys: channels(h, 1) });
    await approveAhead(first.adapter, h.pair);
    h.sleeper.hold();
    const sub = await first.adapter.submit(placeCommand(h, 'buy', '1', '12.00'));
    await first.adapter.close();
    expect((await sub.outcome).kind).toBe('unknown');
    h.sleeper.open();
    const second = adapterFor(h, trader, { store });
    const o = await second.adapter.settle(sub.txHash as string, h.pair);
    expect(o).toMatchObject({ kind: 'accepted', txHash: sub.txHash, orderId: h.d.book.book.buys.at(-1)?.id });
    expect(store.transactions.get(sub.txHash as string)?.status).toBe('included');
    // A hash neither the node nor the journal knows stays unknown: nothing is guessed.
    expect((await second.adapter.settle('ab'.repeat(32), h.pair)).kind).toBe('unknown');
    await second.adapter.close();
  });

  it('when the node never got it: settle sends the journalled envelope again, byte for byte', async () => {
    const trader = wallet(h);
    const store = openStore(':memory:', () => h.clock.now());
    const setup = adapterFor(h, trader, { store });
    await approveAhead(setup.adapter, h.pair);
    await setup.adapter.close();
    const lossy = adapterFor(h, trader, {
      store,
      channelKeys: channels(h, 1),
      transport: transportWith((m) => m === 'sendTransaction'),
    });
    h.sleeper.hold();
    const sub = await lossy.adapter.submit(placeCommand(h, 'buy', '1', '12.00'));
    const hash = sub.txHash as string;
    await lossy.adapter.close();
    expect([h.emu.isPending(hash), store.transactions.get(hash)?.status]).toEqual([false, 'sent']);
    h.sleeper.open();
    const restarted = adapterFor(h, trader, { store });
    const o = await restarted.adapter.settle(hash, h.pair);
    expect(o.kind).toBe('accepted');
    expect(h.emu.transaction(hash)?.envelopeB64).toBe(store.transactions.get(hash)?.raw);
    await restarted.adapter.close();
  });

  it('a node that cannot be asked past the time bound leaves the outcome unknown, never guessed; settle finds it later', async () => {
    const trader = wallet(h);
    const store = openStore(':memory:', () => h.clock.now());
    const setup = adapterFor(h, trader, { store });
    await approveAhead(setup.adapter, h.pair);
    await setup.adapter.close();
    const blind = adapterFor(h, trader, {
      store,
      txTimeoutSeconds: 30,
      outcomeGraceMs: 20_000,
      transport: transportWith((m) => m === 'getTransaction'),
    });
    const sub = await blind.adapter.submit(placeCommand(h, 'buy', '1', '12.00'));
    const o = await sub.outcome;
    expect(o.kind).toBe('unknown');
    expect(h.emu.transaction(sub.txHash as string)?.success).toBe(true);
    await blind.adapter.close();
    const later = adapterFor(h, trader, { store });
    expect((await later.adapter.settle(sub.txHash as string, h.pair)).kind).toBe('accepted');
    await later.adapter.close();
  });
});
