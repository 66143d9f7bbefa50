/**
 * The wallets' records at the venue, read at start (`GET /wallets/byaddress/{address}`): `dlt-mm run` refuses to
 * start with a wallet the venue does not list as VERIFIED, naming it and its status, and warns about a
 * market-maker wallet the venue does not designate MARKET_MAKER.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/sandbox/net.ts';
import { startSandbox, type Sandbox } from '../../src/sandbox/venue/start.ts';
import { writeBotConfig } from '../support/e2e/bot-config.ts';
import { BotProcess } from '../support/e2e/bot-process.ts';
import { until } from '../support/e2e/poll.ts';

let dir: string;
let sandbox: Sandbox;
let running: BotProcess | undefined;

const marketMaker = (chain: 'evm' | 'wasm') => {
  const w = sandbox.manifest.wallets.find((x) => x.chain === chain && x.marketMaker);
  if (w === undefined) throw new Error(`no market-maker wallet on ${chain}`);
  return w.address;
};

async function setRecord(address: string, record: { status?: string; designation?: string }): Promise<void> {
  const res = await fetch(`${sandbox.manifest.venue.controlUrl}/wallets/${address}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(record),
  });
  if (!res.ok) throw new Error(`POST /wallets/${address}: ${res.status} ${await res.text()}`);
}

async function startBot(name: string): Promise<BotProcess> {
  const port = await freePort();
  const config = writeBotConfig({
    dir,
    name,
    manifest: sandbox.manifestPath as string,
    metricsPort: port,
    store: join(dir, `${name}.sqlite`),
    risk: { staleMarketDataMs: 15_000 },
  });
  running = new BotProcess(config, port, join(dir, `${name}.log`));
  return running;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dltmm-wallet-status-'));
  sandbox = await startSandbox({
    ports: { api: 0, evm: 0, wasm: 0 },
    evm: { blockTimeMs: 1_000 },
    wasm: { ledgerIntervalMs: 1_000 },
    manifest: join(dir, 'manifest.json'),
  });
}, 120_000);

afterAll(async () => {
  await running?.kill();
  await sandbox?.stop();
});

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
