/**
 * Two of our wallets quoting the same pairs on a sandbox session (`sandbox.wallets`: the market maker and the
 * trader of each chain): both quote every pair, and no order of one ever trades with an order of the other.
 * Every match is read from the venue's trade records of each wallet, which the sandbox derives from the chains'
 * own events (one record per order of the wallet in each match, with its transaction): no transaction has one
 * of our wallets buying and another selling.
 */
import { describe, expect, it } from 'vitest';
import type { BookEvent } from '../../src/sandbox/matching/types.ts';
import { total } from '../support/e2e/metrics-text.ts';
import { until } from '../support/e2e/poll.ts';
import { SECOND_BLOCKS, sandboxSession } from '../support/e2e/session.ts';

const WALLETS = ['evm-mm', 'evm-trader', 'wasm-mm', 'wasm-trader'];

const session = sandboxSession(
  'own-wallets',
  { ...SECOND_BLOCKS, flow: { enabled: true, informedShare: 0.5, takerIntervalMs: 2_000 } },
  { chains: { also: WALLETS, begin: true } },
);

type Received = Extract<BookEvent, { type: 'OrderReceived' }>;

/** Every trade of a sandbox wallet as the venue lists it (all pages): its transaction and side. */
async function tradesOf(name: string): Promise<Array<{ hash: string; side: string }>> {
  const { sandbox } = session;
  const v = sandbox.manifest.venue as unknown as { restUrl: string; accessToken: string };
  const address = sandbox.manifest.wallets.find((w) => w.name === name)?.address as string;
  const out: Array<{ hash: string; side: string }> = [];
  for (let cursor: string | undefined, page = 0; page === 0 || cursor !== undefined; page++) {
    const query = `limit=100${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const res = await fetch(`${v.restUrl}/wallets/${address}/trades?${query}`, {
      headers: { authorization: `Bearer ${v.accessToken}` },
    });
    const body = (await res.json()) as {
      items: Array<{ transactionHash: string; transactionType: string }>;
      next_cursor?: string;
    };
    out.push(...body.items.map((t) => ({ hash: t.transactionHash, side: t.transactionType })));
    cursor = body.next_cursor;
  }
  return out;
}

/** Per pair, the wallets (lower case) whose orders the chains carried so far. */
async function quoting(): Promise<Map<string, Set<string>>> {
  const { chains } = session;
  await chains.sync();
  const by = new Map<string, Set<string>>();
  for (const e of chains.events.filter((x) => x.event.type === 'OrderReceived')) {
    const set = by.get(e.pairId) ?? new Set<string>();
    set.add((e.event as Received).client.toLowerCase());
    by.set(e.pairId, set);
  }
  return by;
}

describe('two of our wallets on one pair', () => {
  it('both quote every pair and never trade with each other', async () => {
    const { sandbox, chains } = session;
    const bot = await session.startBot('bot', {
      risk: { staleMarketDataMs: 15_000 },
      // The sandbox's wallets that trade: the market maker and the trader of each chain, on the same pairs.
      wallets: WALLETS,
    });
    const pairs = sandbox.manifest.pairs.map((p) => p.id);
    await until('both wallets quoted every pair, and fills', 240_000, async () => {
      if (!bot.running) throw new Error(`the bot exited:\n${bot.tail()}`);
      const by = await quoting();
      const fills = total(await bot.metrics(), 'dltmm_fills_total');
      return fills >= 4 && pairs.every((id) => (by.get(id)?.size ?? 0) === 2);
    });
    // A further minute of trading: time for the book to move through both wallets' quotes.
    await chains.pass({ evm: 60, wasm: 60 }, 180_000);
    const m = await bot.metrics();
    bot.signal('SIGTERM');
    expect((await bot.exited).code).toBe(0);
    const sides = new Map<string, Array<{ wallet: string; side: string }>>();
    for (const wallet of WALLETS)
      for (const t of await tradesOf(wallet))
        sides.set(t.hash, [...(sides.get(t.hash) ?? []), { wallet, side: t.side }]);
    const between = [...sides].filter(([, list]) => {
      const buyers = new Set(list.filter((x) => x.side === 'BUY').map((x) => x.wallet));
      return list.some((x) => x.side === 'SELL' && [...buyers].some((b) => b !== x.wallet));
    });
    expect(between).toEqual([]);
    // Both wallets traded (with others), and the chains carried orders of both on every pair.
    expect([...sides.values()].flat().length).toBeGreaterThanOrEqual(4);
    expect(total(m, 'dltmm_fills_total')).toBeGreaterThanOrEqual(4);
  }, 600_000);
});
