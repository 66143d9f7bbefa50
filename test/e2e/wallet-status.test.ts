/**
 * The wallets' records at the venue, read at start (`GET /wallets/byaddress/{address}`): `dlt-mm run` refuses to
 * start with a wallet the venue does not list as VERIFIED, naming it and its status, and warns about a
 * market-maker wallet the venue does not designate MARKET_MAKER.
 */
import { describe, expect, it } from 'vitest';
import { until } from '../support/e2e/poll.ts';
import { SECOND_BLOCKS, sandboxSession, type SessionBot } from '../support/e2e/session.ts';

const session = sandboxSession('wallet-status', SECOND_BLOCKS);

const marketMaker = (chain: 'evm' | 'wasm') => {
  const w = session.sandbox.manifest.wallets.find((x) => x.chain === chain && x.marketMaker);
  if (w === undefined) throw new Error(`no market-maker wallet on ${chain}`);
  return w.address;
};

async function setRecord(address: string, record: { status?: string; designation?: string }): Promise<void> {
  const res = await fetch(`${session.sandbox.manifest.venue.controlUrl}/wallets/${address}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(record),
  });
  if (!res.ok) throw new Error(`POST /wallets/${address}: ${res.status} ${await res.text()}`);
}

function startBot(name: string): Promise<SessionBot> {
  return session.startBot(name, { risk: { staleMarketDataMs: 15_000 } });
}

describe("the wallets' records at the venue", () => {
  it('a wallet the venue lists as BLOCKED: the bot does not start, and says which wallet and why', async () => {
    await setRecord(marketMaker('evm'), { status: 'BLOCKED' });
    const bot = await startBot('blocked');
    const { code } = await bot.exited;
    const said = bot.output.join('\n');
    expect({
      code,
      named: said.includes(marketMaker('evm')),
      why: /E_WALLET_NOT_VERIFIED.*BLOCKED/s.test(said),
    }).toEqual({
      code: 1,
      named: true,
      why: true,
    });
  }, 120_000);

  it('a market-maker wallet the venue designates TRADING: the bot trades and warns once', async () => {
    await setRecord(marketMaker('evm'), { status: 'VERIFIED' });
    await setRecord(marketMaker('wasm'), { designation: 'TRADING' });
    const bot = await startBot('trading');
    await until('bot ready', 120_000, async () => {
      if (!bot.running) throw new Error(`the bot exited:\n${bot.tail()}`);
      return (await bot.readiness()).ready;
    });
    const warnings = bot.output.filter((l) => l.includes('not MARKET_MAKER'));
    expect(warnings.map((l) => (JSON.parse(l) as { address: string }).address)).toEqual([marketMaker('wasm')]);
    bot.signal('SIGTERM');
    expect((await bot.exited).code).toBe(0);
  }, 180_000);
});
