/** Transaction admission and application as the network does them, driven through `@stellar/stellar-sdk` only. */
import { authorizeEntry, Keypair, Operation, rpc, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { setPhase } from '../../../../src/sandbox/wasm/operator.ts';
import {
  account,
  build,
  hashOf,
  orderArgs,
  sorobanDataOf,
  fileHarness,
  wallet,
} from '../../../support/sandbox/wasm/harness.ts';

const h = fileHarness();

const buyArgs = (user: string, quantity = 1000n, price = 123_400n) => orderArgs(user, { quantity, price });

const placeBuy = (source: Keypair, user: string) =>
  build(h, source, h.pair.book.address, 'new_buy_order', buyArgs(user));

/** Simulates, lets `user` sign its address-credential entries, assembles: the custodial / channel-account flow. */
async function assembleWithUserAuth(raw: Awaited<ReturnType<typeof placeBuy>>, user: Keypair, signer = user) {
  const sim = await h.server.simulateTransaction(raw);
  if (!rpc.Api.isSimulationSuccess(sim) || sim.result === undefined) throw new Error('simulation failed');
  const validUntil = h.emu.latest.seq + 10;
  sim.result.auth = await Promise.all(
    sim.result.auth.map((e) => authorizeEntry(e, signer, validUntil, h.emu.passphrase)),
  );
  return { sim, tx: rpc.assembleTransaction(raw, sim).build() };
}

const resultType = (r: rpc.Api.SendTransactionResponse) => r.errorResult?.result.type;

describe('authorization', () => {
  it('a channel account places an order on behalf of user with an address-credential entry signed by user', async () => {
    const user = wallet(h, h.pair);
    const channel = account(h);
    const raw = await placeBuy(channel, user.publicKey());
    const { sim, tx } = await assembleWithUserAuth(raw, user);
    expect(sim.result?.auth[0]?.credentials.type).toBe('sorobanCredentialsAddress');
    tx.sign(channel);
    const sent = await h.server.sendTransaction(tx);
    expect(sent.status).toBe('PENDING');
    h.emu.closeLedger();
    const res = await h.server.getTransaction(sent.hash);
    expect(res.status).toBe('SUCCESS');
    expect(h.pair.book.book.buys.some((o) => o.wallet === user.publicKey())).toBe(true);
    // The channel paid the fee and spent its sequence number; the user's account did neither.
    expect((await h.server.getAccount(channel.publicKey())).sequenceNumber()).toBe(tx.sequence);
  });

  it('an entry signed by another key fails the transaction with Error(Auth, InvalidAction)', async () => {
    const user = wallet(h, h.pair);
    const channel = account(h);
    const { tx } = await assembleWithUserAuth(await placeBuy(channel, user.publicKey()), user, Keypair.random());
    tx.sign(channel);
    const sent = await h.server.sendTransaction(tx);
    h.emu.closeLedger();
    const res = await h.server.getTransaction(sent.hash);
    expect(res.status).toBe('FAILED');
    const topic = res.status === 'FAILED' ? res.diagnosticEventsXdr?.[0]?.event.body.v0.topics[1] : undefined;
    expect(
      topic?.type === 'scvError'
        ? [topic.error.type, topic.error.type === 'sceContract' ? null : topic.error.code.name]
        : null,
    ).toEqual(['sceAuth', 'scecInvalidAction']);
    expect(h.pair.book.book.buys.some((o) => o.wallet === user.publicKey())).toBe(false);
  });

  it('an entry whose nonce was used once cannot be replayed', async () => {
    const user = wallet(h, h.pair);
    const channel = account(h);
    const { tx } = await assembleWithUserAuth(await placeBuy(channel, user.publicKey()), user);
    tx.sign(channel);
    await h.server.sendTransaction(tx);
    h.emu.closeLedger();
    // The same signed entry in a new transaction of the same channel.
    const op = tx.operations[0] as { func: xdr.HostFunction; auth?: xdr.SorobanAuthorizationEntry[] };
    const second = new TransactionBuilder(await h.server.getAccount(channel.publicKey()), {
      fee: tx.fee,
      networkPassphrase: h.emu.passphrase,
      sorobanData: sorobanDataOf(tx),
    })
      .addOperation(Operation.invokeHostFunction({ func: op.func, auth: op.auth ?? [] }))
      .setTimeout(300)
      .build();
    second.sign(channel);
    const sent = await h.server.sendTransaction(second);
    expect(sent.status).toBe('PENDING');
    h.emu.closeLedger();
    expect((await h.server.getTransaction(sent.hash)).status).toBe('FAILED');
  });
});

describe('admission', () => {
  it('refuses a signature by the wrong key with txBAD_AUTH and changes nothing', async () => {
    const kp = wallet(h, h.pair);
    const tx = await h.server.prepareTransaction(await placeBuy(kp, kp.publicKey()));
    tx.sign(Keypair.random());
    const sent = await h.server.sendTransaction(tx);
    expect([sent.status, resultType(sent)]).toEqual(['ERROR', 'txBadAuth']);
    expect((await h.server.getAccount(kp.publicKey())).sequenceNumber()).toBe((BigInt(tx.sequence) - 1n).toString());
  });

  it('refuses a transaction signed for another network passphrase (the hash differs): txBAD_AUTH', async () => {
    const kp = wallet(h, h.pair);
    const prepared = await h.server.prepareTransaction(await placeBuy(kp, kp.publicKey()));
    const foreign = TransactionBuilder.fromXDR(prepared.toXDR(), 'Test SDF Network ; September 2015');
    foreign.sign(kp);
    const sent = await h.server.sendTransaction(foreign);
    expect([sent.status, resultType(sent)]).toEqual(['ERROR', 'txBadAuth']);
  });

  it('refuses a stale sequence number with txBAD_SEQ', async () => {
    const kp = wallet(h, h.pair);
    const first = await h.server.prepareTransaction(await placeBuy(kp, kp.publicKey()));
    const stale = await h.server.prepareTransaction(await placeBuy(kp, kp.publicKey()));
    first.sign(kp);
    stale.sign(kp);
    expect((await h.server.sendTransaction(first)).status).toBe('PENDING');
    h.emu.closeLedger();
    const sent = await h.server.sendTransaction(stale);
    expect([sent.status, resultType(sent)]).toEqual(['ERROR', 'txBadSeq']);
  });

  it('answers TRY_AGAIN_LATER to a second pending transaction of the same source, DUPLICATE to a resend', async () => {
    const kp = wallet(h, h.pair);
    const first = await h.server.prepareTransaction(await placeBuy(kp, kp.publicKey()));
    first.sign(kp);
    expect((await h.server.sendTransaction(first)).status).toBe('PENDING');
    expect((await h.server.sendTransaction(first)).status).toBe('DUPLICATE');
    const second = await h.server.prepareTransaction(
      await build(h, kp, h.pair.book.address, 'new_buy_order', buyArgs(kp.publicKey(), 1000n, 123_600n)),
    );
    second.sign(kp);
    expect((await h.server.sendTransaction(second)).status).toBe('TRY_AGAIN_LATER');
    h.emu.closeLedger();
    // Rebuilt against the current sequence number, it goes through.
    const rebuilt = await h.server.prepareTransaction(await placeBuy(kp, kp.publicKey()));
    rebuilt.sign(kp);
    expect((await h.server.sendTransaction(rebuilt)).status).toBe('PENDING');
    h.emu.closeLedger();
  });

  it('refuses a fee below inclusion plus resource fee with txINSUFFICIENT_FEE', async () => {
    const kp = wallet(h, h.pair);
    const prepared = await h.server.prepareTransaction(await placeBuy(kp, kp.publicKey()));
    const cheap = TransactionBuilder.cloneFrom(prepared, {
      fee: '50',
      networkPassphrase: h.emu.passphrase,
      sorobanData: sorobanDataOf(prepared),
    }).build();
    cheap.sign(kp);
    const sent = await h.server.sendTransaction(cheap);
    expect([sent.status, resultType(sent)]).toEqual(['ERROR', 'txInsufficientFee']);
  });
});

describe('time bounds', () => {
  it('refuses a transaction whose upper time bound has passed: txTOO_LATE', async () => {
    const kp = wallet(h, h.pair);
    const tx = await h.server.prepareTransaction(
      await build(h, kp, h.pair.book.address, 'new_buy_order', buyArgs(kp.publicKey()), 30),
    );
    tx.sign(kp);
    h.clock.advance(60 * 1000);
    const sent = await h.server.sendTransaction(tx);
    expect([sent.status, resultType(sent)]).toEqual(['ERROR', 'txTooLate']);
  });

  it('never applies a queued transaction that expires before its ledger closes; getTransaction keeps saying NOT_FOUND', async () => {
    const kp = wallet(h, h.pair);
    const seq = (await h.server.getAccount(kp.publicKey())).sequenceNumber();
    const tx = await h.server.prepareTransaction(
      await build(h, kp, h.pair.book.address, 'new_buy_order', buyArgs(kp.publicKey()), 30),
    );
    tx.sign(kp);
    expect((await h.server.sendTransaction(tx)).status).toBe('PENDING');
    h.clock.advance(60 * 1000);
    const closed = h.emu.closeLedger();
    expect(closed.dropped).toContain(hashOf(tx));
    h.emu.closeLedger();
    expect((await h.server.getTransaction(hashOf(tx))).status).toBe('NOT_FOUND');
    expect((await h.server.getAccount(kp.publicKey())).sequenceNumber()).toBe(seq);
    // The source is free again.
    const again = await h.server.prepareTransaction(await placeBuy(kp, kp.publicKey()));
    again.sign(kp);
    expect((await h.server.sendTransaction(again)).status).toBe('PENDING');
    h.emu.closeLedger();
  });
});

describe('a failed call', () => {
  it('still charges the fee and consumes the sequence number, and reports the contract error', async () => {
    const kp = wallet(h, h.pair);
    const tx = await h.server.prepareTransaction(await placeBuy(kp, kp.publicKey()));
    tx.sign(kp);
    const before = h.emu.world.accounts.get(kp.publicKey())?.balance ?? 0n;
    await h.server.sendTransaction(tx);
    // Between simulation and inclusion the book closes.
    setPhase(h.emu, h.venue, h.pair, 'closed');
    h.emu.closeLedger();
    setPhase(h.emu, h.venue, h.pair, 'open');
    const res = await h.server.getTransaction(hashOf(tx));
    expect(res.status).toBe('FAILED');
    const topic = res.status === 'FAILED' ? res.diagnosticEventsXdr?.[0]?.event.body.v0.topics[1] : undefined;
    expect(topic?.type === 'scvError' && topic.error.type === 'sceContract' ? topic.error.contractCode : null).toBe(
      1001,
    );
    expect((await h.server.getAccount(kp.publicKey())).sequenceNumber()).toBe(tx.sequence);
    expect(before - (h.emu.world.accounts.get(kp.publicKey())?.balance ?? 0n)).toBe(BigInt(tx.fee));
  });
});
