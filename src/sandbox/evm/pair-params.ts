/**
 * From a TradingPair-like definition (human values, as REST serves them) to the raw parameters an order
 * book runs on: everything goes through the core's rules and unit conversions, so the sandbox enforces
 * exactly what the bot checks, and a value that does not scale exactly is an error, never rounded.
 */
import { DltError } from '../../core/errors.ts';
import { parseTradingPair, type TradingPair } from '../../core/pair.ts';
import { derivePairRules, type PairOverrides } from '../../core/rules.ts';
import { bookParamsOf } from '../matching/params.ts';
import type { BookParams } from '../matching/types.ts';

type AddressKey = 'smartContractOrderBook' | 'smartContractBase' | 'smartContractQuote';

/**
 * A TradingPair before deployment: the contract addresses are what deployment adds. (A key-remapping mapped
 * type, since `Omit` would drop every known field of the loose TradingPair record.)
 */
export type PairDefinition = { [K in keyof TradingPair as K extends AddressKey ? never : K]: TradingPair[K] } & Partial<
  Pick<TradingPair, AddressKey>
>;

export interface EvmBookSettings {
  readonly params: BookParams;
  /** 0 when the pair publishes none. */
  readonly liquidityBand: number;
  readonly version: string;
}

const PLACEHOLDER = '0x0000000000000000000000000000000000000000';
export const DEFAULT_BOOK_VERSION = '1.0.0';

/** The pair with placeholder addresses, validated against the specification's TradingPair schema. */
export function completePair(
  def: PairDefinition,
  addresses: { orderBook?: string; base?: string; quote?: string } = {},
): TradingPair {
  return parseTradingPair(
    {
      ...def,
      smartContractOrderBook: addresses.orderBook ?? def.smartContractOrderBook ?? PLACEHOLDER,
      smartContractBase: addresses.base ?? def.smartContractBase ?? PLACEHOLDER,
      smartContractQuote: addresses.quote ?? def.smartContractQuote ?? PLACEHOLDER,
    },
    `pair ${def.id}`,
  );
}

export function bookSettingsFromPair(
  def: PairDefinition,
  overrides: PairOverrides = {},
  accounts: { self?: string; commissionWallet?: string } = {},
): EvmBookSettings {
  const pair = completePair(def);
  const rules = derivePairRules(pair, overrides);
  const s = rules.scales;
  if (s.baseNative % s.baseInternal !== 0n) {
    throw new DltError(
      'E_SANDBOX',
      `pair ${pair.id}: baseTokenNativeScale must be a multiple of baseTokenInternalScale`,
      {
        details: { part: 'evm-deploy', pairId: pair.id },
      },
    );
  }
  const params = bookParamsOf(rules, { self: accounts.self ?? '', commissionWallet: accounts.commissionWallet ?? '' });
  return { params, liquidityBand: pair.liquidityBand ?? 0, version: pair.orderBookVersion ?? DEFAULT_BOOK_VERSION };
}

/** ERC-20 decimals of a native scale; the sandbox's tokens need a power of ten. */
export function decimalsOf(nativeScale: bigint, what: string): number {
  const digits = nativeScale.toString();
  if (!/^10*$/.test(digits) || digits.length > 78) {
    throw new DltError(
      'E_SANDBOX',
      `${what}: native scale ${digits} is not a power of ten, so it has no ERC-20 decimals`,
      {
        details: { part: 'evm-deploy', nativeScale: digits },
      },
    );
  }
  return digits.length - 1;
}
