/**
 * The rulebook's controls on a sandbox session: a throttle of two placements per block or ledger for each
 * wallet and an order-to-trade limit low enough to bind. The chains' own blocks and ledgers never carry more
 * than two placements of our wallet, the day's ratio of every pair stays within the limit, and `dlt-mm audit
 * export` afterwards lists every order the chains carried, each with the reporting values configured (as
 * decoded from the chain) and every event with its UTC time to the microsecond.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { BookEvent } from '../../src/sandbox/matching/types.ts';
import { series, total } from '../support/e2e/metrics-text.ts';
import { until } from '../support/e2e/poll.ts';
import { reportingIds } from '../support/e2e/sandbox-chains.ts';
import { SECOND_BLOCKS, sandboxSession } from '../support/e2e/session.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RATIO = 6;
const PER_BLOCK = 2;

const session = sandboxSession(
  'rulebook',
  { ...SECOND_BLOCKS, flow: { enabled: true, informedShare: 0, takerIntervalMs: 2_000 } },
  { chains: { begin: true } },
);

type Received = Extract<BookEvent, { type: 'OrderReceived' }>;

/** Our wallets' orders the chains carried so far, with the block or ledger of each. */
async function ours() {
  await session.chains.sync();
  return session.chains.events.filter((e) => e.event.type === 'OrderReceived');
}

describe('the rulebook on a sandbox session', () => {
  it('throttles placements per block and ledger, keeps the order-to-trade ratio, and exports what the chains carried', async () => {
    const { dir } = session;
    const bot = await session.startBot('bot', {
      risk: { staleMarketDataMs: 15_000, maxOrderToTradeRatio: RATIO },
      engine: { reporting: [21, 1] },
      more: { throttle: { wallet: { perBlock: PER_BLOCK } } },
    });
    // Long enough for both limits to bind: each wallet quotes four ladders' worth of orders, and trades.
    await until('forty placements on each chain and fills', 240_000, async () => {
      if (!bot.running) throw new Error(`the bot exited:\n${bot.tail()}`);
      const placed = await ours();
      const m = await bot.metrics();
      return (
        placed.filter((e) => e.chain === 'evm').length >= 40 &&
        placed.filter((e) => e.chain === 'wasm').length >= 40 &&
        total(m, 'dltmm_fills_total') >= 4
      );
    });
    const m = await bot.metrics();
    bot.signal('SIGTERM');
    expect((await bot.exited).code).toBe(0);

    // The chains' own blocks and ledgers: never more than two placements of our wallet in one.
    const placed = await ours();
    const perBlock = new Map<string, number>();
    for (const e of placed) perBlock.set(`${e.chain}:${e.at}`, (perBlock.get(`${e.chain}:${e.at}`) ?? 0) + 1);
    expect(Math.max(...perBlock.values())).toBe(PER_BLOCK);
    // Both limits bound: placements were held by the throttle and by the ratio.
    expect(total(m, 'dltmm_quote_actions_total', { result: 'throttled-wallet-perBlock' })).toBeGreaterThan(0);
    expect(total(m, 'dltmm_quote_actions_total', { result: 'maxOrderToTradeRatio' })).toBeGreaterThan(0);
    const ratios = series(m, 'dltmm_order_to_trade_ratio');
    expect(ratios.length).toBeGreaterThan(0);
    for (const r of ratios) expect(r.value).toBeLessThanOrEqual(RATIO);

    // The audit export: every order the chains carried, with the configured reporting values on chain.
    for (const e of placed) expect(reportingIds(e.chain, (e.event as Received).reportingData)).toEqual([21, 1]);
    const cli = join(ROOT, 'node_modules', '.bin', 'node');
    const said = execFileSync(cli, [join(ROOT, 'src/cli/dlt-mm.ts'), 'audit', 'export', '--config', bot.config], {
      encoding: 'utf8',
      cwd: dir,
    });
    expect(said).toContain('order events');
    const file = readdirSync(join(dir, 'audit')).find((f) => f.endsWith('-order-events.jsonl')) as string;
    const exported = readFileSync(join(dir, 'audit', file), 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) => JSON.parse(l) as { chain: string; orderId: string | null; timeUtc: string; ownerReportingId: number },
      );
    for (const r of exported) expect(r.timeUtc).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const listed = new Set(exported.map((r) => `${r.chain}:${r.orderId}`));
    const missing = placed.map((e) => `${e.chain}:${(e.event as Received).orderId}`).filter((id) => !listed.has(id));
    expect(missing).toEqual([]);
    expect(new Set(exported.map((r) => r.ownerReportingId))).toEqual(new Set([21]));
  }, 600_000);
});
