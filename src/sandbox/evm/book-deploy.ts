/**
 * Deployment of the single venue contracts from raw parameters: registry, tokens and one order book per pair.
 * `deployVenue` (venue.ts) composes these from pair definitions; tests use them directly with raw parameters.
 */
import { zeroPadBytes, toUtf8Bytes, type Contract, type Wallet } from 'ethers';
import { DltError } from '../../core/errors.ts';
import type { BookParams, Phase } from '../matching/types.ts';
import { deployContract, send } from './chain.ts';
import { DEFAULT_BOOK_VERSION } from './pair-params.ts';

/** Chain A phase codes (venue-facts.md): 1 open, 2 closed, 3 manual halt, 4 automatic halt. */
export const PHASE_CODES: Readonly<Record<Phase, number>> = { open: 1, closed: 2, manualHalt: 3, automaticHalt: 4 };

export function phaseOfCode(code: number): Phase | undefined {
  return (Object.keys(PHASE_CODES) as Phase[]).find((p) => PHASE_CODES[p] === code);
}

export interface OrderBookArgs {
  /** Raw parameters; `self` and `commissionWallet` of the params are ignored (addresses below). */
  readonly params: BookParams;
  readonly baseToken: string;
  readonly quoteToken: string;
  readonly registry: string;
  readonly commissionWallet: string;
  /** Receives a cancelled order's tokens when the owner can no longer receive them (operator cancels only). */
  readonly fallbackWallet: string;
  readonly liquidityBand?: number;
  readonly version?: string;
  readonly phase?: Phase;
}

/** `version` as the contract's bytes11: UTF-8, right-padded with zero bytes. */
export function versionBytes(version: string): string {
  const bytes = toUtf8Bytes(version);
  if (bytes.length > 11) {
    throw new DltError('E_SANDBOX', `order book version "${version}" is longer than 11 bytes`, {
      details: { part: 'evm-deploy', version },
    });
  }
  return zeroPadBytes(bytes, 11);
}

/** The constructor's (Config, Controls) arguments. */
export function orderBookConstructorArgs(a: OrderBookArgs): [Record<string, unknown>, Record<string, unknown>] {
  const p = a.params;
  if (!p.prefunded) {
    throw new DltError('E_SANDBOX', 'chain A order book v1 is pre-funded only', { details: { part: 'evm-deploy' } });
  }
  const config = {
    base: { scale: p.scales.baseInternal, nativeScale: p.scales.baseNative },
    quote: { scale: p.scales.quoteInternal, nativeScale: p.scales.quoteNative },
    makerCommission: p.makerBps,
    takerCommission: p.takerBps,
    marketMakerCommission: p.marketMakerBps,
    quoteToken: a.quoteToken,
    baseToken: a.baseToken,
    whitelist: a.registry,
    commissionWallet: a.commissionWallet,
    baseTokenFallbackWallet: a.fallbackWallet,
    quoteTokenFallbackWallet: a.fallbackWallet,
    liquidityBand: a.liquidityBand ?? 0,
    version: versionBytes(a.version ?? DEFAULT_BOOK_VERSION),
  };
  const controls = {
    minimumSize: p.minimumSize,
    sizeIncrement: p.sizeIncrement,
    tickFrom: p.tickTable.map((r) => r.from),
    tickSize: p.tickTable.map((r) => r.tick),
    priceCollarFactor: p.priceCollarBps,
    staticReferencePrice: p.staticReferencePrice,
    staticThreshold: p.staticThresholdBps,
    dynamicThreshold: p.dynamicThresholdBps,
    minimumOrderValue: p.minimumOrderValue,
    maximumOrderValue: p.maximumOrderValue,
    maximumMatches: p.maximumMatches,
    initialPhase: PHASE_CODES[a.phase ?? 'open'],
  };
  return [config, controls];
}

export function deployRegistry(operator: Wallet): Promise<Contract> {
  return deployContract('ClientRegistry', operator, []);
}

export function deployBaseToken(operator: Wallet, symbol: string, decimals: number): Promise<Contract> {
  return deployContract('RestrictedToken', operator, [symbol, symbol, decimals]);
}

export function deployQuoteToken(operator: Wallet, symbol: string, decimals: number): Promise<Contract> {
  return deployContract('EMoneyToken', operator, [symbol, symbol, decimals]);
}

/**
 * Deploys an order book and makes it, the commission wallet and the fallback wallet beneficiaries of its
 * base token (the caller must be the base token's operator).
 */
export async function deployOrderBook(operator: Wallet, a: OrderBookArgs, baseToken: Contract): Promise<Contract> {
  const book = await deployContract('OrderBook', operator, orderBookConstructorArgs(a));
  const address = await book.getAddress();
  for (const account of new Set([address, a.commissionWallet, a.fallbackWallet])) {
    await send(baseToken, 'setBeneficiary', [account, true]);
  }
  return book;
}

export interface ClientFlags {
  readonly clientId: bigint;
  readonly canTransfer: boolean;
  readonly canBuy: boolean;
  readonly canSell: boolean;
  readonly canCancel: boolean;
  readonly isMarketMaker: boolean;
}

export function setClient(registry: Contract, address: string, f: ClientFlags): Promise<void> {
  return send(registry, 'setClient', [
    address,
    f.clientId,
    f.canTransfer,
    f.canBuy,
    f.canSell,
    f.canCancel,
    f.isMarketMaker,
  ]);
}
