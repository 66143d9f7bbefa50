/**
 * The test wallets of a chain A venue: each funded with gas, entered in the client registry, made a
 * beneficiary of the base tokens, minted its balances and given its allowances to every order book trading
 * the token.
 */
import { MaxUint256, Wallet, type Contract, type JsonRpcProvider } from 'ethers';
import { parseHumanDecimal } from '../../core/decimal.ts';
import { DltError } from '../../core/errors.ts';
import { toScaled } from '../../core/units.ts';
import { setClient } from './book-deploy.ts';
import { contractAt, fundNative, sandboxKey, send } from './chain.ts';
import type { DeployedPair, FundedWallet, SandboxWalletSpec, VenueToken } from './venue.ts';

/** What the wallets are set up on: the registry, the deployed tokens with their contracts, the books. */
export interface WalletSetup {
  readonly provider: JsonRpcProvider;
  readonly registry: Contract;
  readonly tokens: Readonly<Record<string, VenueToken>>;
  readonly contracts: ReadonlyMap<string, Contract>;
  readonly pairs: readonly DeployedPair[];
}

/** A wallet's tokens, by symbol, are ones some pair uses. Checked before the first transaction. */
export function checkWalletSymbols(wallet: SandboxWalletSpec, symbols: ReadonlySet<string>): void {
  const unknown = [...Object.keys(wallet.balances ?? {}), ...Object.keys(wallet.allowances ?? {})].filter(
    (symbol) => !symbols.has(symbol),
  );
  if (unknown.length > 0) {
    throw new DltError('E_SANDBOX', `wallet ${wallet.name} names tokens no pair uses: ${unknown.join(', ')}`, {
      details: { part: 'evm-deploy', wallet: wallet.name, unknown },
    });
  }
}

function native(amount: string, token: VenueToken, what: string): bigint {
  return toScaled(parseHumanDecimal(amount, what), token.nativeScale, `${what} of ${token.symbol}`);
}

/** One token for one wallet: beneficiary (base tokens), balance, allowance to each book trading it. */
async function setUpToken(setup: WalletSetup, wallet: SandboxWalletSpec, signer: Wallet, token: VenueToken) {
  const contract = setup.contracts.get(token.symbol) as Contract;
  if (token.kind === 'base' && wallet.beneficiary !== false)
    await send(contract, 'setBeneficiary', [signer.address, true]);
  const amount = wallet.balances?.[token.symbol];
  if (amount !== undefined)
    await send(contract, 'mint', [signer.address, native(amount, token, `${wallet.name} balance`)]);
  const allowance = wallet.allowances?.[token.symbol];
  if (allowance === undefined) return;
  const value = allowance === 'unlimited' ? MaxUint256 : native(allowance, token, `${wallet.name} allowance`);
  const books = setup.pairs.filter((pair) => pair.baseToken === token.address || pair.quoteToken === token.address);
  for (const pair of books) {
    await send(
      contractAt(token.kind === 'base' ? 'RestrictedToken' : 'EMoneyToken', token.address, signer),
      'approve',
      [pair.orderBook, value],
    );
  }
}

/** Sets up one wallet; its client id is its position in the spec, from 1. */
async function setUpWallet(setup: WalletSetup, wallet: SandboxWalletSpec, clientId: bigint): Promise<FundedWallet> {
  const privateKey = wallet.privateKey ?? sandboxKey(`wallet ${wallet.name}`);
  const signer = new Wallet(privateKey, setup.provider);
  await fundNative(setup.provider, signer.address, wallet.nativeWei);
  if (wallet.whitelisted !== false) {
    await setClient(setup.registry, signer.address, {
      clientId,
      canTransfer: wallet.canTransfer ?? true,
      canBuy: wallet.canBuy ?? true,
      canSell: wallet.canSell ?? true,
      canCancel: wallet.canCancel ?? true,
      isMarketMaker: wallet.marketMaker ?? false,
    });
  }
  for (const token of Object.values(setup.tokens)) await setUpToken(setup, wallet, signer, token);
  return { name: wallet.name, address: signer.address, privateKey, clientId, marketMaker: wallet.marketMaker ?? false };
}

export async function setUpWallets(setup: WalletSetup, wallets: readonly SandboxWalletSpec[]): Promise<FundedWallet[]> {
  const funded: FundedWallet[] = [];
  for (const [index, wallet] of wallets.entries()) funded.push(await setUpWallet(setup, wallet, BigInt(index + 1)));
  return funded;
}
