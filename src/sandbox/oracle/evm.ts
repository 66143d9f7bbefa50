/**
 * Chain A price feeds for the sandbox: one Chainlink-compatible aggregator per feed, deployed on a running
 * node, and the oracle operator that transmits their answers.
 *
 * The aggregators are deployed and answered by the oracle's own account (by default the sandbox's throwaway
 * key `oracle operator`, given gas money here), not by the venue operator: the sandbox's venue operator
 * sends through an `EvmSender`, which counts its nonces locally, and a second sender on the same key would
 * spoil that count. Each update is its own `transmit` transaction; the updates of a round share a block.
 */
import { Wallet } from 'ethers';
import { DltError } from '../../core/errors.ts';
import { deployAggregator, transmitCalldata } from '../evm/aggregator-deploy.ts';
import { fundNative, sandboxKey, sandboxProvider, withAutomine } from '../evm/chain.ts';
import { rpc } from '../evm/node.ts';
import { EvmSender } from '../venue/evm-sender.ts';
import {
  createOracleOperator,
  type OracleFeedSource,
  type OracleOperator,
  type OracleOperatorOptions,
} from './operator.ts';

/** Chainlink's decimals for fiat-quoted feeds. */
export const EVM_ORACLE_DECIMALS = 8;
const TRANSMIT_GAS = 200_000n;

export interface EvmOracleFeed extends OracleFeedSource {
  /** `description()` of the aggregator; default the feed id. */
  readonly description?: string;
}

export interface EvmOraclesOptions extends OracleOperatorOptions {
  /** The node's RPC URL (start.ts: `node.rpcUrl`). */
  readonly rpcUrl: string;
  readonly feeds: readonly EvmOracleFeed[];
  /** Decimal places of every answer; default 8. */
  readonly decimals?: number;
  /** Deploys the aggregators and transmits; default the throwaway key `oracle operator`. */
  readonly privateKey?: string;
}

export interface EvmOracleAddress {
  readonly id: string;
  /** The aggregator, 0x address. */
  readonly address: string;
  readonly description: string;
  readonly decimals: number;
}

export interface EvmOracles {
  /** The account that deployed the aggregators and is their only transmitter. */
  readonly transmitter: string;
  readonly feeds: readonly EvmOracleAddress[];
  readonly operator: OracleOperator;
}

/** Deploys an aggregator per feed and returns them with their operator (not started: call `start()`). */
export async function deployEvmOracles(options: EvmOraclesOptions): Promise<EvmOracles> {
  const decimals = options.decimals ?? EVM_ORACLE_DECIMALS;
  const privateKey = options.privateKey ?? sandboxKey('oracle operator');
  const chainId = Number(BigInt((await rpc(options.rpcUrl, 'eth_chainId', [])) as string));
  const provider = sandboxProvider(options.rpcUrl, chainId);
  let feeds: EvmOracleAddress[];
  const wallet = new Wallet(privateKey, provider);
  try {
    feeds = await withAutomine(provider, async () => {
      await fundNative(provider, wallet.address);
      const out: EvmOracleAddress[] = [];
      for (const f of options.feeds) {
        const description = f.description ?? f.id;
        const c = await deployAggregator(wallet, { decimals, description, transmitter: wallet.address });
        out.push({ id: f.id, address: await c.getAddress(), description, decimals });
      }
      return out;
    });
  } finally {
    provider.destroy();
  }
  const sender = new EvmSender({ rpcUrl: options.rpcUrl, privateKey, chainId, pollMs: 50 });
  const operator = createOracleOperator(
    options.feeds,
    decimals,
    async (updates) => {
      const receipts = await Promise.all(
        updates.map((u) =>
          sender.send((feeds[u.index] as EvmOracleAddress).address, transmitCalldata(u.answer), TRANSMIT_GAS),
        ),
      );
      const failed = receipts.filter((r) => !r.status);
      if (failed.length > 0)
        throw new DltError('E_SANDBOX', `chain A oracle transmit reverted (${failed.map((r) => r.hash).join(', ')})`, {
          details: { part: 'oracle', hashes: failed.map((r) => r.hash) },
        });
    },
    options,
  );
  return { transmitter: wallet.address, feeds, operator };
}
