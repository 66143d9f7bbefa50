/**
 * The REST TradingPair: validated at the boundary with every field and format of the specification.
 * Unknown fields are kept (the record's full field list is not published), never rejected.
 */
import { z } from 'zod';
import { DltError } from './errors.ts';
import {
  chainAddress,
  dateTime,
  decimalString,
  describeIssues,
  int32Min0,
  int64Min0,
  isin,
  scaleString,
} from './formats.ts';
import { parseScale, type PairScales } from './units.ts';

export const BLOCKCHAIN_VALUES = ['EVM_CHAIN', 'WASM_CHAIN', 'EVM_CHAIN_TESTNET', 'WASM_CHAIN_TESTNET'] as const;
export type BlockChain = (typeof BLOCKCHAIN_VALUES)[number];
export type ChainKind = 'evm' | 'wasm';

export const tradingPairSchema = z
  .object({
    id: z.string().min(1).max(255),
    creationDate: dateTime.optional(),
    modificationDate: dateTime.optional(),
    blockChain: z.enum(BLOCKCHAIN_VALUES).optional(),
    baseTokenData: z
      .object({ symbol: z.string().min(1).max(255), isin: isin.optional(), dti: z.string().max(255).optional() })
      .loose()
      .optional(),
    quoteTokenSymbol: z.string().min(1).max(255),
    quoteTokenEquivalentCurrency: z.string().max(255),
    smartContractOrderBook: chainAddress,
    smartContractBase: chainAddress,
    smartContractQuote: chainAddress,
    baseTokenInternalScale: scaleString,
    quoteTokenInternalScale: scaleString,
    baseTokenNativeScale: scaleString,
    quoteTokenNativeScale: scaleString,
    minimumOrderValue: decimalString.optional(),
    maximumOrderValue: decimalString.optional(),
    minimumSizeIncrement: decimalString.optional(),
    priceCollarFactor: int64Min0.optional(),
    maximumMatches: int32Min0.optional(),
    staticThreshold: int32Min0.optional(),
    dynamicThreshold: int32Min0.optional(),
    staticReferencePrice: decimalString.optional(),
    liquidityBand: int32Min0.optional(),
    tickSizeMode: z.string().max(255).optional(),
    makerCommission: int32Min0.optional(),
    takerCommission: int32Min0.optional(),
    marketMakerCommission: int32Min0.optional(),
    tradingStatus: z.string().max(255).optional(),
    statusChangeReason: z.string().max(255).optional(),
    statusChangeReasonText: z.string().max(255).optional(),
    orderBookVersion: z.string().max(255).optional(),
    symbol: z.string().max(255).optional(),
  })
  .loose();

export type TradingPair = z.infer<typeof tradingPairSchema>;

/** Validates one TradingPair; an invalid record is an error listing every problem. */
export function parseTradingPair(input: unknown, where = 'tradingPair'): TradingPair {
  const result = tradingPairSchema.safeParse(input);
  if (!result.success) {
    const problems = describeIssues(result.error, where);
    throw new DltError('E_PAIR_INVALID', `${where} is invalid:\n  ${problems.join('\n  ')}`, {
      details: {
        problems,
        id: typeof input === 'object' && input !== null ? (input as { id?: unknown }).id : undefined,
      },
    });
  }
  for (const field of [
    'baseTokenInternalScale',
    'quoteTokenInternalScale',
    'baseTokenNativeScale',
    'quoteTokenNativeScale',
  ] as const) {
    parseScale(result.data[field], `${where}.${field}`);
  }
  return result.data;
}

export function chainKindOf(blockChain: BlockChain): ChainKind {
  return blockChain.startsWith('EVM_CHAIN') ? 'evm' : 'wasm';
}

export function pairScales(pair: TradingPair): PairScales {
  return {
    baseInternal: parseScale(pair.baseTokenInternalScale, 'baseTokenInternalScale'),
    quoteInternal: parseScale(pair.quoteTokenInternalScale, 'quoteTokenInternalScale'),
    baseNative: parseScale(pair.baseTokenNativeScale, 'baseTokenNativeScale'),
    quoteNative: parseScale(pair.quoteTokenNativeScale, 'quoteTokenNativeScale'),
  };
}

export interface PairQuery {
  /** `EVM_CHAIN` or `WASM_CHAIN` matches its `_TESTNET` value too; a `_TESTNET` value matches only itself. */
  readonly blockChain: BlockChain;
  readonly baseSymbol: string;
  readonly quoteSymbol: string;
}

function chainMatches(query: BlockChain, actual: BlockChain | undefined): boolean {
  if (actual === undefined) return false;
  if (query === actual) return true;
  return !query.endsWith('_TESTNET') && actual === `${query}_TESTNET`;
}

/**
 * Resolves a pair by chain, base symbol and quote symbol together (symbols alone are not unique);
 * no match and more than one match are both errors.
 */
export function resolvePair(pairs: readonly TradingPair[], query: PairQuery): TradingPair {
  const matches = pairs.filter(
    (p) =>
      chainMatches(query.blockChain, p.blockChain) &&
      p.baseTokenData?.symbol === query.baseSymbol &&
      p.quoteTokenSymbol === query.quoteSymbol,
  );
  const label = `${query.baseSymbol}/${query.quoteSymbol} on ${query.blockChain}`;
  if (matches.length === 0) {
    throw new DltError('E_PAIR_NOT_FOUND', `no trading pair ${label}`, {
      details: {
        query,
        available: pairs.map(
          (p) => `${p.baseTokenData?.symbol ?? '?'}/${p.quoteTokenSymbol} on ${p.blockChain ?? '?'} (${p.id})`,
        ),
      },
    });
  }
  if (matches.length > 1) {
    throw new DltError(
      'E_PAIR_AMBIGUOUS',
      `${matches.length} trading pairs match ${label}: ${matches.map((p) => p.id).join(', ')}`,
      {
        details: { query, ids: matches.map((p) => p.id) },
      },
    );
  }
  return matches[0] as TradingPair;
}
