/**
 * ethers v6 plumbing for the sandbox's chain A: a provider tuned for a local node, deterministic throwaway
 * keys, native-token funding, contract deployment from the compiled artefacts, and switching automine on
 * for bulk set-up.
 */
import {
  Contract,
  ContractFactory,
  JsonRpcProvider,
  Network,
  Wallet,
  keccak256,
  toQuantity,
  toUtf8Bytes,
  type ContractRunner,
} from 'ethers';
import { loadArtifacts, type ContractName } from './compile.ts';
import { EVM_CHAIN_ID } from './node.ts';

/**
 * A provider for a node on this machine: the chain id is fixed (no eth_chainId before every call), requests
 * are not batched (batching only adds a stall on a local node) and nothing is cached, so a read right after a
 * transaction sees it.
 */
export function sandboxProvider(rpcUrl: string, chainId = EVM_CHAIN_ID): JsonRpcProvider {
  return new JsonRpcProvider(rpcUrl, Network.from(chainId), {
    staticNetwork: true,
    batchMaxCount: 1,
    cacheTimeout: -1,
    pollingInterval: 100,
  });
}

/**
 * The sandbox's throwaway private key for a label ("operator", "commission", a wallet name): derived, so a
 * sandbox's addresses are the same on every start. Test material only; never use it for value.
 */
export function sandboxKey(label: string): string {
  return keccak256(toUtf8Bytes(`dlt-mm sandbox throwaway key: ${label}`));
}

export function sandboxWallet(label: string, provider: JsonRpcProvider): Wallet {
  return new Wallet(sandboxKey(label), provider);
}

export const DEFAULT_NATIVE_BALANCE = 10n ** 21n; // 1000 native test tokens for gas

/** Sets an account's native balance (gas money); a node-level call, not a transaction. */
export async function fundNative(
  provider: JsonRpcProvider,
  address: string,
  wei: bigint = DEFAULT_NATIVE_BALANCE,
): Promise<void> {
  await provider.send('hardhat_setBalance', [address, toQuantity(wei)]);
}

export async function deployContract(name: ContractName, signer: Wallet, args: readonly unknown[]): Promise<Contract> {
  const a = loadArtifacts().contracts[name];
  const factory = new ContractFactory(a.abi as never, a.bytecode, signer);
  const contract = await factory.deploy(...args);
  await contract.waitForDeployment();
  return contract as Contract;
}

export function contractAt(name: ContractName, address: string, runner: ContractRunner): Contract {
  return new Contract(address, loadArtifacts().contracts[name].abi as never, runner);
}

/** Sends a contract transaction and waits for its receipt; a revert throws (ethers' CALL_EXCEPTION). */
export async function send(contract: Contract, method: string, args: readonly unknown[]): Promise<void> {
  const fn = contract.getFunction(method);
  const tx = await fn.send(...args);
  await tx.wait();
}

/**
 * Runs `fn` with a block per transaction, then restores the node's mining mode: set-up of hundreds of
 * transactions must not wait for interval blocks.
 */
export async function withAutomine<T>(provider: JsonRpcProvider, fn: () => Promise<T>): Promise<T> {
  const was = (await provider.send('hardhat_getAutomine', [])) as boolean;
  if (!was) await provider.send('evm_setAutomine', [true]);
  try {
    return await fn();
  } finally {
    if (!was) await provider.send('evm_setAutomine', [false]);
  }
}
