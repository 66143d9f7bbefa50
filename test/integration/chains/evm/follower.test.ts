/**
 * The chain A event follower on a real node: the wallet's order book and token events in chain order, tentative
 * until deep enough and then confirmed, fills of resting orders learned from transfers, reorganisations (made
 * with evm_snapshot / evm_revert) rolled back and read again, catch-up from the persisted cursor after downtime,
 * a stored cursor whose block changed, bounded ranges with lag notices, and malformed node answers skipped.
 */
import { describe, expect, it } from 'vitest';
import { requestsDuring } from '../../../support/chains/json-rpc-requests.ts';
import { httpTransport, type RpcTransport } from '../../../../src/chains/evm/json-rpc.ts';
import type { EvmAdapterOptions } from '../../../../src/chains/evm/options.ts';
import type { ChainEvent, FollowerNotice, Outcome } from '../../../../src/chains/types.ts';
import { prefundedBuyLock, settle } from '../../../../src/core/money.ts';
import { metricValue } from '../../../support/venue/metric-value.ts';
import { ChainA, useChainA, type TestAdapter } from '../../../support/chains/evm/adapter-harness.ts';

let c: ChainA;
useChainA((chain) => (c = chain));

const POLL = 1000;
/** The watcher and the follower. */
const LOOPS = 2;

interface Following {
  readonly t: TestAdapter;
  readonly notices: FollowerNotice[];
  poll(): void;
  stop(): Promise<void>;
}

/** An adapter whose watcher runs (an approve went through) and a follower on the pair from `from`. */
async function following(
  options: Partial<EvmAdapterOptions> = {},
  from: Parameters<TestAdapter['adapter']['follow']>[1] = null,
  t = c.adapter('mm', options),
): Promise<Following> {
  await (
    await t.adapter.ensureAllowance(c.pair, 'quote', 10n ** 10n)
  )?.outcome;
  await (
    await t.adapter.ensureAllowance(c.pair, 'base', 10n ** 10n)
  )?.outcome;
  const notices: FollowerNotice[] = [];
  const f = t.adapter.follow([c.pair], from, async (n) => {
    notices.push(n);
  });
  await t.time.parked(LOOPS);
  return { t, notices, poll: () => f.poll(), stop: () => f.stop() };
}

const events = (notices: readonly FollowerNotice[], confirmed?: boolean): ChainEvent[] =>
  notices.flatMap((n) =>
    n.kind === 'events' && (confirmed === undefined || n.confirmed === confirmed) ? n.events : [],
  );
const kinds = (notices: readonly FollowerNotice[]) =>
  notices
    .filter((n) => n.kind !== 'lag')
    .map((n) => (n.kind === 'events' ? `events:${n.confirmed ? 'confirmed' : 'tentative'}` : n.kind));

async function placed(
  t: TestAdapter,
  side: 'buy' | 'sell',
  price: string,
  id: bigint,
): Promise<Extract<Outcome, { kind: 'accepted' }>> {
  const o = await (await t.adapter.submit(c.place(side, '1', price, id))).outcome;
  if (o.kind !== 'accepted') throw new Error(`placement ${o.kind}`);
  return o;
}

describe('events', () => {
  it('delivers the wallet events in chain order, tentative first, then confirmed once two blocks are on top', async () => {
    const f = await following({ follower: { confirmations: 2, pollIntervalMs: POLL } });
    // Starting from nothing, it first says where it starts (and keeps it as the stored cursor), then that it is
    // at the head (an engine waits for this to start trading) with every event up to there delivered.
    const start = await c.provider.getBlock('latest');
    const from = { chain: 'evm', height: BigInt(start?.number ?? -1), blockHash: start?.hash };
    expect(f.notices).toEqual([
      { kind: 'events', events: [], confirmed: true, cursor: from },
      { kind: 'lag', behind: 0n, covered: from.height },
    ]);
    expect(f.t.adapter.storedCursor()).toEqual(from);
    const o = await placed(f.t, 'buy', '99', 1n);
    await f.t.time.tick(POLL, LOOPS);
    const tentative = events(f.notices, false);
    expect(tentative.map((e) => e.type)).toEqual(['OrderReceived', 'Transfer', 'OrderResting']);
    expect(tentative.map((e) => e.key)).toEqual([0, 1, 2].map((i) => `${o.txHash}:${i}`));
    expect(tentative[1]).toMatchObject({
      token: 'quote',
      from: f.t.adapter.wallet,
      to: c.pair.orderBook,
      amount: prefundedBuyLock(990_000n, 10_000n, c.pair.rules.scales, 10),
      pairId: c.pair.pairId,
    });
    expect(events(f.notices, true)).toEqual([]);
    await c.mine(2);
    await f.t.time.tick(POLL, LOOPS);
    expect(events(f.notices, true)).toEqual(tentative);
    const last = f.notices.filter((n) => n.kind === 'events').at(-1);
    expect(last).toMatchObject({
      kind: 'events',
      confirmed: true,
      cursor: { chain: 'evm', height: o.height, blockHash: tentative[0]?.blockHash },
    });
    // Delivered as confirmed up to the order's block, two below the head, and said so after the events.
    expect(f.notices.at(-1)).toEqual({ kind: 'lag', behind: 0n, covered: o.height });
  });

  it('balances read at the height the follower says it has delivered are the chain as those events left it', async () => {
    const f = await following({ follower: { confirmations: 2, pollIntervalMs: POLL } });
    const before = await f.t.adapter.readBalancesAt(c.pair, null);
    const o = await placed(f.t, 'buy', '99', 1n);
    const lock = prefundedBuyLock(990_000n, 10_000n, c.pair.rules.scales, 10);
    // The latest block holds the placement's lock; the block before it does not.
    expect(await f.t.adapter.readBalancesAt(c.pair, null)).toMatchObject({
      base: before.base,
      quote: before.quote - lock,
      height: o.height,
    });
    expect(await f.t.adapter.readBalancesAt(c.pair, o.height - 1n)).toEqual({ ...before, height: o.height - 1n });
    await c.mine(2);
    await f.t.time.tick(POLL, LOOPS);
    const covered = f.notices
      .flatMap((n) => (n.kind === 'lag' && n.covered !== undefined ? [n.covered] : []))
      .at(-1) as bigint;
    expect(covered).toBe(o.height);
    expect((await f.t.adapter.readBalancesAt(c.pair, covered)).quote).toBe(before.quote - lock);
  });

  it("asks a range's order book and transfer logs in one JSON-RPC batch", async () => {
    const f = await following({ follower: { confirmations: 0, pollIntervalMs: POLL } });
    const { result: o, requests } = await requestsDuring(async () => {
      const placement = await placed(f.t, 'buy', '99', 1n);
      await f.t.time.parked(LOOPS);
      return placement;
    });
    expect(events(f.notices).filter((e) => e.txHash === o.txHash)).toHaveLength(3);
    expect(requests.filter((r) => r.includes('eth_getLogs'))).toEqual([['eth_getLogs', 'eth_getLogs', 'eth_getLogs']]);
  });

  it('reads a block a receipt poll saw at once, without waiting out its poll interval', async () => {
    const f = await following({ follower: { confirmations: 0, pollIntervalMs: POLL } });
    const now = f.t.time.clock.now();
    const o = await placed(f.t, 'buy', '99', 1n);
    await f.t.time.parked(LOOPS);
    expect(
      events(f.notices, true)
        .filter((e) => e.txHash === o.txHash)
        .map((e) => e.type),
    ).toEqual(['OrderReceived', 'Transfer', 'OrderResting']);
    expect(f.t.time.clock.now()).toBe(now);
  });

  it('reads at once when asked, without waiting out its poll interval', async () => {
    const f = await following({ follower: { confirmations: 0, pollIntervalMs: POLL } });
    await placed(f.t, 'sell', '100', 1n);
    await f.t.time.parked(LOOPS);
    // Another client's block: no receipt poll of ours sees it.
    await c.h.place('taker', 'buy', 10_000n, 1_000_000n);
    await f.t.time.parked(LOOPS);
    const received = () => events(f.notices).filter((e) => e.type === 'Transfer' && e.to === f.t.adapter.wallet);
    expect(received()).toEqual([]);
    const now = f.t.time.clock.now();
    f.poll();
    await f.t.time.parked(LOOPS);
    expect(received()).toHaveLength(1);
    expect(f.notices.at(-1)).toMatchObject({ kind: 'lag', behind: 0n });
    expect(f.t.time.clock.now()).toBe(now);
  });

  it('probes whether an order rests by simulating its cancellation, without sending anything', async () => {
    const f = await following();
    const o = await placed(f.t, 'sell', '100', 1n);
    const nonce = await c.provider.getTransactionCount(f.t.adapter.wallet);
    expect(await f.t.adapter.probeOrder(c.pair, 'sell', o.orderId as bigint)).toMatchObject({ onBook: true });
    await c.h.place('taker', 'buy', 10_000n, 1_000_000n);
    expect(await f.t.adapter.probeOrder(c.pair, 'sell', o.orderId as bigint)).toMatchObject({
      onBook: false,
      height: BigInt(await c.provider.getBlockNumber()),
    });
    expect(await c.provider.getTransactionCount(f.t.adapter.wallet)).toBe(nonce);
  });

  it('learns that its resting sell was filled from the quote transfer it receives', async () => {
    const f = await following();
    await placed(f.t, 'sell', '100', 1n);
    await c.h.place('taker', 'buy', 10_000n, 1_000_000n);
    await f.t.time.tick(POLL, LOOPS);
    const received = events(f.notices).filter((e) => e.type === 'Transfer' && e.to === f.t.adapter.wallet);
    const s = settle(1_000_000n, 10_000n, c.pair.rules.scales, 20, 10);
    expect(received).toEqual([
      expect.objectContaining({ token: 'quote', from: c.pair.orderBook, amount: s.sellerValue - s.sellerCommission }),
    ]);
    expect(
      events(f.notices)
        .filter((e) => e.type !== 'Transfer')
        .map((e) => e.type),
    ).toEqual(['OrderReceived', 'OrderResting', 'Trade']);
  });
});

/** A transport that counts the one-block log queries (by block hash) the follower makes for trade events. */
function countingTradeQueries(): { transport: RpcTransport; blocks: string[] } {
  const real = httpTransport(c.h.node.rpcUrl, { timeoutMs: 10_000 });
  const blocks: string[] = [];
  const transport: RpcTransport = (method, params) => {
    const hash = (params[0] as { blockHash?: string } | undefined)?.blockHash;
    if (method === 'eth_getLogs' && hash !== undefined) blocks.push(hash);
    return real(method, params);
  };
  return { transport, blocks };
}

/** Another wallet's buy of `quantity` at 101.00 against our resting sell at 100.00: the trade events of its transaction. */
async function takerBuys(quantity: bigint): Promise<{ txHash: string; blockHash: string; orderId: bigint | null }> {
  const p = await c.h.place('taker', 'buy', quantity, 1_010_000n);
  return { txHash: p.receipt.hash.toLowerCase(), blockHash: p.receipt.blockHash.toLowerCase(), orderId: p.orderId };
}

const trades = (notices: readonly FollowerNotice[], confirmed?: boolean) =>
  events(notices, confirmed).filter((e) => e.type === 'Trade');

describe("another client's trade that filled our resting order", () => {
  it('arrives with our transfers of its transaction, in log order, for one extra query of that block only', async () => {
    const q = countingTradeQueries();
    const f = await following({ transport: q.transport });
    await placed(f.t, 'sell', '100', 1n);
    const fill = await takerBuys(5_000n);
    await f.t.time.tick(POLL, LOOPS);
    // Executed at our resting price, not at the incoming limit: the price attribution needs.
    expect(trades(f.notices)).toEqual([
      expect.objectContaining({
        type: 'Trade',
        client: c.h.address('taker'),
        orderId: fill.orderId,
        side: 'buy',
        quantity: 5_000n,
        price: 1_000_000n,
        txHash: fill.txHash,
        pairId: c.pair.pairId,
      }),
    ]);
    const batch = f.notices.find((n) => n.kind === 'events' && n.events.some((e) => e.type === 'Trade'));
    const ofFill = batch?.kind === 'events' ? batch.events.filter((e) => e.txHash === fill.txHash) : [];
    expect(ofFill.map((e) => e.type).toSorted()).toEqual(['Trade', 'Transfer']);
    expect(ofFill.find((e) => e.type === 'Transfer')).toMatchObject({
      token: 'quote',
      from: c.pair.orderBook,
      to: f.t.adapter.wallet,
    });
    const indexes = ofFill.map((e) => Number(e.key.split(':')[1]));
    expect(indexes).toEqual(indexes.toSorted((a, b) => a - b));
    // Our placement's own lock transfer asks nothing: its transaction's trade event, if any, would be ours.
    expect(q.blocks).toEqual([fill.blockHash]);
  });

  it('skips and counts a malformed log in the trade query reply, and delivers the trade all the same', async () => {
    const q = countingTradeQueries();
    const transport: RpcTransport = async (method, params) => {
      const result = await q.transport(method, params);
      const asked = (params[0] as { blockHash?: string } | undefined)?.blockHash;
      if (asked === undefined || !Array.isArray(result) || result.length === 0) return result;
      const good = result[0] as Record<string, unknown>;
      return [
        ...result,
        { ...good, logIndex: '0x60', blockHash: `0x${'cd'.repeat(32)}` },
        { ...good, logIndex: '0x61', data: '0x12' },
      ];
    };
    const f = await following({ transport });
    await placed(f.t, 'sell', '100', 1n);
    const fill = await takerBuys(5_000n);
    await f.t.time.tick(POLL, LOOPS);
    expect(trades(f.notices).map((e) => e.key)).toEqual([expect.stringMatching(new RegExp(`^${fill.txHash}:`))]);
    expect(await metricValue(f.t.metrics, 'dltmm_evm_malformed_total', { source: 'log' })).toBe(2);
  });

  it('is delivered once across a resume from the persisted cursor', async () => {
    const first = await following();
    await placed(first.t, 'sell', '100', 1n);
    const a = await takerBuys(5_000n);
    await first.t.time.tick(POLL, LOOPS);
    await first.stop();
    const b = await takerBuys(5_000n);
    const notices: FollowerNotice[] = [];
    const again = first.t.adapter.follow([c.pair], first.t.adapter.storedCursor(), async (n) => {
      notices.push(n);
    });
    await first.t.time.tick(POLL, LOOPS);
    await again.stop();
    expect(trades(first.notices).map((e) => [e.txHash, e.quantity])).toEqual([[a.txHash, 5_000n]]);
    expect(trades(notices).map((e) => [e.txHash, e.quantity])).toEqual([[b.txHash, 5_000n]]);
  });

  it('is tentative like the transfer that called for it, and withdrawn with it when its block is replaced', async () => {
    const f = await following({ follower: { confirmations: 3, pollIntervalMs: POLL } });
    await placed(f.t, 'sell', '100', 1n);
    const snapshot = (await c.provider.send('evm_snapshot', [])) as string;
    const fill = await takerBuys(5_000n);
    await f.t.time.tick(POLL, LOOPS);
    const ofFill = events(f.notices, false).filter((e) => e.txHash === fill.txHash);
    expect(ofFill.map((e) => e.type).toSorted()).toEqual(['Trade', 'Transfer']);
    expect(trades(f.notices, true)).toEqual([]);
    await c.provider.send('evm_revert', [snapshot]);
    await c.mine(2);
    await f.t.time.tick(POLL, LOOPS);
    const rollback = f.notices.find((n) => n.kind === 'rollback');
    expect(rollback?.kind === 'rollback' ? rollback.keys : []).toEqual(
      expect.arrayContaining(ofFill.map((e) => e.key)),
    );
    // The fill is gone from the chain: nothing of it comes back, tentative or confirmed.
    await c.mine(3);
    await f.t.time.tick(POLL, LOOPS);
    expect(
      events(f.notices.slice(f.notices.indexOf(rollback as FollowerNotice))).filter((e) => e.txHash === fill.txHash),
    ).toEqual([]);
  });
});

describe('reorganisations and restarts', () => {
  it('withdraws tentative events of a block that was replaced, and delivers them again from their new block', async () => {
    const f = await following({ follower: { confirmations: 3, pollIntervalMs: POLL } });
    const snapshot = (await c.provider.send('evm_snapshot', [])) as string;
    const o = await placed(f.t, 'buy', '99', 1n);
    await f.t.time.tick(POLL, LOOPS);
    const before = events(f.notices, false);
    expect(before).toHaveLength(3);
    const raw = f.t.store.transactions.get(o.txHash)?.raw as string;
    await c.provider.send('evm_revert', [snapshot]);
    await c.mine();
    await c.provider.send('eth_sendRawTransaction', [raw]);
    await f.t.time.tick(POLL, LOOPS);
    expect(kinds(f.notices)).toEqual(['events:confirmed', 'events:tentative', 'rollback', 'events:tentative']);
    const rollback = f.notices.findIndex((n) => n.kind === 'rollback');
    expect(f.notices[rollback]).toEqual({ kind: 'rollback', keys: before.map((e) => e.key) });
    const after = events(f.notices.slice(rollback));
    expect(after.map((e) => e.key)).toEqual(before.map((e) => e.key));
    expect(after[0]?.height).toBe((before[0]?.height as bigint) + 1n);
    expect(after[0]?.blockHash).not.toBe(before[0]?.blockHash);
    expect(await metricValue(f.t.metrics, 'dltmm_evm_reorg_rollbacks_total')).toBe(1);
  });

  it('reports the confirmed cursor as soon as it passes the block an outcome came from, with no event to deliver', async () => {
    const f = await following({ simulation: 'never', follower: { confirmations: 2, pollIntervalMs: POLL } });
    // A cancel of an order that is not there: mined and reverted, no event of the wallet.
    const o = await (await f.t.adapter.submit(c.cancel('buy', 999n))).outcome;
    if (o.kind !== 'rejected' || o.block === undefined)
      throw new Error(`expected a reverted cancel with its block, got ${o.kind}`);
    await f.t.time.tick(POLL, LOOPS);
    await c.mine(2);
    await f.t.time.tick(POLL, LOOPS);
    // After the notice that says where the follower started.
    const confirmed = f.notices.filter((n) => n.kind === 'events' && n.confirmed).slice(1);
    expect(confirmed).toEqual([
      {
        kind: 'events',
        events: [],
        confirmed: true,
        cursor: expect.objectContaining({ chain: 'evm', height: o.block.height }),
      },
    ]);
    // Reported once: further blocks without events go back to the heartbeat.
    await c.mine(2);
    await f.t.time.tick(POLL, LOOPS);
    expect(f.notices.filter((n) => n.kind === 'events' && n.confirmed)).toHaveLength(2);
  });

  it('reports the confirmed cursor once it passes the blocks of withdrawn tentative events, even if nothing replaces them', async () => {
    const f = await following({ follower: { confirmations: 3, pollIntervalMs: POLL } });
    const snapshot = (await c.provider.send('evm_snapshot', [])) as string;
    const o = await placed(f.t, 'buy', '99', 1n);
    await f.t.time.tick(POLL, LOOPS);
    await c.provider.send('evm_revert', [snapshot]);
    await c.mine(4);
    await f.t.time.tick(POLL, LOOPS);
    expect(kinds(f.notices)).toEqual(['events:confirmed', 'events:tentative', 'rollback', 'events:confirmed']);
    const last = f.notices.filter((n) => n.kind === 'events').at(-1);
    expect(last).toMatchObject({ kind: 'events', events: [], confirmed: true });
    expect(last?.kind === 'events' && last.cursor.height >= o.height).toBe(true);
  });

  it('catches up from the persisted cursor after downtime with exactly the events it missed', async () => {
    const first = await following();
    const a = await placed(first.t, 'buy', '99', 1n);
    await first.t.time.tick(POLL, LOOPS);
    expect(events(first.notices).map((e) => e.txHash)).toContain(a.txHash);
    await first.stop();
    const b = await placed(first.t, 'buy', '98', 2n);
    const d = await placed(first.t, 'sell', '101', 3n);
    const cursor = first.t.adapter.storedCursor();
    expect(cursor).toMatchObject({ chain: 'evm', height: a.height });
    const notices: FollowerNotice[] = [];
    const again = first.t.adapter.follow([c.pair], cursor, async (n) => {
      notices.push(n);
    });
    await first.t.time.tick(POLL, LOOPS);
    await again.stop();
    expect([...new Set(events(notices).map((e) => e.txHash))]).toEqual([b.txHash, d.txHash]);
  });

  it('reports a stored cursor whose block changed as a gap and reads again from below it', async () => {
    const f = await following();
    const o = await placed(f.t, 'buy', '99', 1n);
    const wrong = { chain: 'evm' as const, height: o.height, blockHash: `0x${'ab'.repeat(32)}` };
    const notices: FollowerNotice[] = [];
    const g = f.t.adapter.follow([c.pair], wrong, async (n) => {
      notices.push(n);
    });
    await f.t.time.tick(POLL, LOOPS + 1);
    await g.stop();
    expect(notices[0]).toEqual({ kind: 'gap', from: wrong, oldestAvailable: o.height > 64n ? o.height - 63n : 1n });
    expect(events(notices).map((e) => e.txHash)).toContain(o.txHash);
    expect(await metricValue(f.t.metrics, 'dltmm_evm_follower_gaps_total')).toBe(1);
  });
});

describe('bounded ranges and malformed answers', () => {
  it('reads a long way back in ranges of at most maxBlockRange blocks, with lag notices on the way', async () => {
    const ranges: bigint[] = [];
    const real = httpTransport(c.h.node.rpcUrl, { timeoutMs: 10_000 });
    const spy: RpcTransport = (method, params) => {
      if (method === 'eth_getLogs') {
        const p = params[0] as { fromBlock: string; toBlock: string };
        ranges.push(BigInt(p.toBlock) - BigInt(p.fromBlock) + 1n);
      }
      return real(method, params);
    };
    const t = c.adapter('mm', {
      transport: spy,
      follower: { confirmations: 0, maxBlockRange: 2, pollIntervalMs: POLL },
    });
    const start = await c.provider.getBlock('latest');
    await c.mine(5);
    const f = await following(
      {},
      { chain: 'evm', height: BigInt(start?.number ?? 0), blockHash: start?.hash as string },
      t,
    );
    await t.time.tick(POLL, LOOPS);
    expect(Math.max(...ranges.map(Number))).toBeLessThanOrEqual(2);
    // Five empty blocks and the two approve blocks: ranges of two from seven blocks behind, then at the head.
    const lags = f.notices.flatMap((n) => (n.kind === 'lag' ? [n.behind] : []));
    expect(lags).toEqual([7n, 5n, 3n, 0n]);
    expect(ranges.length).toBe(3 * 4);
  });

  it('skips malformed logs and unreadable replies, counts them, and delivers everything else', async () => {
    const real = httpTransport(c.h.node.rpcUrl, { timeoutMs: 10_000 });
    let mode: 'none' | 'bad-logs' | 'logs-not-a-list' | 'bad-receipt' = 'none';
    const transport: RpcTransport = async (method, params) => {
      const result = await real(method, params);
      if (mode === 'bad-receipt' && method === 'eth_getTransactionReceipt') {
        mode = 'none';
        return { status: 'yes' };
      }
      if (mode === 'logs-not-a-list' && method === 'eth_getLogs') return { logs: result };
      const bookQuery = method === 'eth_getLogs' && Array.isArray((params[0] as { topics: unknown[] }).topics[0]);
      if (mode === 'bad-logs' && bookQuery && Array.isArray(result) && result.length > 0) {
        const good = result[0] as Record<string, unknown>;
        return [
          ...result,
          { ...good, topics: (good.topics as string[]).slice(0, 2), logIndex: '0x50' },
          { ...good, data: '0x12', logIndex: '0x51' },
          'not a log',
        ];
      }
      return result;
    };
    const f = await following({ transport });
    const count = (name: string, labels: Record<string, string>) => metricValue(f.t.metrics, name, labels);

    mode = 'bad-logs';
    const first = await placed(f.t, 'buy', '99', 1n);
    await f.t.time.tick(POLL, LOOPS);
    expect(events(f.notices).map((e) => [e.txHash, e.type])).toEqual(
      ['OrderReceived', 'Transfer', 'OrderResting'].map((type) => [first.txHash, type]),
    );
    expect(await count('dltmm_evm_malformed_total', { source: 'log' })).toBe(3);
    expect(f.t.logs.some((l) => l.includes('malformed chain A log; skipped'))).toBe(true);

    mode = 'logs-not-a-list';
    const second = await placed(f.t, 'buy', '98', 2n);
    await f.t.time.tick(POLL, LOOPS);
    expect(events(f.notices).map((e) => e.txHash)).not.toContain(second.txHash);
    expect(
      await count('dltmm_evm_rpc_errors_total', { method: 'eth_getLogs', kind: 'malformed' }),
    ).toBeGreaterThanOrEqual(1);
    mode = 'none';
    await f.t.time.tick(POLL, LOOPS);
    expect(events(f.notices).filter((e) => e.txHash === second.txHash)).toHaveLength(3);

    mode = 'bad-receipt';
    const third = await f.t.adapter.submit(c.place('buy', '1', '97.5', 3n));
    await f.t.time.tickUntil(POLL, () => mode === 'none', 20, LOOPS);
    await f.t.time.tick(POLL, LOOPS);
    expect((await third.outcome).kind).toBe('accepted');
    expect(await count('dltmm_evm_rpc_errors_total', { method: 'eth_getTransactionReceipt', kind: 'malformed' })).toBe(
      1,
    );
  });
});
