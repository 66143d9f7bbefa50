/**
 * Deploys a whole chain A venue onto a running node from pair definitions: one client registry, one quote
 * e-money token per quote symbol (pairs share it, as on the venue), one restricted base token and one order
 * book per pair; then funds, whitelists and mints for the test wallets. This is the building block of the
 * sandbox command; `startEvmVenue` also starts the node.
 */
import { Wallet, type Contract } from 'ethers';
import { DltError } from '../../core/errors.ts';
import type { TradingPair } from '../../core/pair.ts';
import type { PairOverrides } from '../../core/rules.ts';
import type { BookParams, Phase } from '../matching/types.ts';
import { deployBaseToken, deployOrderBook, deployQuoteToken, deployRegistry } from './book-deploy.ts';
import { fundNative, sandboxKey, sandboxProvider, withAutomine } from './chain.ts';
import { startEvmNode, type EvmNode, type EvmNodeOptions } from './node.ts';
import { bookSettingsFromPair, completePair, decimalsOf, type PairDefinition } from './pair-params.ts';
import { checkWalletSymbols, setUpWallets } from './venue-wallets.ts';

export interface SandboxPairSpec {
  readonly pair: PairDefinition;
  readonly overrides?: PairOverrides;
  /** Phase at deployment; default open. */
  readonly phase?: Phase;
}

export interface SandboxWalletSpec {
  readonly name: string;
  /** Default: the sandbox's throwaway key for the name (same address on every start). */
  readonly privateKey?: string;
  readonly marketMaker?: boolean;
  /** In the client registry at all; default true. */
  readonly whitelisted?: boolean;
  readonly canBuy?: boolean;
  readonly canSell?: boolean;
  readonly canCancel?: boolean;
  readonly canTransfer?: boolean;
  /** May receive every base token; default true. */
  readonly beneficiary?: boolean;
  /** Human amounts to mint, by token symbol (a pair's base symbol or its quote symbol). */
  readonly balances?: Readonly<Record<string, string>>;
  /** Human allowances (or "unlimited") for every order book trading the token, by symbol; default none. */
  readonly allowances?: Readonly<Record<string, string>>;
  /** Native gas balance in wei; default 1000 tokens. */
  readonly nativeWei?: bigint;
}

export interface VenueSpec {
  readonly pairs: readonly SandboxPairSpec[];
  readonly wallets?: readonly SandboxWalletSpec[];
}

export interface VenueToken {
  readonly symbol: string;
  readonly kind: 'base' | 'quote';
  readonly address: string;
  readonly nativeScale: bigint;
  readonly decimals: number;
}

export interface DeployedPair {
  readonly id: string;
  /** The complete TradingPair, contract addresses included, as the venue API serves it. */
  readonly pair: TradingPair;
  /** Raw parameters the book runs on (`self` is its address, `commissionWallet` the fee wallet's). */
  readonly params: BookParams;
  readonly orderBook: string;
  readonly baseToken: string;
  readonly quoteToken: string;
}

export interface FundedWallet {
  readonly name: string;
  readonly address: string;
  readonly privateKey: string;
  readonly clientId: bigint;
  readonly marketMaker: boolean;
}

export interface KeyedAccount {
  readonly address: string;
  readonly privateKey: string;
}

export interface EvmVenue {
  readonly rpcUrl: string;
  readonly chainId: number;
  /** Deployer of every contract and the only caller of operator functions; also the fallback wallet. */
  readonly operator: KeyedAccount;
  readonly commissionWallet: KeyedAccount;
  readonly registry: string;
  readonly tokens: Readonly<Record<string, VenueToken>>;
  readonly pairs: readonly DeployedPair[];
  readonly wallets: readonly FundedWallet[];
}

function keyed(label: string): KeyedAccount {
  const privateKey = sandboxKey(label);
  return { address: new Wallet(privateKey).address, privateKey };
}

/** The venue's tokens, deployed on first use: a symbol is one token, of one kind and one scale. */
class TokenDeployer {
  readonly tokens: Record<string, VenueToken> = {};
  readonly contracts = new Map<string, Contract>();
  readonly #operator: Wallet;

  constructor(operator: Wallet) {
    this.#operator = operator;
  }

  async token(symbol: string, kind: 'base' | 'quote', nativeScale: bigint): Promise<Contract> {
    const known = this.tokens[symbol];
    if (known) {
      if (known.kind !== kind || known.nativeScale !== nativeScale) {
        throw new DltError(
          'E_SANDBOX',
          `token ${symbol} is used as ${known.kind} with scale ${known.nativeScale} and as ${kind} with ${nativeScale}`,
          { details: { part: 'evm-deploy', symbol } },
        );
      }
      return this.contracts.get(symbol) as Contract;
    }
    const decimals = decimalsOf(nativeScale, symbol);
    const contract =
      kind === 'base'
        ? await deployBaseToken(this.#operator, symbol, decimals)
        : await deployQuoteToken(this.#operator, symbol, decimals);
    this.tokens[symbol] = { symbol, kind, address: await contract.getAddress(), nativeScale, decimals };
    this.contracts.set(symbol, contract);
    return contract;
  }
}

/** A pair to deploy, with its book settings and base token symbol worked out before any transaction. */
interface PlannedPair {
  readonly spec: SandboxPairSpec;
  readonly settings: ReturnType<typeof bookSettingsFromPair>;
  readonly baseSymbol: string;
}

/** Everything that can be refused is checked before the first transaction. */
function planPairs(spec: VenueSpec): PlannedPair[] {
  const planned = spec.pairs.map((pairSpec) => ({
    spec: pairSpec,
    settings: bookSettingsFromPair(pairSpec.pair, pairSpec.overrides ?? {}),
    baseSymbol: pairSpec.pair.baseTokenData?.symbol ?? `${pairSpec.pair.id}-BASE`,
  }));
  const symbols = new Set(planned.flatMap((plan) => [plan.baseSymbol, plan.spec.pair.quoteTokenSymbol]));
  for (const wallet of spec.wallets ?? []) checkWalletSymbols(wallet, symbols);
  return planned;
}

/** What every order book is deployed with: the operator, the tokens, the registry, the commission wallet. */
interface BookDeployment {
  readonly operator: Wallet;
  readonly tokens: TokenDeployer;
  readonly registry: string;
  readonly commissionWallet: string;
}

/** Deploys one pair's order book (and its tokens, if no earlier pair did). */
async function deployPair(deployment: BookDeployment, plan: PlannedPair): Promise<DeployedPair> {
  const { spec: pairSpec, settings, baseSymbol } = plan;
  const base = await deployment.tokens.token(baseSymbol, 'base', settings.params.scales.baseNative);
  const quote = await deployment.tokens.token(
    pairSpec.pair.quoteTokenSymbol,
    'quote',
    settings.params.scales.quoteNative,
  );
  const args = {
    params: settings.params,
    baseToken: await base.getAddress(),
    quoteToken: await quote.getAddress(),
    registry: deployment.registry,
    commissionWallet: deployment.commissionWallet,
    fallbackWallet: deployment.operator.address,
    liquidityBand: settings.liquidityBand,
    version: settings.version,
    phase: pairSpec.phase ?? 'open',
  };
  const orderBook = await (await deployOrderBook(deployment.operator, args, base)).getAddress();
  return {
    id: pairSpec.pair.id,
    pair: completePair(pairSpec.pair, { orderBook, base: args.baseToken, quote: args.quoteToken }),
    params: { ...settings.params, self: orderBook, commissionWallet: deployment.commissionWallet },
    orderBook,
    baseToken: args.baseToken,
    quoteToken: args.quoteToken,
  };
}

export async function deployVenue(rpcUrl: string, spec: VenueSpec): Promise<EvmVenue> {
  const planned = planPairs(spec);
  const provider = sandboxProvider(rpcUrl);
  try {
    return await withAutomine(provider, async () => {
      const chainId = Number((await provider.getNetwork()).chainId);
      const operatorAccount = keyed('operator');
      const commissionWallet = keyed('commission');
      const operator = new Wallet(operatorAccount.privateKey, provider);
      await fundNative(provider, operator.address);
      const registry = await deployRegistry(operator);
      const registryAddress = await registry.getAddress();
      const tokens = new TokenDeployer(operator);
      const deployment = { operator, tokens, registry: registryAddress, commissionWallet: commissionWallet.address };
      const pairs: DeployedPair[] = [];
      for (const plan of planned) pairs.push(await deployPair(deployment, plan));
      const wallets = await setUpWallets(
        { provider, registry, tokens: tokens.tokens, contracts: tokens.contracts, pairs },
        spec.wallets ?? [],
      );
      return {
        rpcUrl,
        chainId,
        operator: operatorAccount,
        commissionWallet,
        registry: registryAddress,
        tokens: tokens.tokens,
        pairs,
        wallets,
      };
    });
  } finally {
    provider.destroy();
  }
}

/** Starts a node and deploys a venue on it; `stop()` stops the node. */
export async function startEvmVenue(
  nodeOptions: EvmNodeOptions,
  spec: VenueSpec,
): Promise<{ node: EvmNode; venue: EvmVenue; stop(): Promise<void> }> {
  const node = await startEvmNode(nodeOptions);
  try {
    const venue = await deployVenue(node.rpcUrl, spec);
    return { node, venue, stop: () => node.stop() };
  } catch (e) {
    await node.stop();
    throw e;
  }
}
