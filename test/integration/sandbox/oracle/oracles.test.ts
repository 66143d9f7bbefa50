/**
 * The sandbox's price oracles on both chains: a real EDR node (automine) and the chain B emulator (a ledger
 * every 50 ms) behind its RPC server, the oracles deployed with the functions start.ts would call, the
 * operator publishing on a manual sandbox clock. Every published answer is read three ways and must agree:
 * chain A with ethers (AggregatorV3Interface as a human-readable ABI) and with the bot's `readAggregator`;
 * chain B with @stellar/stellar-sdk (`lastprice` simulated, decoded by `scValToNative`) and with the bot's
 * `readSep40`. Then the faults: a deviation while frozen publishes nothing, a jump publishes a wrong answer
 * that the next round corrects.
 */
import {
  Account,
  Address,
  Contract,
  Keypair,
  rpc,
  scValToNative,
  StrKey,
  TransactionBuilder,
  xdr,
} from '@stellar/stellar-sdk';
import { Contract as EvmContract, Interface, type JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AggregatorReader } from '../../../../src/chains/evm/price-oracle.ts';
import { Sep40Reader, NULL_ACCOUNT } from '../../../../src/chains/wasm/price-oracle.ts';
import { Decimal } from '../../../../src/core/decimal.ts';
import { sandboxProvider } from '../../../../src/sandbox/evm/chain.ts';
import { startEvmNode, type EvmNode } from '../../../../src/sandbox/evm/node.ts';
import { freePort } from '../../../../src/sandbox/net.ts';
import { deployEvmOracles, type EvmOracles } from '../../../../src/sandbox/oracle/evm.ts';
import { deployWasmOracles, type Sep40Asset, type WasmOracles } from '../../../../src/sandbox/oracle/wasm.ts';
import { SandboxClock } from '../../../../src/sandbox/venue/clock.ts';
import { deployVenue } from '../../../../src/sandbox/wasm/deploy.ts';
import { startWasmNode, type WasmNode } from '../../../../src/sandbox/wasm/node.ts';

const AGGREGATOR_ABI = [
  'function decimals() view returns (uint8)',
  'function description() view returns (string)',
  'function version() view returns (uint256)',
  'function getRoundData(uint80 _roundId) view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
  'event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt)',
  'event NewRound(uint256 indexed roundId, address indexed startedBy, uint256 startedAt)',
];
const HOUR = 3_600_000;
const BOND_TOKEN = StrKey.encodeContract(Buffer.alloc(32, 3));
const BOND: Sep40Asset = { stellar: BOND_TOKEN };
const FUND: Sep40Asset = { other: 'FUND1' };

const clock = new SandboxClock({ mode: 'manual' });
const values = { bond: new Decimal('101.234567891'), fund: new Decimal('99.5') };
let evmNode: EvmNode;
let provider: JsonRpcProvider;
let wasmNode: WasmNode;
let evm: EvmOracles;
let wasm: WasmOracles;

beforeAll(async () => {
  [evmNode, wasmNode] = await Promise.all([
    startEvmNode(),
    startWasmNode({ port: await freePort(), ledgerIntervalMs: 50 }),
  ]);
  provider = sandboxProvider(evmNode.rpcUrl);
  evm = await deployEvmOracles({
    rpcUrl: evmNode.rpcUrl,
    feeds: [{ id: 'BOND26EURe', description: 'BOND26 / EURe', value: () => values.bond }],
    nowMs: () => clock.nowMs(),
  });
  const venue = deployVenue(wasmNode.emulator, Keypair.fromRawEd25519Seed(Buffer.alloc(32, 5)));
  wasm = deployWasmOracles({
    emulator: wasmNode.emulator,
    admin: venue.operator,
    base: { other: 'EURe' },
    feeds: [
      { id: 'BOND26', asset: BOND, value: () => values.bond },
      { id: 'FUND1', asset: FUND, value: () => values.fund },
    ],
    nowMs: () => clock.nowMs(),
  });
});
afterAll(async () => {
  await evm?.operator.stop();
  await wasm?.operator.stop();
  provider?.destroy();
  await Promise.all([evmNode?.stop(), wasmNode?.stop()]);
});

/** Chain A, both ways: ethers' contract and the bot's reader; they must agree. */
async function readChainA() {
  const address = evm.feeds[0]?.address as string;
  const feed = new EvmContract(address, AGGREGATOR_ABI, provider);
  const [roundId, answer, startedAt, updatedAt, answeredInRound] = (await feed.getFunction('latestRoundData')()) as [
    bigint,
    bigint,
    bigint,
    bigint,
    bigint,
  ];
  const viaEthers = {
    roundId,
    answer,
    decimals: Number(await feed.getFunction('decimals')()),
    updatedAtSeconds: updatedAt,
    answeredInRound,
  };
  const viaBot = await new AggregatorReader(evmNode.rpcUrl).read(address);
  expect(viaBot).toEqual(viaEthers);
  expect(startedAt).toBe(updatedAt);
  return viaBot;
}

/** Chain B, both ways: the SDK's simulation and the bot's reader; they must agree. */
async function readChainB(asset: Sep40Asset) {
  const server = new rpc.Server(wasmNode.rpc.url, { allowHttp: true });
  const arg =
    'stellar' in asset
      ? xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('Stellar'), Address.fromString(asset.stellar).toScVal()])
      : xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('Other'), xdr.ScVal.scvSymbol(asset.other)]);
  const tx = new TransactionBuilder(new Account(NULL_ACCOUNT, '0'), {
    fee: '100',
    networkPassphrase: wasmNode.emulator.passphrase,
  })
    .addOperation(new Contract(wasm.contract.strkey).call('lastprice', arg))
    .setTimeout(0)
    .build();
  const sim = await server.simulateTransaction(tx);
  if (!rpc.Api.isSimulationSuccess(sim) || sim.result === undefined) throw new Error('lastprice did not simulate');
  const viaSdk = scValToNative(sim.result.retval) as { price: bigint; timestamp: bigint } | null;
  const viaBot = await new Sep40Reader(wasmNode.rpc.url, wasmNode.emulator.passphrase).read(
    wasm.contract.strkey,
    asset,
  );
  expect(viaBot === null ? null : { price: viaBot.price, timestamp: viaBot.timestampSeconds }).toEqual(viaSdk);
  return viaBot;
}

describe('chain A price feed', () => {
  it('publishes the first answer on start, scaled to 8 decimals, read alike by ethers and the bot', async () => {
    await evm.operator.start();
    const a = await readChainA();
    const block = await provider.getBlock('latest');
    // 101.234567891 to 8 places, half-even: 101.23456789.
    expect(a).toEqual({
      roundId: 1n,
      answer: 10_123_456_789n,
      decimals: 8,
      updatedAtSeconds: BigInt(block?.timestamp ?? 0),
      answeredInRound: 1n,
    });
    const feed = new EvmContract(evm.feeds[0]?.address as string, AGGREGATOR_ABI, provider);
    expect(await feed.getFunction('description')()).toBe('BOND26 / EURe');
    expect(await feed.getFunction('getRoundData')(1n)).toEqual([
      1n,
      10_123_456_789n,
      a.updatedAtSeconds,
      a.updatedAtSeconds,
      1n,
    ]);
    await expect(feed.getFunction('getRoundData')(2n)).rejects.toThrow(/No data present/);
  });

  it("emits Chainlink's NewRound and AnswerUpdated", async () => {
    const iface = new Interface(AGGREGATOR_ABI);
    const logs = await provider.getLogs({ address: evm.feeds[0]?.address, fromBlock: 0 });
    expect(logs.map((l) => iface.parseLog(l)).map((e) => [e?.name, ...(e?.args ?? [])])).toEqual([
      ['NewRound', 1n, evm.transmitter, expect.any(BigInt)],
      ['AnswerUpdated', 10_123_456_789n, 1n, expect.any(BigInt)],
    ]);
  });

  it('publishes nothing for a deviation while frozen, and the new value once unfrozen', async () => {
    await evm.operator.freeze();
    values.bond = new Decimal('104');
    expect(await evm.operator.poll()).toEqual([]);
    expect((await readChainA()).roundId).toBe(1n);
    evm.operator.unfreeze();
    expect(await evm.operator.poll()).toEqual([{ id: 'BOND26EURe', answer: 10_400_000_000n, reason: 'deviation' }]);
    expect(await readChainA()).toMatchObject({ roundId: 2n, answer: 10_400_000_000n, answeredInRound: 2n });
  });

  it('a jump publishes a wrong answer at once and the next round publishes the true value again', async () => {
    await evm.operator.jump(-200);
    expect(await readChainA()).toMatchObject({ roundId: 3n, answer: 10_192_000_000n });
    expect((await evm.operator.poll()).map((u) => u.reason)).toEqual(['correction']);
    expect(await readChainA()).toMatchObject({ roundId: 4n, answer: 10_400_000_000n });
  });

  it('publishes an unmoved value again when an hour of sandbox time has passed', async () => {
    expect(await evm.operator.poll()).toEqual([]);
    clock.advance(HOUR);
    expect((await evm.operator.poll()).map((u) => u.reason)).toEqual(['heartbeat']);
    expect(await readChainA()).toMatchObject({ roundId: 5n, answer: 10_400_000_000n });
  });
});

describe('chain B SEP-40 oracle', () => {
  it('has no price before the operator starts: lastprice is None both ways', async () => {
    expect(await readChainB(BOND)).toBeNull();
  });

  it('publishes every asset on start, at 14 decimals, stamped with the ledger tick, read alike by the SDK and the bot', async () => {
    const before = wasmNode.emulator.latest.closeTime;
    await wasm.operator.start();
    const bond = await readChainB(BOND);
    const fund = await readChainB(FUND);
    expect(bond).toMatchObject({ price: 10_400_000_000_000_000n, decimals: 14 });
    expect(fund).toMatchObject({ price: 9_950_000_000_000_000n, decimals: 14 });
    const t = bond?.timestampSeconds ?? 0n;
    expect(t % 300n).toBe(0n);
    expect(t).toBeGreaterThan(before - 300n);
    expect(t).toBeLessThanOrEqual(wasmNode.emulator.latest.closeTime);
    expect(fund?.timestampSeconds).toBe(t);
  });

  it('publishes nothing for a deviation while frozen, and only the moved asset once unfrozen', async () => {
    await wasm.operator.freeze('BOND26');
    values.bond = new Decimal('110.000000000000005');
    values.fund = new Decimal('101');
    expect(await wasm.operator.poll()).toEqual([{ id: 'FUND1', answer: 10_100_000_000_000_000n, reason: 'deviation' }]);
    expect((await readChainB(BOND))?.price).toBe(10_400_000_000_000_000n);
    expect((await readChainB(FUND))?.price).toBe(10_100_000_000_000_000n);
    wasm.operator.unfreeze('BOND26');
    // 110.000000000000005 to 14 places, half-even: 110.00000000000000.
    expect(await wasm.operator.poll()).toEqual([
      { id: 'BOND26', answer: 11_000_000_000_000_000n, reason: 'deviation' },
    ]);
    expect((await readChainB(BOND))?.price).toBe(11_000_000_000_000_000n);
  });

  it('a jump publishes a wrong answer at once and the next round publishes the true value again', async () => {
    await wasm.operator.jump(150, 'FUND1');
    expect((await readChainB(FUND))?.price).toBe(10_251_500_000_000_000n);
    expect((await readChainB(BOND))?.price).toBe(11_000_000_000_000_000n);
    expect(await wasm.operator.poll()).toEqual([
      { id: 'FUND1', answer: 10_100_000_000_000_000n, reason: 'correction' },
    ]);
    expect((await readChainB(FUND))?.price).toBe(10_100_000_000_000_000n);
  });
});
