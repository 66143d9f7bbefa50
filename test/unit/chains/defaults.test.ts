/**
 * The chains' defaults are written once (`src/core/config/chain-defaults.ts`): a minimal configuration
 * parsed by the schema, the adapters' own defaults when nothing is given, and what the composition root
 * hands the adapters must agree.
 */
import { Keypair } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { EvmAdapter } from '../../../src/chains/evm/evm-adapter.ts';
import type { ApprovalStore, NonceJournal } from '../../../src/chains/ports.ts';
import { resolveOptions as resolveWasmOptions } from '../../../src/chains/wasm/options.ts';
import { tuningOf } from '../../../src/cli/bootstrap/adapters.ts';
import type { Connection } from '../../../src/cli/bootstrap/connection.ts';
import { chainsSchema } from '../../../src/core/config/chains-config.ts';
import { parseBotConfig } from '../../../src/core/config/load.ts';
import { minimalBotYaml } from '../../support/config/minimal-bot.ts';

const journal: NonceJournal = {
  recordSigned: () => undefined,
  mark: () => undefined,
  get: () => undefined,
  open: () => [],
  atSequence: () => [],
};
const approvals: ApprovalStore = { approval: () => undefined, setApproval: () => undefined };

const minimal = chainsSchema.parse({
  evm: { rpcUrl: 'http://127.0.0.1:1/' },
  wasm: { rpcUrl: 'http://127.0.0.1:2/', networkPassphrase: 'Test SDF Network ; September 2015' },
});

const botYaml = minimalBotYaml([
  "evm: { rpcUrl: 'https://rpc.example' }",
  "wasm: { rpcUrl: 'https://soroban.example', networkPassphrase: 'Test SDF Network ; September 2015' }",
]);

/** The default the schema's description gives the fee cap (it has no schema default: the adapter's applies). */
function describedFeeCapGwei(): bigint {
  const evm = chainsSchema.unwrap().shape.evm.unwrap();
  const match = /\(default (\d+)\)/.exec(evm.shape.maxFeePerGasGwei.description ?? '');
  return BigInt(match?.[1] ?? '-1');
}

describe('chain defaults', () => {
  it("a chain A adapter given nothing uses the schema's defaults", () => {
    const evm = minimal.evm!;
    const adapter = new EvmAdapter({
      rpcUrl: evm.rpcUrl,
      chainId: BigInt(evm.chainId),
      privateKey: `0x${'42'.repeat(32)}`,
      journal,
    });
    expect({
      confirmations: adapter.options.follower.confirmations,
      historyFromBlock: adapter.options.follower.historyFromBlock,
      maxFeePerGasCap: adapter.options.fees.maxFeePerGasCap,
    }).toEqual({
      confirmations: evm.confirmations,
      historyFromBlock: BigInt(evm.historyFromBlock),
      maxFeePerGasCap: describedFeeCapGwei() * 10n ** 9n,
    });
  });

  it("a chain B adapter given nothing keeps approvals the schema's lifetime", () => {
    const wasm = minimal.wasm!;
    const options = resolveWasmOptions({
      rpcUrl: wasm.rpcUrl,
      networkPassphrase: wasm.networkPassphrase,
      tradingKey: Keypair.random(),
      journal,
      state: approvals,
    });
    expect(options.approvals.lifetimeLedgers).toBe(wasm.approvalLedgers);
  });

  it("the composition root hands the adapters a minimal configuration's defaults", () => {
    const config = parseBotConfig(botYaml, 'bot.yaml');
    const tuning = tuningOf(config, { sandbox: false } as Connection, []);
    expect({
      confirmations: tuning.evmConfirmations,
      historyFromBlock: tuning.evmHistoryFromBlock,
      approvalLedgers: tuning.approvalLedgers,
    }).toEqual({
      confirmations: minimal.evm!.confirmations,
      historyFromBlock: minimal.evm!.historyFromBlock,
      approvalLedgers: minimal.wasm!.approvalLedgers,
    });
  });
});
