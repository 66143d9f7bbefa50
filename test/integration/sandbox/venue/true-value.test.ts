/**
 * The sandbox's hidden true value, as the world sees it, on one running sandbox (fast blocks and ledgers, a
 * manual clock, values that move only when a test shocks them, oracles that publish only when asked):
 * the manifest's fair-value facts pass the bot's own manifest reader; a feed serves the pair's true value of
 * a second ago within its noise; the chain A aggregator (ethers, the standard ABI) and the chain B SEP-40
 * contract (stellar-sdk) answer the operator's value; the fund's NAV is published at the sandbox's day
 * boundary; the faults of feeds and oracles; informed takers pick off the lagging background maker after
 * news, and the flow statistics say so from the venue's view.
 */
import { Account, Address, Contract, rpc, scValToNative, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { Contract as EvmContract, JsonRpcProvider, Network } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NULL_ACCOUNT } from '../../../../src/chains/wasm/price-oracle.ts';
import { readManifest } from '../../../../src/cli/bootstrap/manifest.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { dailyNav } from '../../../../src/sandbox/value/nav-schedule.ts';
import type { Sandbox } from '../../../../src/sandbox/venue/start.ts';
import { control, get, startTestSandbox, until, type Json } from '../../../support/sandbox/api/sandbox-clients.ts';

const AGGREGATOR_ABI = [
  'function decimals() view returns (uint8)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
];
const BOND = 'tp-evm-bond26-eure';
const XBOND = 'tp-evm-xbond26-eure';
const FUND = 'tp-wasm-fund1-eure';
const GRN = 'tp-wasm-grn27-eure';

let sb: Sandbox;
let provider: JsonRpcProvider;
let server: rpc.Server;

beforeAll(async () => {
  sb = await startTestSandbox({
    clock: { mode: 'manual', start: '2026-11-26T10:00:00Z' },
    flow: {
      enabled: true,
      volatility: 0,
      yieldVolatilityBps: 0,
      takerIntervalMs: 150,
      makerTickMs: 300,
      informedShare: 0.5,
    },
    feeds: { sampleMs: 50 },
    oracles: { pollMs: 3_600_000 },
  });
  provider = new JsonRpcProvider(sb.manifest.chains.evm.rpcUrl, Network.from(sb.manifest.chains.evm.chainId), {
    staticNetwork: true,
    batchMaxCount: 1,
  });
  server = new rpc.Server(sb.manifest.chains.wasm.rpcUrl, { allowHttp: true });
});

afterAll(async () => {
  provider?.destroy();
  await sb?.stop();
});

const factsOf = (id: string) => sb.manifest.pairs.find((p) => p.id === id)?.fairValue;

async function feed(id: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(factsOf(id)?.feedUrl as string);
  return { status: res.status, body: await res.json() };
}

/** Chain A: the aggregator's latest round, read with ethers through the public RPC. */
async function aggregator(id: string): Promise<{ roundId: bigint; answer: Decimal }> {
  const c = new EvmContract(factsOf(id)?.oracle?.address as string, AGGREGATOR_ABI, provider);
  const [roundId, answer] = (await c.getFunction('latestRoundData')()) as [bigint, bigint];
  const decimals = Number(await c.getFunction('decimals')());
  return { roundId, answer: new Decimal(answer.toString()).div(new Decimal(10).pow(decimals)) };
}

/** Chain B: `lastprice(Stellar(base token))` of the SEP-40 contract, simulated with stellar-sdk. */
async function sep40(id: string): Promise<{ price: Decimal; timestamp: bigint }> {
  const o = factsOf(id)?.oracle;
  const call = (fn: string, ...args: xdr.ScVal[]) =>
    new TransactionBuilder(new Account(NULL_ACCOUNT, '0'), {
      fee: '100',
      networkPassphrase: sb.manifest.chains.wasm.networkPassphrase,
    })
      .addOperation(new Contract(o?.address as string).call(fn, ...args))
      .setTimeout(0)
      .build();
  const read = async (fn: string, ...args: xdr.ScVal[]) => {
    const sim = await server.simulateTransaction(call(fn, ...args));
    if (!rpc.Api.isSimulationSuccess(sim) || sim.result === undefined) throw new Error(`${fn} did not simulate`);
    return scValToNative(sim.result.retval) as unknown;
  };
  const asset = xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('Stellar'), Address.fromString(o?.asset as string).toScVal()]);
  const last = (await read('lastprice', asset)) as { price: bigint; timestamp: bigint };
  const decimals = Number(await read('decimals'));
  return { price: new Decimal(last.price.toString()).div(new Decimal(10).pow(decimals)), timestamp: last.timestamp };
}

const bpsApart = (a: Decimal, b: Decimal) => a.div(b).sub(1).abs().mul(10_000).toNumber();

describe('the manifest', () => {
  it("lists every pair's feed and oracle in the bot's shape, and the bot's reader accepts it", () => {
    const read = readManifest(JSON.stringify(sb.manifest), 'manifest');
    expect(read.problems).toEqual([]);
    const origin = new URL(sb.manifest.venue.restUrl).origin;
    const evmFeeds = new Map(sb.oracles.evm?.feeds.map((f) => [f.id, f.address]));
    const wasmPair = (id: string) => sb.manifest.pairs.find((p) => p.id === id);
    expect(read.manifest?.pairs.find((p) => p.id === BOND)?.fairValue).toEqual({
      feedUrl: `${origin}/sandbox/feeds/BOND26EURe`,
      yieldFeedUrl: `${origin}/sandbox/feeds/BOND26EURe`,
      bond: { convention: 'clean', nominalPerToken: '100' },
      oracle: { address: evmFeeds.get(BOND) },
    });
    expect(factsOf(XBOND)).toMatchObject({ bond: { convention: 'dirty' }, oracle: { address: evmFeeds.get(XBOND) } });
    expect(factsOf(GRN)?.bond).toEqual({ convention: 'clean', nominalPerToken: '50' });
    expect(factsOf(FUND)).toEqual({
      feedUrl: `${origin}/sandbox/feeds/FUND1EURe`,
      oracle: { address: sb.oracles.wasm?.contract.strkey, asset: wasmPair(FUND)?.baseToken.strkey },
    });
    expect(factsOf(GRN)?.oracle).toEqual({
      address: sb.oracles.wasm?.contract.strkey,
      asset: wasmPair(GRN)?.baseToken.strkey,
    });
    expect(factsOf(BOND)?.oracle?.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });
});

describe('the price feed', () => {
  it("serves the pair's true value of a second ago within its noise, the yield of a bond, and the observation time", async () => {
    // A feed younger than its delay serves its first observation: wait until it has a second's history.
    await until(
      () => feed(FUND),
      (r) => r.body.timestamp <= Date.now() - 1000,
      'a second of feed history',
    );
    for (const id of [BOND, FUND]) {
      const before = Date.now();
      const { status, body } = await feed(id);
      const after = Date.now();
      expect(status).toBe(200);
      const sample = sb.values.at(id, body.timestamp);
      expect(sample?.wallMs).toBe(body.timestamp);
      // 2 bp of noise, one standard deviation: 10 bp is five of them.
      expect(bpsApart(new Decimal(body.price), sample?.value as Decimal)).toBeLessThan(10);
      expect(body.timestamp).toBeLessThanOrEqual(after - 1000);
      expect(body.timestamp).toBeGreaterThan(before - 1000 - 500);
      expect(body.symbol).toBe(sb.state.pair(id)?.symbol);
      // A bond's yield (without noise); a fund has none.
      expect(body.yield).toBe(sample?.yieldPercent?.toDecimalPlaces(8).toFixed());
    }
    expect((await control(sb, 'GET', '/feeds/NOPE')).status).toBe(404);
  });
});

describe('the oracles', () => {
  it("answer the operator's value: the chain A aggregator with ethers, the chain B contract with stellar-sdk", async () => {
    const answers = new Map(sb.oracles.state().map((f) => [f.id, f]));
    for (const id of [BOND, XBOND]) {
      const a = await aggregator(id);
      const state = answers.get(id);
      expect(a.answer.mul(1e8).toFixed()).toBe(state?.answer?.toString());
      expect(bpsApart(a.answer, sb.values.value(id))).toBeLessThan(50);
    }
    for (const id of [FUND, GRN]) {
      const b = await sep40(id);
      expect(b.price.mul(1e14).toFixed()).toBe(answers.get(id)?.answer?.toString());
      expect(bpsApart(b.price, sb.values.value(id))).toBeLessThan(50);
      expect(b.timestamp % 300n).toBe(0n);
    }
  });
});

describe('the NAV', () => {
  it("is published at the sandbox day boundary: the fund's value then, dated the day that ended", async () => {
    const before = (await get(sb, '/financialinstruments/fi-fund1')).body.performanceData;
    expect(before.navLastUpdate).toBe('2026-11-25');
    await control(sb, 'POST', '/clock/advance', { hours: 24 });
    const after = (await get(sb, '/financialinstruments/fi-fund1')).body.performanceData;
    expect(after.navLastUpdate).toBe('2026-11-26');
    const boundary = dailyNav(sb.clock.nowMs());
    expect(after.nav).toBe(sb.values.nav(FUND)?.value.toDecimalPlaces(6).toFixed());
    expect(sb.values.nav(FUND)?.atMs).toBe(boundary.atMs);
  });
});

describe('faults', () => {
  it('feed down answers 503 until cleared', async () => {
    expect((await control(sb, 'POST', '/faults/feed', { mode: 'down', pair: 'BOND26EURe' })).body.feeds).toEqual({
      [BOND]: 'down',
    });
    expect((await feed(BOND)).status).toBe(503);
    expect((await feed(FUND)).status).toBe(200);
    await control(sb, 'DELETE', '/faults/feed');
    expect((await feed(BOND)).status).toBe(200);
  });

  it('a stale feed keeps serving its last document with its old timestamp; DELETE /faults clears it and frozen oracles', async () => {
    await control(sb, 'POST', '/faults/feed', { mode: 'stale', pair: FUND });
    const frozen = (await feed(FUND)).body;
    const fresh = await until(
      () => feed(BOND),
      (r) => r.body.timestamp > frozen.timestamp + 200,
      'the other feeds to move on',
    );
    expect(fresh.status).toBe(200);
    expect((await feed(FUND)).body).toEqual(frozen);
    await control(sb, 'POST', '/faults/oracle', { mode: 'freeze' });
    expect((await control(sb, 'GET', '/faults')).body.oraclesFrozen).toHaveLength(4);
    const cleared = (await control(sb, 'DELETE', '/faults')).body;
    expect([cleared.feeds, cleared.oraclesFrozen]).toEqual([{}, []]);
    expect((await feed(FUND)).body.timestamp).toBeGreaterThan(frozen.timestamp);
  });

  it('a frozen oracle publishes nothing after a move beyond its deviation; unfrozen, it publishes the move', async () => {
    const first = await aggregator(BOND);
    await control(sb, 'POST', '/faults/oracle', { mode: 'freeze', pair: 'BOND26EURe' });
    sb.values.shock(BOND, 200);
    const moved = sb.values.value(BOND);
    expect(bpsApart(moved, first.answer)).toBeGreaterThan(150);
    // (The other oracles may publish their heartbeat: the clock moved a day.)
    expect((await sb.oracles.poll()).filter((u) => u.id === BOND)).toEqual([]);
    expect((await aggregator(BOND)).roundId).toBe(first.roundId);
    expect((await control(sb, 'GET', '/faults')).body.oraclesFrozen).toEqual([BOND]);
    await control(sb, 'DELETE', '/faults/oracle');
    expect((await sb.oracles.poll()).map((u) => [u.id, u.reason])).toEqual([[BOND, 'deviation']]);
    const after = await aggregator(BOND);
    expect(after.roundId).toBe(first.roundId + 1n);
    expect(bpsApart(after.answer, moved)).toBeLessThan(0.01);
  });

  it('an oracle jump publishes a value that far from the true value at once; the next round corrects it', async () => {
    const truth = sb.values.value(FUND);
    const answer = await control(sb, 'POST', '/faults/oracle', { mode: 'jump', bps: 300, pair: 'FUND1EURe' });
    expect(answer.status).toBe(200);
    expect(answer.body.published.map((u: Json) => [u.pair, u.reason])).toEqual([[FUND, 'jump']]);
    expect(bpsApart((await sep40(FUND)).price, truth.mul('1.03'))).toBeLessThan(0.01);
    expect((await sb.oracles.poll()).map((u) => [u.id, u.reason])).toEqual([[FUND, 'correction']]);
    expect(bpsApart((await sep40(FUND)).price, sb.values.value(FUND))).toBeLessThan(0.01);
    expect((await control(sb, 'POST', '/faults/oracle', { mode: 'jump', pair: FUND })).status).toBe(400);
  });
});

describe('informed takers', () => {
  it('pick off the lagging background maker after news, from their own wallets, as the venue sees it', async () => {
    const before = sb.values.value(FUND);
    sb.values.shock(FUND, 150);
    const flow = await until(
      async () => (await control(sb, 'GET', '/flow')).body,
      (f) => Object.keys(f.pairs[FUND].takers.informed.fillsByWallet).length > 0,
      'an informed taker to buy from the maker',
    );
    const fund = flow.pairs[FUND];
    // The maker's view trails the news (a half-life of a minute): it has not gone half the way yet.
    const reference = new Decimal(fund.makerReference);
    expect(reference.lt(before.add(sb.values.value(FUND)).div(2))).toBe(true);
    expect(bpsApart(new Decimal(flow.trueValues[FUND].value), sb.values.value(FUND))).toBeLessThan(0.1);
    expect(flow.trueValues[BOND].yield).toMatch(/^[0-9]+\.[0-9]+$/);
    const ask = sb.manifest.simulatedTraders.find((t) => t.name === `flow-maker-ask-${FUND}`)?.address as string;
    expect(Object.keys(fund.takers.informed.fillsByWallet)).toEqual([ask]);
    expect(fund.takers.informed.fillsByWallet[ask].fills).toBeGreaterThan(0);
    expect(fund.takers.informed.orders).toBeGreaterThan(0);
    const names = sb.manifest.simulatedTraders.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['flow-informed-evm', `flow-informed-${FUND}`, `flow-informed-${GRN}`]),
    );
    expect(Object.values(flow.pairs).some((p: Json) => p.takers.uninformed.orders > 0)).toBe(true);
  });
});
