/**
 * The whole bot on the sandbox: `dlt-mm run` as a child process, trading the sandbox's market-maker wallets
 * on every pair of both chains while the simulated market runs, checked with the test's own reads of the
 * chains (order book views, chain A logs, chain B events and transaction results) and the bot's telemetry.
 * The tests run in order on one sandbox: a session, a halt, SIGTERM, then a second run for the kill switch
 * and a third that is stopped twice.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.ts';
import { derivePairRules } from '../../src/core/rules.ts';
import { priceFromRaw, quantityFromRaw } from '../../src/core/units.ts';
import { openStoreReadOnly } from '../../src/store/store.ts';
import { SESSION_LIMITS } from '../support/e2e/bot-config.ts';
import { BotProcess } from '../support/e2e/bot-process.ts';
import { series, total } from '../support/e2e/metrics-text.ts';
import { until } from '../support/e2e/poll.ts';
import { type Chain, type SandboxChains } from '../support/e2e/sandbox-chains.ts';
import { HALF_SECOND_BLOCKS, sandboxSession, untilReady } from '../support/e2e/session.ts';
import { evmTaker } from '../support/e2e/taker.ts';
import { Traders } from '../support/sandbox/api/sandbox-clients.ts';

/** The session is sampled once a chain B ledger (one a second here; chain A makes two blocks meanwhile). */
const SESSION_SAMPLES = 60;
const SAMPLE = { evm: 0, wasm: 1 };
/** How long a halted pair is watched for placements, once the bot has seen the halt: in blocks and ledgers. */
const HALT_WATCH = { evm: 12, wasm: 6 };
/** How long a killed bot is watched for placements. */
const KILLED_WATCH = { evm: 10, wasm: 5 };
/** How long a process gets to exit after SIGTERM. */
const EXIT_MS = 45_000;

// Takers every three seconds a pair, so that a one-minute session sees fills on every chain.
const FLOW = { enabled: true, takerIntervalMs: 3_000 };
const session = sandboxSession(
  'e2e',
  { ...HALF_SECOND_BLOCKS, flow: FLOW },
  { chains: { begin: true }, keep: 'if-failed' },
);
let bot: BotProcess;

async function startBot(name: string, risk: Record<string, string | number>): Promise<BotProcess> {
  const b = await session.startBot(name, { risk });
  await untilReady(b, name);
  return b;
}

/** The process's exit, or 'still running' at the deadline. */
const exitWithin = async (b: BotProcess, ms: number) => {
  let exit: Awaited<BotProcess['exited']> | undefined;
  void b.exited.then((e) => (exit = e));
  return until('exit', ms, () => exit).catch(() => 'still running' as const);
};
const sides = (orders: readonly { side: 'buy' | 'sell' }[]) => ({
  buy: orders.some((o) => o.side === 'buy'),
  sell: orders.some((o) => o.side === 'sell'),
});
const control = async (path: string): Promise<void> => {
  const res = await fetch(`${session.sandbox.manifest.venue.controlUrl}${path}`, { method: 'POST' });
  if (!res.ok) throw new Error(`POST /sandbox${path}: ${res.status} ${await res.text()}`);
};
const rulesOf = (pairId: string) => {
  const p = session.sandbox.state.pairByIdOrSymbol(pairId);
  if (p === undefined) throw new Error(`no pair ${pairId}`);
  return derivePairRules(p.record, p.overrides);
};
const chainOf = (pairId: string): Chain => session.chains.pair(pairId).chain as Chain;

/**
 * Another participant (the sandbox's `evm-trader` or `wasm-trader`) fills the bot's best quote on `pairId` whole,
 * with every order ahead of it: its best ask when the bot is long, else its best bid, so that the fill brings the
 * bot's position towards zero.
 */
async function takeBest(pairId: string, long: boolean): Promise<void> {
  const side = long ? 'sell' : 'buy';
  const ours = (await session.chains.resting(pairId)).filter((o) => o.side === side);
  if (ours.length === 0) throw new Error(`the bot has no ${side} on ${pairId}`);
  const better = (a: bigint, b: bigint) => (side === 'buy' ? a > b : a < b);
  const best = ours.reduce((a, b) => (better(b.price, a.price) ? b : a));
  const ahead = (await session.chains.book(pairId)).filter((o) => o.side === side && !better(best.price, o.price));
  const scales = rulesOf(pairId).scales;
  const quantity = quantityFromRaw(
    ahead.reduce((n, o) => n + o.remaining, 0n),
    scales,
  ).toString();
  const price = priceFromRaw(best.price, scales).toString();
  const symbol = session.chains.pair(pairId).symbol;
  const taking = side === 'buy' ? 'sell' : 'buy';
  const traders = new Traders(session.sandbox);
  try {
    if (chainOf(pairId) === 'evm') {
      await traders.evmApproveAll('evm-trader');
      await traders.evmOrder('evm-trader', symbol, taking, quantity, price);
    } else {
      await traders.wasmApprove('wasm-trader', symbol);
      await traders.wasmOrder('wasm-trader', symbol, taking, quantity, price);
    }
  } finally {
    traders.close();
  }
}
const shares = (counts: Map<string, number>) =>
  Object.fromEntries([...counts].map(([id, n]) => [id, n / SESSION_SAMPLES]));

beforeAll(async () => {
  bot = await startBot('session', SESSION_LIMITS);
}, 120_000);

describe('the bot on the sandbox, both chains, simulated market on', () => {
  it('quotes both sides most of the time, trades, causes no venue rejection and keeps its position within its limits', async () => {
    const pairs = session.chains.pairs.map((p) => p.id);
    // Warm-up: every pair quoted on both sides at least once, read from the books.
    await until('both sides quoted on every pair', 30_000, async () => {
      for (const id of pairs) {
        const s = sides(await session.chains.resting(id));
        if (!s.buy || !s.sell) return false;
      }
      return true;
    });
    const bothOnChain = new Map(pairs.map((id) => [id, 0]));
    const bothInMetrics = new Map(pairs.map((id) => [id, 0]));
    const positions: Array<{ pairId: string; position: number; notional: Decimal | null }> = [];
    for (let i = 0; i < SESSION_SAMPLES; i++) {
      const m = await bot.metrics();
      for (const id of pairs) {
        const s = sides(await session.chains.resting(id));
        if (s.buy && s.sell) bothOnChain.set(id, (bothOnChain.get(id) ?? 0) + 1);
        if (
          total(m, 'dltmm_quote_presence', { pair: id, side: 'buy' }) === 1 &&
          total(m, 'dltmm_quote_presence', { pair: id, side: 'sell' }) === 1
        ) {
          bothInMetrics.set(id, (bothInMetrics.get(id) ?? 0) + 1);
        }
        const position = total(m, 'dltmm_position_base', { pair: id });
        const last = session.sandbox.state.pairByIdOrSymbol(id)?.market.lastPrice;
        positions.push({
          pairId: id,
          position,
          notional: last === undefined ? null : priceFromRaw(last, rulesOf(id).scales).mul(Math.abs(position)),
        });
      }
      await session.chains.pass(SAMPLE);
    }
    for (const [id, s] of Object.entries(shares(bothOnChain)))
      expect({ pair: id, bothSidesOnChain: s >= 0.7 }).toEqual({ pair: id, bothSidesOnChain: true });
    for (const [id, s] of Object.entries(shares(bothInMetrics)))
      expect({ pair: id, bothSidesInMetrics: s >= 0.7 }).toEqual({ pair: id, bothSidesInMetrics: true });

    // Fills on both chains, from the chain's own record of the bot's orders, and in the bot's counters.
    const traded = new Map<string, Awaited<ReturnType<SandboxChains['traded']>>>();
    for (const id of pairs) traded.set(id, await session.chains.traded(id));
    for (const chain of ['evm', 'wasm'] as const) {
      const gross = pairs
        .filter((id) => chainOf(id) === chain)
        .reduce((n, id) => n + (traded.get(id)?.gross ?? 0n), 0n);
      expect({ chain, traded: gross > 0n }).toEqual({ chain, traded: true });
    }
    const m = await bot.metrics();
    expect(total(m, 'dltmm_fills_total', { chain: 'evm' })).toBeGreaterThan(0);
    expect(total(m, 'dltmm_fills_total', { chain: 'wasm' })).toBeGreaterThan(0);
    // Market data came over the WebSocket, and no market ever went stale (which would quote from REST snapshots).
    expect(total(m, 'dltmm_venue_ws_messages_total', { type: 'data' })).toBeGreaterThan(0);
    expect(total(m, 'dltmm_venue_market_stale_transitions_total')).toBe(0);
    // The order engine found nothing to alert about (an inventory it cannot explain would pause pairs).
    expect(series(m, 'dltmm_alerts_total').filter((s) => s.value > 0)).toEqual([]);

    // No rejection: none counted by the bot, no OrderRejected and no failed placement on either chain. A
    // cancellation may fail only because a taker filled the order first (the order traded in full).
    expect(series(m, 'dltmm_order_rejections_total').filter((s) => s.value > 0)).toEqual([]);
    expect(session.chains.events.filter((e) => e.event.type === 'OrderRejected')).toEqual([]);
    const failed = session.chains.failed.map((f) => {
      const order = f.orderId === null || f.pairId === null ? undefined : traded.get(f.pairId)?.byOrder.get(f.orderId);
      return {
        ...f,
        cancelOfFilledOrder:
          f.call.toLowerCase().startsWith('cancel') && order !== undefined && order.traded === order.quantity,
      };
    });
    expect(failed.filter((f) => !f.cancelOfFilledOrder)).toEqual([]);

    // The limits bind (the gate cut the outer levels of the pairs priced near 12), and the position stayed
    // within maxInventory and maxNotional (at the venue's last price) at every sample.
    expect(total(m, 'dltmm_quotes_dropped_total', { rule: 'risk' })).toBeGreaterThan(0);
    const max = new Decimal(SESSION_LIMITS.maxInventory);
    const maxNotional = new Decimal(SESSION_LIMITS.maxNotional);
    expect(
      positions.filter(
        (p) => new Decimal(Math.abs(p.position)).gt(max) || (p.notional !== null && p.notional.gt(maxNotional)),
      ),
    ).toEqual([]);
    // ... and the bot's position is what its fills on chain add up to.
    for (const id of pairs) {
      await until(`position of ${id} equal to the chain's`, 20_000, async () => {
        const own = quantityFromRaw((await session.chains.traded(id)).net, rulesOf(id).scales);
        return own.eq(new Decimal(total(await bot.metrics(), 'dltmm_position_base', { pair: id })));
      });
    }
  }, 120_000);

  it('a halt pauses quoting on the halted pairs (one per chain) and quoting resumes after it', async () => {
    const halted = [
      session.chains.pairs.find((p) => p.chain === 'evm')?.id as string,
      session.chains.pairs.find((p) => p.chain === 'wasm')?.id as string,
    ];
    for (const id of halted) await control(`/pairs/${id}/halt`);
    // The bot sees the halt (order book phase, trade info) and pauses those pairs.
    await until('halted pairs paused', 15_000, async () => {
      const m = await bot.metrics();
      return halted.every((id) => total(m, 'dltmm_trading_state', { pair: id, mode: 'paused' }) === 1);
    });
    const from = { evm: await session.chains.head('evm'), wasm: await session.chains.head('wasm') };
    // An observation window: whatever the bot does now shows on the chains.
    await session.chains.pass(HALT_WATCH);
    await session.chains.sync();
    for (const id of halted)
      expect({ pair: id, placed: session.chains.seen(id, 'OrderReceived', from[chainOf(id)]).length }).toEqual({
        pair: id,
        placed: 0,
      });
    const during = await bot.metrics();
    for (const id of halted) expect(total(during, 'dltmm_trading_state', { pair: id, mode: 'paused' })).toBe(1);

    const resumed = { evm: await session.chains.head('evm'), wasm: await session.chains.head('wasm') };
    for (const id of halted) await control(`/pairs/${id}/resume`);
    await until('halted pairs active again', 15_000, async () => {
      const m = await bot.metrics();
      return halted.every((id) => total(m, 'dltmm_trading_state', { pair: id, mode: 'active' }) === 1);
    });
    // The bot's quotes stay on the book through a halt, and a quote still right after it is kept. So that the
    // bot must act, another participant fills one of its quotes whole on each pair.
    const after = await bot.metrics();
    for (const id of halted) await takeBest(id, total(after, 'dltmm_position_base', { pair: id }) > 0);
    const quoting = until('the bot quoting again on the halted pairs', 30_000, async () => {
      await session.chains.sync();
      // What still lacks is thrown, so that a timeout names it.
      for (const id of halted) {
        if (session.chains.seen(id, 'OrderReceived', resumed[chainOf(id)]).length === 0)
          throw new Error(`${id}: no order placed since the resume`);
        const s = sides(await session.chains.resting(id));
        if (!s.buy || !s.sell) throw new Error(`${id}: resting ${JSON.stringify(s)}`);
      }
      return true;
    });
    // A timeout carries what the bot said of those pairs.
    await quoting.catch((e: unknown) => {
      const said = bot.output.filter((l) => halted.some((id) => l.includes(id))).slice(-40);
      throw new Error(`${String(e)}\n${said.join('\n')}`);
    });
  }, 90_000);

  it('SIGTERM cancels every order of the bot on both chains and exits 0', async () => {
    bot.signal('SIGTERM');
    expect(await exitWithin(bot, EXIT_MS)).toEqual({ code: 0, signal: null });
    expect(await session.chains.restingEverywhere()).toEqual([]);
  }, 60_000);

  it('the kill switch trips at the daily loss limit: every order cancelled, not ready, and nothing quoted afterwards', async () => {
    // The simulated market stops, so that the test's own trade decides the mark: a fill at our bid, marked at
    // that price, loses exactly its fee.
    await control('/flow/stop');
    const killed = await startBot('kill', { ...SESSION_LIMITS, dailyLossLimit: '0.000001' });
    const pairId = session.chains.pairs.find((p) => p.chain === 'evm')?.id as string;
    const bid = await until('a bid of the bot on the chain A pair', 30_000, async () => {
      const all = await session.chains.resting(pairId);
      if (!all.some((o) => o.side === 'sell')) return undefined;
      return all.filter((o) => o.side === 'buy').toSorted((a, b) => (a.price > b.price ? -1 : 1))[0];
    });
    expect(total(await killed.metrics(), 'dltmm_kill_switch')).toBe(0);
    const taker = await evmTaker(session.sandbox, pairId);
    try {
      const scales = rulesOf(pairId).scales;
      expect(await taker.place('sell', rulesOf(pairId).sizeIncrement, priceFromRaw(bid.price, scales))).toBe(true);
    } finally {
      taker.stop();
    }
    await until('kill switch tripped', 30_000, async () => total(await killed.metrics(), 'dltmm_kill_switch') === 1);
    const readiness = await killed.readiness();
    expect({ ready: readiness.ready, killed: readiness.body.includes('killed') }).toEqual({
      ready: false,
      killed: true,
    });
    await until(
      'every order of the bot cancelled',
      30_000,
      async () => (await session.chains.restingEverywhere()).length === 0,
    );

    const from = { evm: await session.chains.head('evm'), wasm: await session.chains.head('wasm') };
    await session.chains.pass(KILLED_WATCH);
    await session.chains.sync();
    expect(killed.running).toBe(true);
    expect(session.chains.events.filter((e) => e.event.type === 'OrderReceived' && e.at > from[e.chain])).toEqual([]);
    expect(await session.chains.restingEverywhere()).toEqual([]);
    expect((await killed.readiness()).ready).toBe(false);

    killed.signal('SIGTERM');
    expect(await exitWithin(killed, EXIT_MS)).toEqual({ code: 0, signal: null });
  }, 120_000);

  it('a second signal during the shutdown exits at once, and the state file stays whole', async () => {
    const b = await startBot('second-signal', SESSION_LIMITS);
    await until('the bot quoting', 30_000, async () => (await session.chains.restingEverywhere()).length > 0);
    b.signal('SIGTERM');
    await until('the shutdown begun', 10_000, () => b.output.some((l) => l.includes('cancelling every order')));
    b.signal('SIGINT');
    expect(await exitWithin(b, 5_000)).toEqual({ code: 130, signal: null });
    expect(b.output.some((l) => l.includes('second signal: exiting now'))).toBe(true);
    // Every change was committed as it happened: the file opens, passes SQLite's own check, and holds the orders.
    const store = openStoreReadOnly(join(session.dir, 'second-signal.sqlite'));
    try {
      expect(store.db.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
      expect(store.orders.live({}).length).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  }, 90_000);
});
