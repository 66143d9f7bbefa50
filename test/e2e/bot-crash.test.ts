/**
 * `dlt-mm run` (bot, pair loops, both adapters) trading every pair of the sandbox's market-maker wallets on
 * both chains with the simulated market on, killed with SIGKILL at seeded random moments and restarted on the
 * same state file, 20 times. The market keeps moving while the bot is down and while it restarts; the time from
 * the start of the process to `/readyz` answering ready is kept for every restart and printed.
 *
 * After every restart, once the bot is ready, the market pauses until the bot is quiet (it has applied every
 * event up to the chains' heads and no order of it is on its way to or off a book), and the test compares the
 * state file with its own reads of the chains and of the venue:
 *   - every resting order of our wallets is live in the store with the same remaining quantity, and every order
 *     the store has resting is on a book;
 *   - no client order id reached a book twice, and every one that did is an order of the store;
 *   - the inventory in the store equals each wallet's token balances plus what its resting orders lock;
 *   - the venue's open-order lists name exactly the orders resting on the books;
 *   - no alert is open.
 * Then the market moves on. At the end a SIGTERM cancels everything and the process exits 0.
 */
import { venueOpenOrders } from '../support/e2e/venue-orders.ts';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BotProcess } from '../support/e2e/bot-process.ts';
import { balancesOf, LIVE, lockedBy, pairsOf, readStore, type StoreSnapshot } from '../support/e2e/bot-truth.ts';
import { total, type MetricSample } from '../support/e2e/metrics-text.ts';
import { until } from '../support/e2e/poll.ts';
import { type Chain, type RestingOrder } from '../support/e2e/sandbox-chains.ts';
import { HALF_SECOND_BLOCKS, sandboxSession, untilReady } from '../support/e2e/session.ts';
import { between, seeded } from '../support/engine/random.ts';

const KILLS = Number(process.env.KILLS ?? 20);
/** Limits that never stop the bot: the test is about orders and inventory, not about risk. */
const LIMITS = {
  maxInventory: '1000',
  maxNotional: '1000000',
  maxOpenOrders: 8,
  dailyLossLimit: '1000000',
  maxDrawdown: '1000000',
  staleMarketDataMs: 15_000,
};

// A taker about every two seconds a pair: fills land while the bot runs, while it is down and while it restarts.
const FLOW = { enabled: true, takerIntervalMs: 2_000, seed: 0x5eed };
const session = sandboxSession(
  'bot-crash',
  { ...HALF_SECOND_BLOCKS, flow: FLOW },
  {
    chains: { begin: true },
    keep: process.env.DLTMM_KEEP === '1' ? 'always' : 'never',
  },
);

const covered = (m: readonly MetricSample[], chain: Chain) => total(m, 'dltmm_events_covered', { chain });
const heads = async () => ({ evm: await session.chains.head('evm'), wasm: await session.chains.head('wasm') });

/** The venue's open-order list of a wallet, as the REST API serves it: `pairId:orderId`. */
const venueOrders = (wallet: string): Promise<string[]> => venueOpenOrders(session.sandbox.manifest.venue, wallet);

interface Quiet {
  readonly store: StoreSnapshot;
  readonly resting: RestingOrder[];
  readonly balances: Map<string, bigint>;
}

/**
 * Pauses the market and waits for a moment at which the state file and the chains can be compared: the bot
 * has applied every event of its wallets up to the heights H the chains were at (its `dltmm_events_covered`),
 * nothing of its wallets happened on either chain above H while the store and the chains were read (no event,
 * no balance change), and no order of it waits for the events of a fill it made. Returns what was read then.
 */
async function quiet(bot: BotProcess, storePath: string): Promise<Quiet> {
  await session.sandbox.flow.stop();
  const pairs = pairsOf(session.sandbox, session.chains);
  let at = await heads();
  for (let look = 0; look < 120; look++) {
    await until(
      'the bot applied every event up to the heads',
      30_000,
      async () => {
        const m = await bot.metrics();
        return covered(m, 'evm') >= at.evm && covered(m, 'wasm') >= at.wasm;
      },
      50,
    );
    const before = await balancesOf(session.sandbox, pairs);
    const store = readStore(storePath);
    const resting = await session.chains.restingEverywhere();
    const balances = await balancesOf(session.sandbox, pairs);
    await session.chains.sync();
    const after = await heads();
    const moved = session.chains.events.filter((e) => e.at > at[e.chain]).length;
    const still = moved === 0 && [...balances].every(([k, v]) => before.get(k) === v);
    if (still && !store.orders.some((o) => o.status === 'received')) return { store, resting, balances };
    at = after;
  }
  throw new Error(`no quiet moment to compare the state file with the chains\n${bot.tail()}`);
}

async function check(bot: BotProcess, storePath: string, cycle: number): Promise<void> {
  const { store, resting, balances } = await quiet(bot, storePath);
  const pairs = pairsOf(session.sandbox, session.chains);
  const walletOf = (pairId: string) => pairs.find((p) => p.id === pairId)?.wallet.toLowerCase();
  const ours = (o: { wallet: string; pairId: string }) => o.wallet.toLowerCase() === walletOf(o.pairId);
  // Every resting order of our wallets is live in the store, with the same remaining quantity.
  const onBook = resting.map((r) => {
    const row = store.orders.find((o) => ours(o) && o.pairId === r.pairId && o.orderId === r.orderId);
    return {
      pair: r.pairId,
      orderId: r.orderId,
      inStore: row === undefined ? 'unknown to the store' : LIVE.has(row.status) ? 'live' : row.status,
      remaining: row?.remaining === r.remaining,
    };
  });
  expect({ cycle, onBook }).toEqual({
    cycle,
    onBook: resting.map((r) => ({ pair: r.pairId, orderId: r.orderId, inStore: 'live', remaining: true })),
  });
  // ... and every order the store has on a book is there.
  const phantom = store.orders.filter(
    (o) =>
      (o.status === 'resting' || o.status === 'partiallyFilled') &&
      !resting.some((r) => r.pairId === o.pairId && r.orderId === o.orderId),
  );
  expect({ cycle, phantom }).toEqual({ cycle, phantom: [] });
  // No client order id reached a book twice, and each one that did is an order of the store.
  const received = session.chains.events
    .filter((e) => e.event.type === 'OrderReceived')
    .map((e) => ({ chain: e.chain, id: (e.event as { crossIdentifier: bigint }).crossIdentifier }));
  const seen = new Map<string, number>();
  for (const r of received) seen.set(`${r.chain}:${r.id}`, (seen.get(`${r.chain}:${r.id}`) ?? 0) + 1);
  expect({ cycle, twice: [...seen].filter(([, n]) => n > 1).map(([id]) => id) }).toEqual({ cycle, twice: [] });
  const known = new Set(store.orders.map((o) => `${pairs.find((p) => p.id === o.pairId)?.chain}:${o.clientOrderId}`));
  expect({ cycle, unknown: [...seen.keys()].filter((id) => !known.has(id)) }).toEqual({ cycle, unknown: [] });
  // Inventory equals balances: each token's total in the store is what the wallet holds plus what its orders lock.
  const locked = lockedBy(pairs, resting);
  const inventory = [...balances.keys()].map((k) => ({ token: k, store: store.inventory.get(k) ?? null }));
  expect({ cycle, inventory }).toEqual({
    cycle,
    inventory: [...balances].map(([k, v]) => ({ token: k, store: v + (locked.get(k) ?? 0n) })),
  });
  // The venue's open-order lists name exactly the orders on the books, once their lag behind the chains
  // (the venue's orderLagMs) has passed.
  await session.sandbox.sync();
  const lagMs = session.sandbox.config.api.orderLagMs;
  for (const chain of ['evm', 'wasm'] as const) {
    const wallet = session.chains.wallets[chain];
    const books = resting
      .filter((r) => pairs.find((p) => p.id === r.pairId)?.chain === chain)
      .map((r) => `${r.pairId}:${r.orderId}`)
      .toSorted();
    const listed = async () => (await venueOrders(wallet)).join() === books.join();
    await until(`the venue lists the orders on chain ${chain}'s books`, lagMs + 2_000, listed, 50).catch(
      () => undefined,
    );
    expect({ cycle, chain, venue: await venueOrders(wallet) }).toEqual({ cycle, chain, venue: books });
  }
  expect({ cycle, alerts: store.openAlerts.filter((a) => a.kind !== 'foreign-order') }).toEqual({ cycle, alerts: [] });
  session.sandbox.flow.start();
}

describe('dlt-mm run killed with SIGKILL at random moments of trading, both chains, the market moving', () => {
  it(
    `after each of ${KILLS} restarts on the same state file the books, balances and venue agree with the store, and no order was lost or placed twice`,
    { timeout: 900_000 },
    async () => {
      const random = seeded(0xb07c0de);
      const { config, port } = await session.writeConfig('bot', { risk: LIMITS });
      const storePath = join(session.dir, 'bot.sqlite');
      const restartMs: number[] = [];
      /** Of each restart, the part before the bot's first log line: the process starting and loading its modules. */
      const loadingMs: number[] = [];
      /** Starts the bot on the state file, measures the time to ready, and checks it against the chains. */
      const startAndCheck = async (cycle: number): Promise<BotProcess> => {
        const started = performance.now();
        const startedAt = Date.now();
        const bot = session.track(new BotProcess(config, port, join(session.dir, `bot-${cycle}.log`)));
        await untilReady(bot, `bot (start ${cycle})`, 10);
        if (cycle > 0) {
          restartMs.push(Math.round(performance.now() - started));
          const first = bot.output.map((l) => /"time":"([^"]+)"/.exec(l)?.[1]).find((t) => t !== undefined);
          loadingMs.push(first === undefined ? -1 : Date.parse(first) - startedAt);
        }
        await check(bot, storePath, cycle);
        return bot;
      };
      for (let cycle = 0; cycle < KILLS; cycle++) {
        const bot = await startAndCheck(cycle);
        // Trading for a seeded number of chain A blocks (half a second each, not aligned with chain B's ledgers).
        await session.chains.pass({ evm: between(random, 1, 12), wasm: 0 });
        await bot.kill();
        // Down for a while, the market moving on.
        await session.chains.pass({ evm: between(random, 0, 4), wasm: 0 });
      }
      const last = await startAndCheck(KILLS);
      last.signal('SIGTERM');
      expect(await last.exited).toEqual({ code: 0, signal: null });
      expect(await session.chains.restingEverywhere()).toEqual([]);
      console.log(`dlt-mm run restart-to-ready, ms (${restartMs.length} restarts): ${JSON.stringify(restartMs)}`);
      console.log(`  of which before the first log line (process start, modules), ms: ${JSON.stringify(loadingMs)}`);
      expect(restartMs).toHaveLength(KILLS);
    },
  );
});
