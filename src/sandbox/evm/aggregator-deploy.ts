/**
 * The chain A price feed contract (`PriceAggregator.sol`, Chainlink's AggregatorV3Interface): deployment and
 * the calldata of its transmitter's one write, `transmit(int256)`.
 */
import { Interface, type Contract, type Wallet } from 'ethers';
import { DltError } from '../../core/errors.ts';
import { deployContract } from './chain.ts';
import { loadArtifacts } from './compile.ts';

export interface AggregatorArgs {
  /** Decimal places of the answers (Chainlink's price feeds use 8 for most fiat-quoted pairs). */
  readonly decimals: number;
  /** The feed's name, as `description()` answers it, e.g. `BOND26 / EURe`. */
  readonly description: string;
  /** The only account that may `transmit`. */
  readonly transmitter: string;
}

export function deployAggregator(deployer: Wallet, a: AggregatorArgs): Promise<Contract> {
  if (!Number.isInteger(a.decimals) || a.decimals < 0 || a.decimals > 255)
    throw new DltError('E_SANDBOX', `aggregator decimals must fit a uint8, got ${a.decimals}`, {
      details: { part: 'evm-deploy' },
    });
  return deployContract('PriceAggregator', deployer, [a.decimals, a.description, a.transmitter]);
}

let iface: Interface | undefined;

/** Calldata of `transmit(answer)`: starts and answers the next round. */
export function transmitCalldata(answer: bigint): string {
  iface ??= new Interface(loadArtifacts().contracts.PriceAggregator.abi as never);
  return iface.encodeFunctionData('transmit', [answer]);
}
