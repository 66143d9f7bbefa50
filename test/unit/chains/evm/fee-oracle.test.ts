import { describe, expect, it } from 'vitest';
import { FeeOracle } from '../../../../src/chains/evm/fee-oracle.ts';
import { resolveOptions } from '../../../../src/chains/evm/options.ts';
import { silentLogger } from '../../../../src/telemetry/logger.ts';
import { hex, scripted } from '../../../support/chains/evm/scripted-rpc.ts';

const GWEI = 1_000_000_000n;
const base = resolveOptions({ rpcUrl: '', chainId: 1n, privateKey: '', journal: null as never }).fees;

function oracle(baseFee: { v: bigint }, tip: bigint | null, fees = base, clock = { now: () => 0 }) {
  const s = scripted({
    eth_feeHistory: () => ({ oldestBlock: '0x1', baseFeePerGas: ['0x1', hex(baseFee.v)], gasUsedRatio: [0.5] }),
    eth_maxPriorityFeePerGas: () => {
      if (tip === null) throw new Error('not supported');
      return hex(tip);
    },
  });
  return { s, o: new FeeOracle(s.client, fees, clock, silentLogger()) };
}

describe('chain A fees', () => {
  it('follows the node: twice the next base fee plus its priority fee suggestion', async () => {
    const { o } = oracle({ v: 30n * GWEI }, 2n * GWEI);
    expect(await o.suggest()).toEqual({ maxFeePerGas: 62n * GWEI, maxPriorityFeePerGas: 2n * GWEI });
  });

  it('never signs above the cap, and refuses when the base fee alone reaches it', async () => {
    const capped = { ...base, maxFeePerGasCap: 50n * GWEI, minPriorityFeePerGas: 3n * GWEI };
    const fee = { v: 30n * GWEI };
    const { o } = oracle(fee, null, capped);
    expect(await o.suggest()).toEqual({ maxFeePerGas: 50n * GWEI, maxPriorityFeePerGas: 3n * GWEI });
    fee.v = 50n * GWEI;
    const high = oracle(fee, null, capped).o;
    await expect(high.suggest()).rejects.toMatchObject({ code: 'E_CHAIN_TX_REFUSED' });
  });

  it('reuses a suggestion for a block and refreshes it in the background after that', async () => {
    let now = 0;
    const fee = { v: 10n * GWEI };
    const { s, o } = oracle(fee, 1n * GWEI, base, { now: () => now });
    await o.suggest();
    await o.suggest();
    expect(s.calls.filter((c) => c.method === 'eth_feeHistory')).toHaveLength(1);
    now = base.refreshMs;
    fee.v = 20n * GWEI;
    expect((await o.suggest()).maxFeePerGas).toBe(21n * GWEI);
    await Promise.resolve();
    await new Promise((r) => setImmediate(r));
    expect((await o.suggest()).maxFeePerGas).toBe(41n * GWEI);
  });

  it('bumps both fees by at least the configured percentage, and gives up at the cap', async () => {
    const { o } = oracle({ v: 10n * GWEI }, 1n * GWEI, { ...base, maxFeePerGasCap: 40n * GWEI });
    const bumped = await o.bump({ maxFeePerGas: 30n * GWEI, maxPriorityFeePerGas: 2n * GWEI });
    expect(bumped).toEqual({ maxFeePerGas: 34_500_000_000n, maxPriorityFeePerGas: 2_300_000_000n });
    expect(await o.bump({ maxFeePerGas: 38n * GWEI, maxPriorityFeePerGas: 2n * GWEI })).toBeNull();
  });
});
