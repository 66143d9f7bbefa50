/**
 * Identifiers unique for a wallet's whole life: `dlt-mm run` trades on the sandbox, stops, and a second run
 * starts for the same wallets on a fresh state file (a lost state volume). The second run must read what the
 * chains show, start its cross identifiers above every one the first run sent, and say so; the chains' own order
 * events then show no identifier twice on either chain. The second run is configured with reporting
 * identifiers: every order it sent carries them on chain.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { BookEvent } from '../../src/sandbox/matching/types.ts';
import { until } from '../support/e2e/poll.ts';
import { reportingIds, type Chain } from '../support/e2e/sandbox-chains.ts';
import { SECOND_BLOCKS, sandboxSession } from '../support/e2e/session.ts';

const session = sandboxSession(
  'fresh-state',
  { ...SECOND_BLOCKS, flow: { enabled: true, informedShare: 0, takerIntervalMs: 5_000 } },
  { chains: { begin: true } },
);

type Received = Extract<BookEvent, { type: 'OrderReceived' }>;

const highest = (ids: bigint[]) => ids.reduce((a, b) => (b > a ? b : a), 0n).toString();

/** The wallets' orders the chains carried, per chain, in order. */
async function received(): Promise<Record<Chain, Received[]>> {
  const { chains } = session;
  await chains.sync();
  const of = (chain: Chain) =>
    chains.events.filter((e) => e.chain === chain && e.event.type === 'OrderReceived').map((e) => e.event as Received);
  return { evm: of('evm'), wasm: of('wasm') };
}

/** The cross identifiers of the wallets' orders the chains carried, per chain, in order. */
async function crossIds(): Promise<Record<Chain, bigint[]>> {
  const r = await received();
  return { evm: r.evm.map((o) => o.crossIdentifier), wasm: r.wasm.map((o) => o.crossIdentifier) };
}

/**
 * Runs the bot on `<name>.sqlite` until both chains carried `more` new orders of it, then stops it with SIGTERM;
 * gives the path of its log.
 */
async function trade(name: string, more: number, engine: Record<string, unknown> = {}): Promise<string> {
  const before = await crossIds();
  const bot = await session.startBot(name, { risk: { staleMarketDataMs: 15_000 }, engine });
  await until(`${name} placed ${more} orders on each chain`, 180_000, async () => {
    if (!bot.running) throw new Error(`${name} exited:\n${bot.tail()}`);
    const now = await crossIds();
    return now.evm.length >= before.evm.length + more && now.wasm.length >= before.wasm.length + more;
  });
  bot.signal('SIGTERM');
  expect((await bot.exited).code).toBe(0);
  return bot.log;
}

describe('a fresh state file for wallets with history', () => {
  it('starts above every identifier the chains show, says so, and sends none twice', async () => {
    await trade('first', 8);
    const first = await crossIds();
    const log = await trade('second', 8, { reporting: [4_000_001, 17] });
    const all = await crossIds();
    const orders = await received();

    for (const chain of ['evm', 'wasm'] as const) {
      const twice = all[chain].filter((id, i) => all[chain].indexOf(id) !== i);
      expect({ chain, twice }).toEqual({ chain, twice: [] });
      expect(all[chain].length).toBeGreaterThan(first[chain].length);
    }
    const said = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.includes('fresh state file'))
      .map((l) => JSON.parse(l) as { chain: string; highestOfOurs: string });
    expect(said.map((l) => [l.chain, l.highestOfOurs]).toSorted()).toEqual([
      ['evm', highest(first.evm)],
      ['wasm', highest(first.wasm)],
    ]);
    // The first run carried the default reporting values, the second the configured ones, on both chains.
    for (const chain of ['evm', 'wasm'] as const) {
      const ids = orders[chain].map((o) => reportingIds(chain, o.reportingData).join(','));
      expect(new Set(ids.slice(0, first[chain].length))).toEqual(new Set(['0,0']));
      expect(new Set(ids.slice(first[chain].length))).toEqual(new Set(['4000001,17']));
    }
  }, 600_000);
});
