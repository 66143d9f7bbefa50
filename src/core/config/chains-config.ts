/** The chains' section of the bot configuration: their nodes, and what the adapters do with them. */
import { z } from 'zod';
import { EVM_DEFAULTS, WASM_DEFAULTS } from './chain-defaults.ts';
import { humanDecimal } from './common.ts';

export const chainsSchema = z
  .strictObject({
    evm: z
      .strictObject({
        rpcUrl: z.url().describe('Chain A JSON-RPC endpoint'),
        chainId: z
          .number()
          .int()
          .positive()
          .default(EVM_DEFAULTS.chainId)
          .describe('Checked against eth_chainId before the first transaction'),
        confirmations: z
          .number()
          .int()
          .min(0)
          .default(EVM_DEFAULTS.confirmations)
          .describe('Blocks on top before an event is final (fills, cancellations); a sandbox uses 1'),
        historyFromBlock: z
          .number()
          .int()
          .min(0)
          .default(EVM_DEFAULTS.historyFromBlock)
          .describe(
            "First block of the venue's books (their deployment): a fresh state file reads our order history from it",
          ),
        maxFeePerGasGwei: humanDecimal
          .optional()
          .describe(
            `Cap on the EIP-1559 max fee per gas, gwei (default ${EVM_DEFAULTS.maxFeePerGasGwei}); a base fee above it refuses to sign`,
          ),
      })
      .optional(),
    wasm: z
      .strictObject({
        rpcUrl: z.url().describe('Chain B (Soroban) RPC endpoint'),
        networkPassphrase: z.string().min(1).describe('Network passphrase transactions are signed for'),
        approvalLedgers: z
          .number()
          .int()
          .positive()
          .default(WASM_DEFAULTS.approvalLedgers)
          .describe('Approval lifetime in ledgers'),
      })
      .optional(),
  })
  .default({});
