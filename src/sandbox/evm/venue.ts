/**
 * Deploys a whole chain A venue onto a running node from pair definitions: one client registry, one quote
 * e-money token per quote symbol (pairs share it, as on the venue), one restricted base token and one order
 * book per pair; then funds, whitelists and mints for the test wallets. This is the building block of the
 * sandbox command; `startEvmVenue` also starts the node.
 */
import { MaxUint256, Wallet, type Contract } from 'ethers';
import { parseHumanDecimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import type { TradingPair } from '../../core/pair.ts';
import type { PairOverrides } from '../../core/rules.ts';
import { toScaled } from '../../core/units.ts';
import type { BookParams, Phase } from '../matching/types.ts';
import { deployBaseToken, deployOrderBook, deployQuoteToken, deployRegistry, setClient } from './book-deploy.ts';
import { contractAt, fundNative, sandboxKey, sandboxProvider, send, withAutomine } from './chain.ts';
import { startEvmNode, type EvmNode, type EvmNodeOptions } from './node.ts';
import { bookSettingsFromPair, completePair, decimalsOf, type PairDefinition } from './pair-params.ts';

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

export async function deployVenue(rpcUrl: string, spec: VenueSpec): Promise<EvmVenue> {
  // Everything that can be refused is checked before the first transaction.
  const planned = spec.pairs.map((p) => ({
    spec: p,
    settings: bookSettingsFromPair(p.pair, p.overrides ?? {}),
    baseSymbol: p.pair.baseTokenData?.symbol ?? `${p.pair.id}-BASE`,
  }));
  const symbols = new Set(planned.flatMap((s) => [s.baseSymbol, s.spec.pair.quoteTokenSymbol]));
  for (const w of spec.wallets ?? []) unknownSymbols(w, symbols);
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

      const tokens: Record<string, VenueToken> = {};
      const contracts = new Map<string, Contract>();
      const token = async (symbol: string, kind: 'base' | 'quote', nativeScale: bigint): Promise<Contract> => {
        const known = tokens[symbol];
        if (known) {
          if (known.kind !== kind || known.nativeScale !== nativeScale) {
            throw new DltError(
              'E_SANDBOX',
              `token ${symbol} is used as ${known.kind} with scale ${known.nativeScale} and as ${kind} with ${nativeScale}`,
              {
                details: { part: 'evm-deploy', symbol },
              },
            );
          }
          return contracts.get(symbol) as Contract;
        }
        const decimals = decimalsOf(nativeScale, symbol);
        const c =
          kind === 'base'
            ? await deployBaseToken(operator, symbol, decimals)
            : await deployQuoteToken(operator, symbol, decimals);
        tokens[symbol] = { symbol, kind, address: await c.getAddress(), nativeScale, decimals };
        contracts.set(symbol, c);
        return c;
      };

      const pairs: DeployedPair[] = [];
      for (const { spec: p, settings, baseSymbol } of planned) {
        const base = await token(baseSymbol, 'base', settings.params.scales.baseNative);
        const quote = await token(p.pair.quoteTokenSymbol, 'quote', settings.params.scales.quoteNative);
        const args = {
          params: settings.params,
          baseToken: await base.getAddress(),
          quoteToken: await quote.getAddress(),
          registry: registryAddress,
          commissionWallet: commissionWallet.address,
          fallbackWallet: operator.address,
          liquidityBand: settings.liquidityBand,
          version: settings.version,
          phase: p.phase ?? 'open',
        };
        const orderBook = await (await deployOrderBook(operator, args, base)).getAddress();
        pairs.push({
          id: p.pair.id,
          pair: completePair(p.pair, { orderBook, base: args.baseToken, quote: args.quoteToken }),
          params: { ...settings.params, self: orderBook, commissionWallet: commissionWallet.address },
          orderBook,
          baseToken: args.baseToken,
          quoteToken: args.quoteToken,
        });
      }

      const wallets: FundedWallet[] = [];
      for (const [i, w] of (spec.wallets ?? []).entries()) {
        const privateKey = w.privateKey ?? sandboxKey(`wallet ${w.name}`);
        const signer = new Wallet(privateKey, provider);
        await fundNative(provider, signer.address, w.nativeWei);
        const clientId = BigInt(i + 1);
        if (w.whitelisted !== false) {
          await setClient(registry, signer.address, {
            clientId,
            canTransfer: w.canTransfer ?? true,
            canBuy: w.canBuy ?? true,
            canSell: w.canSell ?? true,
            canCancel: w.canCancel ?? true,
            isMarketMaker: w.marketMaker ?? false,
          });
        }
        for (const t of Object.values(tokens)) {
          const c = contracts.get(t.symbol) as Contract;
          if (t.kind === 'base' && w.beneficiary !== false) await send(c, 'setBeneficiary', [signer.address, true]);
          const amount = w.balances?.[t.symbol];
          if (amount !== undefined) await send(c, 'mint', [signer.address, native(amount, t, `${w.name} balance`)]);
          const allowance = w.allowances?.[t.symbol];
          if (allowance === undefined) continue;
          const value = allowance === 'unlimited' ? MaxUint256 : native(allowance, t, `${w.name} allowance`);
          for (const pair of pairs.filter((x) => x.baseToken === t.address || x.quoteToken === t.address)) {
            await send(
              contractAt(t.kind === 'base' ? 'RestrictedToken' : 'EMoneyToken', t.address, signer),
              'approve',
              [pair.orderBook, value],
            );
          }
        }
        wallets.push({
          name: w.name,
          address: signer.address,
          privateKey,
          clientId,
          marketMaker: w.marketMaker ?? false,
        });
      }
      return {
        rpcUrl,
        chainId,
        operator: operatorAccount,
        commissionWallet,
        registry: registryAddress,
        tokens,
        pairs,
        wallets,
      };
    });
  } finally {
    provider.destroy();
  }
}

function native(amount: string, t: VenueToken, what: string): bigint {
  return toScaled(parseHumanDecimal(amount, what), t.nativeScale, `${what} of ${t.symbol}`);
}

function unknownSymbols(w: SandboxWalletSpec, symbols: ReadonlySet<string>): void {
  const unknown = [...Object.keys(w.balances ?? {}), ...Object.keys(w.allowances ?? {})].filter((s) => !symbols.has(s));
  if (unknown.length > 0) {
    throw new DltError('E_SANDBOX', `wallet ${w.name} names tokens no pair uses: ${unknown.join(', ')}`, {
      details: { part: 'evm-deploy', wallet: w.name, unknown },
    });
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
