/**
 * The chain A adapter against the sandbox venue on a real node (automine): reads, approvals ahead of orders,
 * placement with rest, partial and full fill, cancellation, and each way a command can be turned down: before
 * signing, by simulation, by the node, reverted on chain (decoded from a replay), or rejected by matching.
 */
import { describe, expect, it } from 'vitest';
import { requestsDuring } from '../../../support/chains/json-rpc-requests.ts';
import { ChainA, useChainA } from '../../../support/chains/evm/adapter-harness.ts';
import { prefundedBuyLock } from '../../../../src/core/money.ts';
import { pairScales } from '../../../../src/core/pair.ts';
import { DltError } from '../../../../src/core/errors.ts';
import type { ChainEvent, Outcome, PairBinding, Submission } from '../../../../src/chains/types.ts';
import { metricValue } from '../../../support/venue/metric-value.ts';

let c: ChainA;
useChainA((chain) => (c = chain));

const types = (events: readonly ChainEvent[]) => events.map((e) => e.type);

function accepted(o: Outcome): Extract<Outcome, { kind: 'accepted' }> {
  if (o.kind !== 'accepted')
    throw new Error(
      `expected accepted, got ${JSON.stringify(o, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`,
    );
  return o;
}

function rejected(o: Outcome): Extract<Outcome, { kind: 'rejected' }> {
  if (o.kind !== 'rejected') throw new Error(`expected rejected, got ${o.kind}`);
  return o;
}

const outcomeOf = async (s: Promise<Submission>) => (await s).outcome;
const buys = () => c.h.read<bigint>('countBuyOrders');
const journalKinds = (t: ReturnType<ChainA['adapter']>) =>
  [0n, 1n, 2n, 3n, 4n]
    .flatMap((n) =>
      t.store.transactions.atSequence('evm', t.adapter.wallet, n).map((r) => `${n}:${r.kind}:${r.status}`),
    )
    .toSorted();

describe('reads', () => {
  it('reads the order book configuration, phase, balances and allowance from the chain', async () => {
    const { adapter } = c.adapter();
    const state = await adapter.readPairState(c.pair);
    expect(state).toEqual({
      phase: 1,
      open: true,
      scales: pairScales(c.h.pair.pair),
      makerBps: 10,
      takerBps: 20,
      marketMakerBps: 5,
      prefunded: true,
    });
    const balances = await adapter.readBalances(c.pair);
    expect([balances.base, balances.quote]).toEqual([1000n * 10n ** 8n, 1_000_000n * 10n ** 6n]);
    expect(balances.native).toBeGreaterThan(0n);
    expect(await adapter.readAllowance(c.pair, 'quote')).toEqual({ amount: 0n, expiresAtLedger: null });
  });

  it("reads the wallet's balances of every token and its native balance in one JSON-RPC batch the node answers", async () => {
    const { adapter } = c.adapter();
    const { result: wallet, requests } = await requestsDuring(() =>
      adapter.readWalletBalances([c.pair.baseToken, c.pair.quoteToken]),
    );
    expect(requests).toEqual([['eth_getBalance', 'eth_call', 'eth_call']]);
    const pair = await adapter.readBalances(c.pair);
    expect([...wallet.tokens.values(), wallet.native]).toEqual([pair.base, pair.quote, pair.native]);
  });

  it('reads the state of the books asked at the same moment (the phase poll) in one JSON-RPC batch', async () => {
    const { adapter } = c.adapter();
    const { result: states, requests } = await requestsDuring(() =>
      Promise.all([adapter.readPairState(c.pair), adapter.readPairState(c.pair)]),
    );
    expect(requests).toEqual([['eth_call', 'eth_call', 'eth_call', 'eth_call']]);
    expect(states[1]).toEqual(states[0]);
    expect(states[0]).toMatchObject({ phase: 1, open: true });
  });

  it("checks the pairs' whitelist records asked at the same moment (at start) in one JSON-RPC batch each", async () => {
    const { adapter } = c.adapter();
    await adapter.readPairState(c.pair);
    const { requests } = await requestsDuring(() =>
      Promise.all([adapter.ensureReady(c.pair), adapter.ensureReady(c.pair), adapter.ensureReady(c.pair)]),
    );
    expect(requests).toEqual([
      ['eth_call', 'eth_call', 'eth_call'],
      ['eth_getBalance', 'eth_getBalance', 'eth_getBalance'],
    ]);
  });

  it('reports a closed phase as not open', async () => {
    await c.h.call('operator', 'setPhase', [2]);
    expect(await c.adapter().adapter.readPairState(c.pair)).toMatchObject({ phase: 2, open: false });
  });

  it('names the function and contract when an address is not an order book, and refuses a pair whose tokens differ', async () => {
    const { adapter } = c.adapter();
    const notABook: PairBinding = { ...c.pair, orderBook: c.pair.quoteToken };
    await expect(adapter.readPairState(notABook)).rejects.toMatchObject({
      code: 'E_CHAIN_RPC',
      message: expect.stringMatching(new RegExp(`(getConfig|getOrderBookPhase) of ${c.pair.quoteToken} failed`)),
    });
    const swapped: PairBinding = { ...c.pair, baseToken: c.pair.quoteToken, quoteToken: c.pair.baseToken };
    await expect(adapter.readPairState(swapped)).rejects.toMatchObject({ code: 'E_PAIR_INVALID' });
  });

  it('checks the whitelist: a whitelisted wallet is ready, others get the missing permission', async () => {
    await expect(c.adapter('mm').adapter.ensureReady(c.pair)).resolves.toBeUndefined();
    await expect(c.adapter('nobuy').adapter.ensureReady(c.pair)).rejects.toMatchObject({
      code: 'E_VENUE_NOT_ALLOWED_TO_BUY',
    });
    await expect(c.adapter('outsider').adapter.ensureReady(c.pair)).rejects.toMatchObject({
      code: 'E_VENUE_CLIENT_NOT_FOUND',
    });
  });
});

describe('approvals', () => {
  it('tops the allowance up to the need plus a bounded budget, and only when the budget does not cover it', async () => {
    const t = c.adapter();
    const first = await t.adapter.ensureAllowance(c.pair, 'quote', 1_000_000n);
    expect(accepted(await (first as Submission).outcome).txHash).toBe(first?.txHash);
    expect((await t.adapter.readAllowance(c.pair, 'quote')).amount).toBe(4_000_000n);
    expect(await t.adapter.ensureAllowance(c.pair, 'quote', 3_000_000n)).toBeNull();
    expect(t.store.state.approval('evm', t.adapter.wallet, c.pair.quoteToken, c.pair.orderBook)?.amount).toBe(
      4_000_000n,
    );
  });

  it('approves a configured budget, or unlimited only when configured so', async () => {
    const budgeted = c.adapter('mm', { approvals: { budgets: { [c.pair.pairId]: { base: 5n } } } });
    await (
      await budgeted.adapter.ensureAllowance(c.pair, 'base', 100n)
    )?.outcome;
    expect((await budgeted.adapter.readAllowance(c.pair, 'base')).amount).toBe(105n);
    const unlimited = c.adapter('taker', { approvals: { unlimited: true } });
    expect(await unlimited.adapter.ensureAllowance(c.pair, 'quote', 0n)).toBeNull();
    await (
      await unlimited.adapter.ensureAllowance(c.pair, 'base', 10n ** 30n)
    )?.outcome;
    expect((await unlimited.adapter.readAllowance(c.pair, 'base')).amount).toBe(2n ** 256n - 1n);
  });
});

describe('placing and cancelling', () => {
  it('places a resting buy behind an approve sent ahead of it, and the next buy spends the budget without a new approve', async () => {
    const t = c.adapter();
    const order = c.place('buy', '1', '99', 7n);
    const o = accepted(await outcomeOf(t.adapter.submit(order)));
    expect(o.orderId).toBe(1n);
    expect(types(o.events)).toEqual(['OrderReceived', 'OrderResting']);
    expect(o.events[0]).toMatchObject({
      type: 'OrderReceived',
      client: t.adapter.wallet,
      side: 'buy',
      quantity: 10_000n,
      price: 990_000n,
      crossIdentifier: 7n,
    });
    expect(o.events[0]?.key).toBe(`${o.txHash}:0`);
    const lock = prefundedBuyLock(990_000n, 10_000n, c.pair.rules.scales, 10);
    expect((await t.adapter.readAllowance(c.pair, 'quote')).amount).toBe(4n * order.approval.amount - lock);

    const second = accepted(await outcomeOf(t.adapter.submit(c.place('buy', '1', '98.5', 8n))));
    expect(second.orderId).toBe(2n);
    expect(journalKinds(t)).toEqual(['0:approve:included', '1:place:included', '2:place:included']);
  });

  it('a sell that crosses part of a resting buy trades that part and rests the rest', async () => {
    await c.h.place('taker', 'buy', 10_000n, 1_000_000n);
    const o = accepted(await outcomeOf(c.adapter().adapter.submit(c.place('sell', '2', '100', 1n))));
    expect(types(o.events)).toEqual(['OrderReceived', 'Trade', 'OrderResting']);
    expect(o.events[1]).toMatchObject({
      type: 'Trade',
      side: 'sell',
      quantity: 10_000n,
      price: 1_000_000n,
      orderId: 2n,
    });
    expect(o.events[2]).toMatchObject({ type: 'OrderResting', side: 'sell', quantity: 10_000n, orderId: 2n });
  });

  it('a buy that crosses a resting sell in full trades at once and rests nothing', async () => {
    await c.h.place('taker', 'sell', 10_000n, 1_010_000n);
    const o = accepted(await outcomeOf(c.adapter().adapter.submit(c.place('buy', '1', '101', 1n))));
    expect(types(o.events)).toEqual(['OrderReceived', 'Trade']);
    expect(await c.h.read<bigint>('countSellOrders')).toBe(0n);
  });

  it('cancels a resting order of the wallet', async () => {
    const { adapter } = c.adapter();
    const placed = accepted(await outcomeOf(adapter.submit(c.place('buy', '1', '99', 1n))));
    const allowance = (await adapter.readAllowance(c.pair, 'quote')).amount;
    const o = accepted(await outcomeOf(adapter.submit(c.cancel('buy', placed.orderId as bigint))));
    // The lock comes back to the wallet; the allowance it consumed does not (the specification's chain A rule).
    expect((await adapter.readAllowance(c.pair, 'quote')).amount).toBe(allowance);
    expect(o.orderId).toBe(placed.orderId);
    expect(o.events).toEqual([
      expect.objectContaining({
        type: 'OrderCancelled',
        cancellationType: 'ByParticipant',
        quantity: 10_000n,
        price: 990_000n,
        token: c.pair.quoteToken,
        toAddress: adapter.wallet,
      }),
    ]);
    expect(await buys()).toBe(0n);
  });
});

describe('cancelling an order already gone', () => {
  it('is refused unsigned by its simulation even while other transactions of the wallet are in flight', async () => {
    const t = c.adapter();
    const placed = accepted(await outcomeOf(t.adapter.submit(c.place('buy', '1', '99', 1n))));
    const orderId = placed.orderId as bigint;
    accepted(await outcomeOf(t.adapter.submit(c.cancel('buy', orderId))));
    // A placement in flight: the wallet pipelines, and a cancel must still not be signed for a gone order.
    const inFlight = await t.adapter.submit(c.place('buy', '1', '98', 2n));
    const again = await t.adapter.submit(c.cancel('buy', orderId));
    expect(again.txHash).toBeNull();
    expect(rejected(await again.outcome)).toMatchObject({
      included: false,
      error: { code: 'E_VENUE_ORDER_NOT_FOUND', details: { simulated: true } },
    });
    accepted(await inFlight.outcome);
    expect(journalKinds(t).filter((k) => k.includes(':cancel:'))).toHaveLength(1);
  });
});

const nonceOf = (t: ReturnType<ChainA['adapter']>, hash: string | null) =>
  t.store.transactions.get(hash as string)?.sequence as bigint;

describe('urgent work first', () => {
  it('a cancel overtakes the placements still waiting in the sending lane', async () => {
    const t = c.adapter();
    const resting = accepted(await outcomeOf(t.adapter.submit(c.place('sell', '1', '101', 1n))));
    const prices = ['99', '98.9', '98.8', '98.7', '98.6', '98.5', '98.4', '98.3'];
    const placements = prices.map((p, i) => t.adapter.submit(c.place('buy', '1', p, 10n + BigInt(i))));
    const cancel = t.adapter.submit(c.cancel('sell', resting.orderId as bigint));
    const sent = await Promise.all(placements);
    const cancelled = await cancel;
    const cancelNonce = nonceOf(t, cancelled.txHash);
    const later = sent.filter((x) => nonceOf(t, x.txHash) > cancelNonce);
    // Only the placement already being sent when the cancel arrived goes before it.
    expect(later).toHaveLength(prices.length - 1);
    accepted(await cancelled.outcome);
    await Promise.all(sent.map((x) => x.outcome));
  });

  it('placements withdrawn while they wait in the lane are refused unsigned', async () => {
    const t = c.adapter();
    const withdraw = new AbortController();
    const placements = ['99', '98.9', '98.8', '98.7'].map((p, i) =>
      t.adapter.submit({ ...c.place('buy', '1', p, 20n + BigInt(i)), signal: withdraw.signal }),
    );
    withdraw.abort(new DltError('E_ORDER_WITHDRAWN', 'placement withdrawn: kill switch'));
    const sent = await Promise.all(placements);
    const signed = sent.filter((x) => x.txHash !== null);
    expect(signed.length).toBeLessThanOrEqual(1);
    for (const x of sent.filter((y) => y.txHash === null))
      expect(rejected(await x.outcome).error.code).toBe('E_ORDER_WITHDRAWN');
    expect(journalKinds(t).filter((k) => k.includes(':place:'))).toHaveLength(signed.length);
  });
});

describe('turned down', () => {
  it('before signing: order terms the v1 order book cannot carry, with nothing journaled', async () => {
    const t = c.adapter();
    const order = c.place('buy', '1', '99', 1n);
    const s = await t.adapter.submit({ ...order, terms: { ...order.terms, condition: 'ioc' } });
    expect(s.txHash).toBeNull();
    expect(rejected(await s.outcome)).toMatchObject({
      txHash: null,
      included: false,
      error: { code: 'E_ENCODING_UNSUPPORTED' },
    });
    expect(journalKinds(t)).toEqual([]);
  });

  it('by simulation: an off-tick price and a closed market, unsigned and counted by name', async () => {
    const t = c.adapter();
    const offTick = rejected(await outcomeOf(t.adapter.submit(c.place('buy', '1', '99.03', 1n))));
    expect(offTick).toMatchObject({
      txHash: null,
      included: false,
      error: {
        code: 'E_VENUE_OFF_TICK',
        details: { name: 'OrderBook_PreTradeControlPriceNotOnTick', simulated: true },
      },
    });
    await c.h.call('operator', 'setPhase', [3]);
    const closed = rejected(await outcomeOf(t.adapter.submit(c.place('sell', '1', '101', 2n))));
    expect(closed.error.code).toBe('E_VENUE_MARKET_CLOSED');
    expect(closed.error.retryable).toBe(true);
    expect(
      await metricValue(t.metrics, 'dltmm_evm_reverts_total', { name: 'OrderBook_PreTradeControlPriceNotOnTick' }),
    ).toBe(1);
    expect(journalKinds(t)).toEqual([]);
  });

  it('on chain: a revert is decoded from a replay of the mined transaction, named in the log and the metric', async () => {
    const t = c.adapter('nobuy', { simulation: 'never' });
    const s = await t.adapter.submit(c.place('buy', '1', '99', 1n));
    const o = rejected(await s.outcome);
    expect(o).toMatchObject({
      txHash: s.txHash,
      included: true,
      error: { code: 'E_VENUE_NOT_ALLOWED_TO_BUY', details: { name: 'OrderBook_NotAllowedToBuy' } },
    });
    expect(await metricValue(t.metrics, 'dltmm_evm_reverts_total', { name: 'OrderBook_NotAllowedToBuy' })).toBe(1);
    expect(t.logs.some((l) => l.includes('OrderBook_NotAllowedToBuy') && l.includes(s.txHash as string))).toBe(true);
    expect(journalKinds(t)).toEqual(['0:approve:included', '1:place:failed']);
  });

  it('on chain: ERC-20 errors carry their arguments, and a restricted token names the receiver', async () => {
    const poor = rejected(await outcomeOf(c.adapter('poor').adapter.submit(c.place('buy', '1', '99', 1n))));
    expect(poor.included).toBe(true);
    expect(poor.error.code).toBe('E_VENUE_INSUFFICIENT_BALANCE');
    // A resting buy locks its value plus the maker commission (rules.md), taken in one transfer.
    const lock = prefundedBuyLock(990_000n, 10_000n, c.pair.rules.scales, 10);
    expect(poor.error.details.args).toMatchObject({
      sender: c.h.address('poor').toLowerCase(),
      balance: 10_000_000n,
      needed: lock,
    });
    await c.h.place('taker', 'sell', 10_000n, 1_000_000n);
    const nobene = rejected(await outcomeOf(c.adapter('nobene').adapter.submit(c.place('buy', '1', '100', 1n))));
    expect(nobene.error).toMatchObject({
      code: 'E_VENUE_NOT_BENEFICIARY',
      details: { name: 'Receiver must be a beneficiary' },
    });
  });

  it('on chain: an allowance error is retryable, and the next order approves again and goes through', async () => {
    const t = c.adapter('mm', { simulation: 'never' });
    const order = c.place('buy', '1', '99', 1n);
    const short = rejected(
      await outcomeOf(t.adapter.submit({ ...order, approval: { ...order.approval, amount: 1n } })),
    );
    expect(short.error.code).toBe('E_VENUE_INSUFFICIENT_ALLOWANCE');
    expect(short.error.retryable).toBe(true);
    // The reverted placement got no order id: the retry is the book's first order.
    expect(accepted(await outcomeOf(t.adapter.submit(c.place('buy', '1', '99', 2n)))).orderId).toBe(1n);
    expect(journalKinds(t)).toEqual(['0:approve:included', '1:place:failed', '2:approve:included', '3:place:included']);
  });

  it('by matching: a self-trade is an accepted transaction that carries OrderRejected', async () => {
    const { adapter } = c.adapter();
    await outcomeOf(adapter.submit(c.place('buy', '1', '99', 5n)));
    const o = accepted(await outcomeOf(adapter.submit(c.place('sell', '1', '99', 5n))));
    expect(types(o.events)).toEqual(['OrderReceived', 'OrderRejected']);
    expect(o.events[1]).toMatchObject({ reason: 1, quantityNotExecuted: 10_000n, side: 'sell', price: 990_000n });
  });

  it('by matching: more resting orders than maximumMatches reject the remainder; a price beyond the static range halts the book', async () => {
    for (let i = 0; i < 11; i++) await c.h.place('taker', 'sell', 5_000n, 1_000_000n);
    const { adapter } = c.adapter();
    const many = accepted(await outcomeOf(adapter.submit(c.place('buy', '6', '100', 1n))));
    expect(types(many.events)).toEqual(['OrderReceived', 'Trade', 'OrderRejected']);
    expect(many.events[2]).toMatchObject({ reason: 2, quantityNotExecuted: 10_000n });
    await c.h.place('taker', 'sell', 10_000n, 1_110_000n);
    const far = accepted(await outcomeOf(adapter.submit(c.place('buy', '1', '111', 2n))));
    expect(far.events[1]).toMatchObject({ type: 'OrderRejected', reason: 3, quantityNotExecuted: 10_000n });
    expect(await adapter.readPairState(c.pair)).toMatchObject({ phase: 4, open: false });
  });

  it('refuses commands after close, unsigned', async () => {
    const { adapter } = c.adapter();
    await adapter.close();
    const s = await adapter.submit(c.place('buy', '1', '99', 1n));
    expect(rejected(await s.outcome)).toMatchObject({
      txHash: null,
      error: { code: 'E_CHAIN_RPC', message: 'the chain A adapter is closed' },
    });
  });

  it('a cancel of an order that does not rest is refused by simulation', async () => {
    const o = rejected(await outcomeOf(c.adapter().adapter.submit(c.cancel('sell', 42n))));
    expect(o.error).toBeInstanceOf(DltError);
    expect(o.error.code).toBe('E_VENUE_ORDER_NOT_FOUND');
  });

  it('by the node: no gas money; the nonce goes back and is used by the next transaction', async () => {
    const t = c.adapter();
    await c.provider.send('hardhat_setBalance', [t.adapter.wallet, '0x0']);
    const s = await t.adapter.submit(c.place('sell', '1', '101', 1n));
    expect(s.txHash).not.toBeNull();
    expect(rejected(await s.outcome)).toMatchObject({ included: false, error: { code: 'E_CHAIN_TX_REFUSED' } });
    await c.provider.send('hardhat_setBalance', [t.adapter.wallet, '0x3635C9ADC5DEA00000']);
    accepted(await outcomeOf(t.adapter.submit(c.place('sell', '1', '101', 2n))));
    // The refused approve gave nonce 0 back; signed again with the same fees it is the very same transaction.
    expect(journalKinds(t)).toEqual(['0:approve:included', '1:place:included']);
    expect(await metricValue(t.metrics, 'dltmm_evm_submissions_total', { kind: 'approve', outcome: 'refused' })).toBe(
      1,
    );
  });
});
