/**
 * An opt-in chain A pair in liquidity band 7, the granular tick mode of seven-decimal prices (`band7Pair: true`
 * in the sandbox settings; the default set of `default-pairs.ts` stays as it is). A money-market fund share
 * near 1 EURe, quoted at prices like 0.9999999: its quote internal scale (10^8) is finer than the tick, so the
 * book itself refuses a price off the seven-decimal grid (0.99999995), and its size increment of 10 keeps every
 * order value exact at the EURe native scale (10^6) it shares with the other chain A pairs.
 */
import type { SandboxPairDefinition } from './default-pairs.ts';

export const BAND7_PAIR: SandboxPairDefinition = {
  chain: 'evm',
  prefunded: true,
  pair: {
    id: 'tp-evm-mmf7-eure',
    symbol: 'MMF7EURe',
    blockChain: 'EVM_CHAIN_TESTNET',
    baseTokenData: { symbol: 'MMF7', isin: 'LU7777777770', dti: 'M7M7F7G7H' },
    quoteTokenSymbol: 'EURe',
    quoteTokenEquivalentCurrency: 'EUR',
    // Band 7 is the granular tick whatever the mode says; GRANULAR alone would tick at 10^-8 here.
    tickSizeMode: 'GRANULAR',
    liquidityBand: 7,
    tradingStatus: 'OUT_OF_TRADING',
    statusChangeReason: 'TRADING_PAIR_CREATION',
    baseTokenInternalScale: '1',
    quoteTokenInternalScale: '100000000',
    baseTokenNativeScale: '1',
    quoteTokenNativeScale: '1000000',
    minimumOrderValue: '10',
    maximumOrderValue: '500000',
    minimumSizeIncrement: '10',
    priceCollarFactor: 500,
    maximumMatches: 10,
    staticThreshold: 300,
    dynamicThreshold: 200,
    staticReferencePrice: '0.9999999',
    makerCommission: 5,
    takerCommission: 10,
    marketMakerCommission: 2,
    orderBookVersion: '1.0.0',
  },
  instrument: {
    kind: 'fund',
    fullName: 'Sandbox Euro Liquidity Money Market Fund',
    issuerName: 'Sandbox Asset Management S.A.',
    issuerLei: '5299003SANDBOXAM001',
    domicile: 'LU',
    wkn: 'A7MMF7',
    cfi: 'CIOGMS',
    fisn: 'SANDBOX AM/EUR LIQ MMF',
    primaryMarket: true,
    issuanceSize: '100000000',
    accrualPercent: '0',
  },
};
