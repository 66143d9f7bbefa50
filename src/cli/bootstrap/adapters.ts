/** The chain adapter of each wallet, tuned by the configuration the same way for every command. */
import { Keypair } from '@stellar/stellar-sdk';
import { EvmAdapter } from '../../chains/evm/evm-adapter.ts';
import type { ChainAdapter } from '../../chains/types.ts';
import { WasmAdapter } from '../../chains/wasm/wasm-adapter.ts';
import type { Clock } from '../../core/clock.ts';
import type { BotConfig } from '../../core/config/bot-config.ts';
import { EVM_DEFAULTS } from '../../core/config/chain-defaults.ts';
import { Decimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import { baseToNative, quoteToNative, toScaled } from '../../core/units.ts';
import type { Store } from '../../store/store.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Metrics } from '../../telemetry/metrics.ts';
import type { Connection, WalletSetup } from './connection.ts';
import type { WalletPair } from './pairs.ts';

export interface AdapterTuning {
  /** Chain A blocks on top before an event is final (a sandbox does not reorganise: 1 is enough). */
  readonly evmConfirmations?: number;
  /** Chain A block the books' history starts at (a fresh state file reads the wallet's orders from it). */
  readonly evmHistoryFromBlock?: number;
  /** Chain A cap on the EIP-1559 max fee per gas, wei. */
  readonly maxFeePerGasCap?: bigint;
  /** Chain B approval lifetime, ledgers. */
  readonly approvalLedgers?: number;
  /** Allowance kept approved beyond the next order, per pair id and token, native units. */
  readonly budgets?: Readonly<Record<string, Partial<Record<'base' | 'quote', bigint>>>>;
}

/** The configuration's tuning of a wallet's adapter: a command sees and acts on the chain as the bot does. */
/** The allowance budgets of the pairs' entries (`pairs[].allowanceBudget`), per pair id, native units. */
export function budgetsOf(
  pairs: ReadonlyArray<Pick<WalletPair, 'binding' | 'entry'>>,
): Record<string, Partial<Record<'base' | 'quote', bigint>>> {
  const budgets: Record<string, Partial<Record<'base' | 'quote', bigint>>> = {};
  for (const { binding, entry } of pairs) {
    const b = entry?.allowanceBudget;
    if (b === undefined) continue;
    const s = binding.rules.scales;
    budgets[binding.pairId] = {
      ...(b.base === undefined ? {} : { base: baseToNative(new Decimal(b.base), s) }),
      ...(b.quote === undefined ? {} : { quote: quoteToNative(new Decimal(b.quote), s) }),
    };
  }
  return budgets;
}

/**
 * The blocks on top of a chain A event before the bot reads it as final: as configured (else the default), and
 * 1 on the sandbox, whose node does not reorganise.
 */
export function evmConfirmations(config: BotConfig, sandbox: boolean): number {
  return sandbox ? 1 : (config.chains.evm?.confirmations ?? EVM_DEFAULTS.confirmations);
}

export function tuningOf(config: BotConfig, connection: Connection, pairs: readonly WalletPair[]): AdapterTuning {
  const budgets = budgetsOf(pairs);
  const gwei = config.chains.evm?.maxFeePerGasGwei;
  return {
    evmConfirmations: evmConfirmations(config, connection.sandbox),
    evmHistoryFromBlock: config.chains.evm?.historyFromBlock ?? EVM_DEFAULTS.historyFromBlock,
    ...(gwei === undefined
      ? {}
      : { maxFeePerGasCap: toScaled(new Decimal(gwei), 10n ** 9n, 'chains.evm.maxFeePerGasGwei') }),
    ...(config.chains.wasm === undefined ? {} : { approvalLedgers: config.chains.wasm.approvalLedgers }),
    ...(Object.keys(budgets).length === 0 ? {} : { budgets }),
  };
}

export interface AdapterParts {
  readonly store: Store;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly clock: Clock;
}

export function adapterOf(
  w: WalletSetup,
  c: Connection,
  parts: AdapterParts,
  tuning: AdapterTuning = {},
): ChainAdapter {
  if (w.chain === 'evm') {
    if (c.evm === undefined) throw new DltError('E_CONFIG_INVALID', `wallet ${w.id}: chains.evm is not configured`);
    return new EvmAdapter({
      rpcUrl: c.evm.rpcUrl,
      chainId: BigInt(c.evm.chainId),
      privateKey: w.key,
      journal: parts.store.transactions,
      state: parts.store.state,
      logger: parts.logger,
      metrics: parts.metrics,
      clock: parts.clock,
      follower: {
        ...(tuning.evmConfirmations === undefined ? {} : { confirmations: tuning.evmConfirmations }),
        historyFromBlock: BigInt(tuning.evmHistoryFromBlock ?? EVM_DEFAULTS.historyFromBlock),
      },
      ...(tuning.maxFeePerGasCap === undefined ? {} : { fees: { maxFeePerGasCap: tuning.maxFeePerGasCap } }),
      ...(tuning.budgets === undefined ? {} : { approvals: { budgets: tuning.budgets } }),
    });
  }
  if (c.wasm === undefined) throw new DltError('E_CONFIG_INVALID', `wallet ${w.id}: chains.wasm is not configured`);
  return new WasmAdapter({
    rpcUrl: c.wasm.rpcUrl,
    networkPassphrase: c.wasm.networkPassphrase,
    tradingKey: Keypair.fromSecret(w.key),
    channelKeys: w.channels.map((s) => Keypair.fromSecret(s)),
    journal: parts.store.transactions,
    state: parts.store.state,
    logger: parts.logger,
    metrics: parts.metrics,
    clock: parts.clock,
    ...(tuning.approvalLedgers === undefined && tuning.budgets === undefined
      ? {}
      : {
          approvals: {
            ...(tuning.approvalLedgers === undefined ? {} : { lifetimeLedgers: tuning.approvalLedgers }),
            ...(tuning.budgets === undefined ? {} : { budgets: tuning.budgets }),
          },
        }),
  });
}
