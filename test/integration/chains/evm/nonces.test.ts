/**
 * The chain A adapter's nonces on a real node: many placements in flight in one block, resyncs after
 * transactions the bot did not send, replacement of a stuck transaction (fee bump, then a zero-value
 * self-transfer), the outcome deadline, and settlement after a restart from the journal. Blocks are mined by
 * the test (automine off) and the adapter's receipt polls run one per `tick`.
 */
import { Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { requestsDuring } from '../../../support/chains/json-rpc-requests.ts';
import { EvmAdapter } from '../../../../src/chains/evm/evm-adapter.ts';
import { httpTransport, rpcFailure } from '../../../../src/chains/evm/json-rpc.ts';
import type { Outcome, Submission } from '../../../../src/chains/types.ts';
import { openStore } from '../../../../src/store/store.ts';
import { thrown } from '../../../support/errors.ts';
import { metricValue } from '../../../support/venue/metric-value.ts';
import { ChainA, useChainA, type TestAdapter } from '../../../support/chains/evm/adapter-harness.ts';

let c: ChainA;
useChainA((chain) => (c = chain));

const POLL = 1000;
const GWEI = 1_000_000_000n;
const bigBudget = { approvals: { budgets: { 'tp-evm-bond-eure': { quote: 10n ** 12n, base: 10n ** 12n } } } };

function kindOf(o: Outcome, kind: Outcome['kind']): Outcome {
  if (o.kind !== kind)
    throw new Error(
      `expected ${kind}, got ${o.kind}: ${o.kind === 'rejected' ? o.error.message : o.kind === 'unknown' ? o.reason : ''}`,
    );
  return o;
}

/** Settles a promise while ticking the adapter's polls. */
async function tickFor<T>(t: TestAdapter, p: Promise<T>): Promise<T> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  try {
    await t.time.tickUntil(POLL, () => done);
  } catch (e) {
    throw new Error(`${(e as Error).message}; the adapter logged:\n${t.logs.map((l) => l.slice(0, 700)).join('')}`, {
      cause: e,
    });
  }
  return p;
}

const journal = (t: TestAdapter, nonce: bigint) =>
  t.store.transactions
    .atSequence('evm', t.adapter.wallet, nonce)
    .map((r) => `${r.kind}:${r.status}`)
    .toSorted();
const buys = () => c.h.read<bigint>('countBuyOrders');
const json = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));

/** Approves with automine on, then switches to blocks mined by the test. */
async function approvedThenManual(t: TestAdapter): Promise<void> {
  await (
    await t.adapter.ensureAllowance(c.pair, 'quote', 10n ** 10n)
  )?.outcome;
  await c.setAutomine(false);
}

describe('pipelining', () => {
  it('sends many placements (and the approve ahead of them) before any is mined, and all land in one block in order', async () => {
    const t = c.adapter('mm', bigBudget);
    await c.setAutomine(false);
    const submissions: Submission[] = [];
    for (let i = 0; i < 10; i++)
      submissions.push(await t.adapter.submit(c.place('buy', '1', String(90 + i * 0.5), BigInt(i + 1))));
    expect(await c.provider.send('eth_getTransactionCount', [t.adapter.wallet, 'pending'])).toBe('0xb');
    expect(t.adapter.inFlight).toBe(11);
    await c.mine();
    const { result: outcomes, requests } = await requestsDuring(() =>
      tickFor(t, Promise.all(submissions.map((s) => s.outcome))),
    );
    // The receipts of the nonces one poll finds mined leave together: eight to a batch.
    const receipts = requests.map((r) => r.filter((m) => m === 'eth_getTransactionReceipt').length);
    expect(receipts.filter((n) => n > 0)).toEqual([8, 3]);
    const placed = outcomes.map((o) => kindOf(o, 'accepted') as Extract<Outcome, { kind: 'accepted' }>);
    expect(new Set(placed.map((o) => o.height)).size).toBe(1);
    expect(placed.map((o) => o.orderId)).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 10n]);
    expect(journal(t, 0n)).toEqual(['approve:included']);
    expect(journal(t, 10n)).toEqual(['place:included']);
  });

  it("sends each transaction in one request with the receipt poll the previous one's answer woke", async () => {
    const t = c.adapter('mm', bigBudget);
    await approvedThenManual(t);
    const submissions: Submission[] = [];
    const { requests } = await requestsDuring(async () => {
      for (let i = 0; i < 4; i++)
        submissions.push(await t.adapter.submit(c.place('buy', '1', String(90 + i), BigInt(i + 1))));
    });
    const sends = requests.filter((r) => r.includes('eth_sendRawTransaction'));
    expect(sends).toHaveLength(4);
    // The first leaves alone; each later one with the poll its predecessor's answer woke (the mined nonce
    // count, and the head for the follower).
    const poll = ['eth_getTransactionCount', 'eth_blockNumber'];
    expect(sends.slice(1)).toEqual([1, 2, 3].map(() => [...poll, 'eth_sendRawTransaction']));
    expect(requests.filter((r) => r.includes('eth_getTransactionCount'))).toHaveLength(3);
    await c.mine();
    const outcomes = await tickFor(t, Promise.all(submissions.map((s) => s.outcome)));
    expect(outcomes.map((o) => o.kind)).toEqual(['accepted', 'accepted', 'accepted', 'accepted']);
  });
});

describe('transactions the bot did not send', () => {
  it('resyncs when another sender used the next nonce, and places the order exactly once', async () => {
    const t = c.adapter();
    kindOf(await (await t.adapter.submit(c.place('buy', '1', '99', 1n))).outcome, 'accepted');
    const external = await c.h.signer('mm').sendTransaction({ to: t.adapter.wallet, value: 0n });
    expect(external.nonce).toBe(2);
    const s = await t.adapter.submit(c.place('buy', '1', '98', 2n));
    kindOf(await s.outcome, 'accepted');
    expect(journal(t, 2n)).toEqual(['place:dropped']);
    expect(journal(t, 3n)).toEqual(['place:included']);
    expect(await buys()).toBe(2n);
    expect(await metricValue(t.metrics, 'dltmm_evm_nonce_resyncs_total', { reason: 'nonce_too_low' })).toBe(1);
  });

  it('resyncs when another sender holds the next nonce in the pool at a higher fee', async () => {
    const t = c.adapter();
    await approvedThenManual(t);
    const first = await t.adapter.submit(c.place('buy', '1', '99', 1n));
    await c.h.signer('mm').sendTransaction({
      to: t.adapter.wallet,
      value: 0n,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: 50n * GWEI,
    });
    const second = await t.adapter.submit(c.place('buy', '1', '98', 2n));
    expect(await metricValue(t.metrics, 'dltmm_evm_nonce_resyncs_total', { reason: 'underpriced' })).toBe(1);
    await c.mine();
    const outcomes = await tickFor(t, Promise.all([first.outcome, second.outcome]));
    expect(outcomes.map((o) => o.kind)).toEqual(['accepted', 'accepted']);
    expect(journal(t, 3n)).toEqual(['place:included']);
  });

  it('settles a nonce taken by another sender as never applied, and goes on with the next nonce', async () => {
    const t = c.adapter('mm', { receipts: { supersededAfterPolls: 1 } });
    await approvedThenManual(t);
    const ours = await t.adapter.submit(c.place('buy', '1', '99', 1n));
    await c.h.signer('mm').sendTransaction({
      to: t.adapter.wallet,
      value: 0n,
      nonce: 1,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: 50n * GWEI,
    });
    await c.mine();
    const o = kindOf(await tickFor(t, ours.outcome), 'rejected');
    expect(o).toMatchObject({
      included: false,
      error: { code: 'E_CHAIN_TX_EXPIRED', details: { reason: 'superseded', nonce: '1' } },
    });
    expect(await buys()).toBe(0n);
    await c.setAutomine(true);
    kindOf(await (await t.adapter.submit(c.place('buy', '1', '99', 2n))).outcome, 'accepted');
    expect(journal(t, 2n)).toEqual(['place:included']);
  });
});

describe('stuck transactions', () => {
  it('replaces a transaction not mined in time with higher fees at the same nonce; the outcome follows the mined hash', async () => {
    const t = c.adapter();
    await approvedThenManual(t);
    const s = await t.adapter.submit(c.place('buy', '1', '99', 1n));
    expect(await c.provider.send('hardhat_dropTransaction', [s.txHash])).toBe(true);
    t.time.advance(t.adapter.options.receipts.stuckAfterMs);
    await t.time.tick(POLL);
    expect(await metricValue(t.metrics, 'dltmm_evm_replacements_total', { reason: 'fee_bump' })).toBe(1);
    await c.mine();
    const o = kindOf(await tickFor(t, s.outcome), 'accepted') as Extract<Outcome, { kind: 'accepted' }>;
    expect(o.txHash).not.toBe(s.txHash);
    expect(o.orderId).toBe(1n);
    expect(t.store.transactions.get(s.txHash as string)).toMatchObject({ status: 'replaced', replacedBy: o.txHash });
    expect(journal(t, 1n)).toEqual(['place:replaced', 'replace:included']);
  });

  it('after the last fee bump, cancels the nonce with a zero-value self-transfer: the order never applied', async () => {
    const t = c.adapter('mm', { receipts: { maxReplacements: 0 } });
    await approvedThenManual(t);
    const s = await t.adapter.submit(c.place('buy', '1', '99', 1n));
    t.time.advance(t.adapter.options.receipts.stuckAfterMs);
    await t.time.tick(POLL);
    await c.mine();
    const o = kindOf(await tickFor(t, s.outcome), 'rejected');
    expect(o).toMatchObject({
      included: false,
      error: { code: 'E_CHAIN_TX_EXPIRED', details: { reason: 'cancelled', nonce: '1' } },
    });
    expect(journal(t, 1n)).toEqual(['noop:included', 'place:replaced']);
    expect(await buys()).toBe(0n);
  });

  it('reports unknown at the outcome deadline and settles later from the chain', async () => {
    const t = c.adapter('mm', { receipts: { outcomeTimeoutMs: 5000, stuckAfterMs: 600_000 } });
    await approvedThenManual(t);
    const s = await t.adapter.submit(c.place('buy', '1', '99', 1n));
    const o = await tickFor(t, s.outcome);
    expect(o).toMatchObject({ kind: 'unknown', txHash: s.txHash });
    await c.mine();
    kindOf(await tickFor(t, t.adapter.settle(s.txHash as string, c.pair)), 'accepted');
  });
});

describe('restart', () => {
  it('settles a placement mined while the bot was down from the journal', async () => {
    const a = c.adapter();
    await approvedThenManual(a);
    const s = await a.adapter.submit(c.place('buy', '1', '99', 1n));
    await a.adapter.close();
    expect((await s.outcome).kind).toBe('unknown');
    await c.mine();
    const b = c.adapter('mm', {}, a);
    const o = kindOf(await tickFor(b, b.adapter.settle(s.txHash as string, c.pair)), 'accepted') as Extract<
      Outcome,
      { kind: 'accepted' }
    >;
    expect(o.orderId).toBe(1n);
    expect(o.events.map((e) => e.type)).toEqual(['OrderReceived', 'OrderResting']);
    expect(b.store.transactions.get(s.txHash as string)?.status).toBe('included');
  });

  it('cancels a placement still in flight after a restart instead of reviving it', async () => {
    const a = c.adapter();
    await approvedThenManual(a);
    const s = await a.adapter.submit(c.place('buy', '1', '99', 1n));
    await a.adapter.close();
    const b = c.adapter('mm', {}, a);
    const settled = b.adapter.settle(s.txHash as string, c.pair);
    // The first receipt poll (which sends the cancel) has run once the poll loop waits.
    await b.time.parked();
    await c.mine();
    const o = kindOf(await tickFor(b, settled), 'rejected');
    expect(o).toMatchObject({
      included: false,
      error: { code: 'E_CHAIN_TX_EXPIRED', details: { reason: 'cancelled' } },
    });
    expect(await buys()).toBe(0n);
  });

  it('never hands out a journaled nonce whose broadcast may have failed, and fills it before going on', async () => {
    const real = httpTransport(c.h.node.rpcUrl, { timeoutMs: 10_000 });
    let broken = false;
    const a = c.adapter('mm', {
      transport: (method, params) =>
        broken && method === 'eth_sendRawTransaction'
          ? Promise.reject(rpcFailure(method, 'transport', 'connection reset'))
          : real(method, params),
    });
    await (
      await a.adapter.ensureAllowance(c.pair, 'quote', 10n ** 10n)
    )?.outcome;
    broken = true;
    const lost = await a.adapter.submit(c.place('buy', '1', '99', 1n));
    await a.adapter.close();
    broken = false;
    expect(a.store.transactions.get(lost.txHash as string)?.status).toBe('signed');
    const b = c.adapter('mm', {}, a);
    const next = await b.adapter.submit(c.place('buy', '1', '98', 2n));
    kindOf(await tickFor(b, next.outcome), 'accepted');
    expect(journal(b, 2n)).toEqual(['place:included']);
    // Settled already (automine): the journal and the receipts answer without a poll.
    kindOf(await b.adapter.settle(lost.txHash as string, c.pair), 'rejected');
    expect(journal(b, 1n)).toEqual(['noop:included', 'place:replaced']);
    expect(await buys()).toBe(1n);
  });
});

describe('secrets', () => {
  it('keeps the private key out of logs, errors and serialisation', async () => {
    const t = c.adapter('nobuy', { simulation: 'never' });
    const o = await (await t.adapter.submit(c.place('buy', '1', '99', 1n))).outcome;
    const key = t.privateKey.slice(2).toLowerCase();
    expect(o.kind).toBe('rejected');
    const text = [...t.logs, json(t.adapter), json(o)].join('\n').toLowerCase();
    expect(text).toContain(t.adapter.wallet.slice(2).toLowerCase());
    expect(text).not.toContain(key);
    const bad = `0x${'7a'.repeat(31)}`;
    const store = openStore(':memory:');
    try {
      const e = thrown(
        () =>
          new EvmAdapter({ rpcUrl: c.h.node.rpcUrl, chainId: 80002n, privateKey: bad, journal: store.transactions }),
      );
      expect(e.code).toBe('E_CONFIG_INVALID');
      expect(`${e.message} ${JSON.stringify(e.toJSON())} ${e.stack}`).not.toContain('7a7a7a7a');
    } finally {
      store.close();
    }
    expect(new Wallet(t.privateKey).address).toBe(t.adapter.wallet);
  });
});
