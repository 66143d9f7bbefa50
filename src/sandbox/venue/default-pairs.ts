/**
 * The pairs of the default sandbox, in one place: everything the REST API serves about a pair and its
 * instrument comes from here, plus what deployment adds (contract addresses, dates, status). The bot's own
 * sandbox configuration resolves these pairs by `blockChain`, base symbol and quote symbol through the
 * manifest, never by id (ids are per start, as on the venue after a redeployment).
 *
 * What the set covers (sandbox-venue.md): a pair on each chain; a second chain A pair whose base symbol
 * differs from another only by a prefix (`BOND26` / `XBOND26`); a pair whose native and internal scales
 * differ by 10^4 (`BOND26`: internal 10^4, native 10^8); on chain B a pre-funded and a no-prefund pair.
 *
 * The bonds are fixed-rate, annual coupons, day count ACT/ACT-ICMA, issued 2025-01-02 and maturing years
 * ahead (whatever the symbol says), so that they are alive whatever today's date; `BOND26` and
 * `GRN27` are quoted clean, `XBOND26` dirty; `GRN27` has a nominal of 50 per token (its price near 45.6 is
 * then a yield near 3.4 %), the others 100. The fund accumulates at 2 % a year. The simulated true values
 * (`src/sandbox/value/`) start at each pair's static reference price.
 */
import type { PairOverrides } from '../../core/rules.ts';
import type { InstrumentSeed } from '../api/instruments.ts';
import type { PairDefinition } from '../evm/pair-params.ts';

export interface SandboxPairDefinition {
  readonly chain: 'evm' | 'wasm';
  /** The TradingPair as REST serves it, without the contract addresses deployment adds. */
  readonly pair: PairDefinition & {
    readonly symbol: string;
    readonly baseTokenData: { readonly symbol: string; readonly isin: string; readonly dti: string };
  };
  /** Chain B only: false deploys a no-prefund book (`no_prefund_config`). Chain A v1 is always pre-funded. */
  readonly prefunded: boolean;
  readonly overrides?: PairOverrides;
  readonly instrument: InstrumentSeed;
}

const COMMON = {
  quoteTokenSymbol: 'EURe',
  quoteTokenEquivalentCurrency: 'EUR',
  tickSizeMode: 'REGULATORY',
  tradingStatus: 'OUT_OF_TRADING',
  statusChangeReason: 'TRADING_PAIR_CREATION',
} as const;

export const DEFAULT_PAIRS: readonly SandboxPairDefinition[] = [
  {
    chain: 'evm',
    prefunded: true,
    pair: {
      ...COMMON,
      id: 'tp-evm-bond26-eure',
      symbol: 'BOND26EURe',
      blockChain: 'EVM_CHAIN_TESTNET',
      baseTokenData: { symbol: 'BOND26', isin: 'DE000A1B2C34', dti: 'X9J9K8L7M' },
      baseTokenInternalScale: '10000',
      quoteTokenInternalScale: '10000',
      baseTokenNativeScale: '100000000',
      quoteTokenNativeScale: '1000000',
      minimumOrderValue: '10',
      maximumOrderValue: '1000000',
      minimumSizeIncrement: '0.5',
      priceCollarFactor: 2000,
      maximumMatches: 10,
      staticThreshold: 1000,
      dynamicThreshold: 500,
      staticReferencePrice: '100',
      liquidityBand: 4,
      makerCommission: 10,
      takerCommission: 20,
      marketMakerCommission: 5,
      orderBookVersion: '1.0.0',
    },
    instrument: {
      kind: 'bond',
      fullName: 'Sandbox Energy 3.25% Green Bond 2031',
      issuerName: 'Sandbox Energy AG',
      issuerLei: '5299001SANDBOX00E26',
      domicile: 'DE',
      wkn: 'A1B2C3',
      cfi: 'DBFTFB',
      fisn: 'SANDBOX ENERGY/3.25 BD 20311231',
      primaryMarket: true,
      issuanceSize: '50000000',
      couponPercent: '3.25',
      issueDate: '2025-01-02',
      maturityDate: '2031-12-31',
      convention: 'clean',
      nominalPerToken: '100',
    },
  },
  {
    chain: 'evm',
    prefunded: true,
    pair: {
      ...COMMON,
      id: 'tp-evm-xbond26-eure',
      symbol: 'XBOND26EURe',
      blockChain: 'EVM_CHAIN_TESTNET',
      baseTokenData: { symbol: 'XBOND26', isin: 'DE000A3X8B26', dti: 'R4T5Y6U7I' },
      baseTokenInternalScale: '100',
      quoteTokenInternalScale: '10000',
      baseTokenNativeScale: '100',
      quoteTokenNativeScale: '1000000',
      minimumOrderValue: '50',
      maximumOrderValue: '500000',
      minimumSizeIncrement: '1',
      priceCollarFactor: 1500,
      maximumMatches: 8,
      staticThreshold: 800,
      dynamicThreshold: 400,
      staticReferencePrice: '98.5',
      liquidityBand: 3,
      makerCommission: 8,
      takerCommission: 15,
      marketMakerCommission: 4,
      orderBookVersion: '1.0.0',
    },
    instrument: {
      kind: 'bond',
      fullName: 'Sandbox Rail 1.75% Exchangeable Bond 2036',
      issuerName: 'Sandbox Rail GmbH',
      issuerLei: '5299002SANDBOXRL026',
      domicile: 'DE',
      wkn: 'A3X8B2',
      cfi: 'DBFUFR',
      fisn: 'SANDBOX RAIL/1.75 BD 20360630',
      primaryMarket: false,
      issuanceSize: '20000000',
      couponPercent: '1.75',
      issueDate: '2025-01-02',
      maturityDate: '2036-06-30',
      convention: 'dirty',
      nominalPerToken: '100',
    },
  },
  {
    chain: 'wasm',
    prefunded: true,
    pair: {
      ...COMMON,
      id: 'tp-wasm-fund1-eure',
      symbol: 'FUND1EURe',
      blockChain: 'WASM_CHAIN_TESTNET',
      baseTokenData: { symbol: 'FUND1', isin: 'LU0123456789', dti: 'Q1W2E3R4T' },
      baseTokenInternalScale: '1000',
      quoteTokenInternalScale: '10000',
      baseTokenNativeScale: '10000000',
      quoteTokenNativeScale: '10000000',
      minimumOrderValue: '5',
      maximumOrderValue: '500000',
      minimumSizeIncrement: '0.5',
      priceCollarFactor: 5000,
      maximumMatches: 20,
      staticThreshold: 2000,
      dynamicThreshold: 1000,
      staticReferencePrice: '12.34',
      liquidityBand: 3,
      makerCommission: 15,
      takerCommission: 25,
      marketMakerCommission: 5,
      orderBookVersion: '2.1.0',
    },
    instrument: {
      kind: 'fund',
      fullName: 'Sandbox Global Equity UCITS ETF',
      issuerName: 'Sandbox Asset Management S.A.',
      issuerLei: '5299003SANDBOXAM001',
      domicile: 'LU',
      wkn: 'A0RPWH',
      cfi: 'CEOGLS',
      fisn: 'SANDBOX AM/GLB EQ UCITS ETF',
      primaryMarket: true,
      issuanceSize: '10000000',
      accrualPercent: '2',
    },
  },
  {
    chain: 'wasm',
    prefunded: false,
    pair: {
      ...COMMON,
      id: 'tp-wasm-grn27-eure',
      symbol: 'GRN27EURe',
      blockChain: 'WASM_CHAIN_TESTNET',
      baseTokenData: { symbol: 'GRN27', isin: 'DE000GRN2705', dti: 'G7H8J9K0L' },
      baseTokenInternalScale: '100',
      quoteTokenInternalScale: '10000',
      baseTokenNativeScale: '10000000',
      quoteTokenNativeScale: '10000000',
      minimumOrderValue: '20',
      maximumOrderValue: '250000',
      minimumSizeIncrement: '1',
      priceCollarFactor: 3000,
      maximumMatches: 15,
      staticThreshold: 1500,
      dynamicThreshold: 750,
      staticReferencePrice: '45.6',
      liquidityBand: 4,
      makerCommission: 12,
      takerCommission: 22,
      marketMakerCommission: 6,
      orderBookVersion: '2.1.0',
    },
    instrument: {
      kind: 'bond',
      fullName: 'Sandbox City 2.10% Municipal Green Bond 2034',
      issuerName: 'Sandbox City Finance',
      issuerLei: '5299004SANDBOXCF027',
      domicile: 'DE',
      wkn: 'GRN270',
      cfi: 'DBFNFR',
      fisn: 'SANDBOX CITY/2.10 BD 20340915',
      primaryMarket: false,
      issuanceSize: '75000000',
      couponPercent: '2.1',
      issueDate: '2025-01-02',
      maturityDate: '2034-09-15',
      convention: 'clean',
      nominalPerToken: '50',
    },
  },
];
