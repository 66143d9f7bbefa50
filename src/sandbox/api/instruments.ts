/**
 * The financial instruments behind the pairs, as `/financialinstruments` serves them: the list item
 * (`FinancialInstrumentTableBaseWithId`) and the detail (`FinancialInstrumentPublic`) with every field group
 * of the specification filled from a small seed per instrument. Values follow the formats and enumerations
 * of the specification; a fund carries its last published NAV (`performanceData`) and no debt group, a
 * fixed-rate bond its terms (`debtInstrumentData`, no benchmark index) and no NAV; the derivative groups,
 * which apply to neither, carry the neutral values a registry would hold for a non-derivative (`OTHR`, no
 * expiry).
 */

export type InstrumentKind = 'bond' | 'fund';

/** Descriptive data of a pair's base instrument. */
export interface InstrumentSeed {
  readonly kind: InstrumentKind;
  readonly fullName: string;
  readonly issuerName: string;
  readonly issuerLei: string;
  readonly domicile: string;
  readonly wkn: string;
  readonly cfi: string;
  readonly fisn: string;
  /** Also sold by the issuer on the primary market. */
  readonly primaryMarket: boolean;
  readonly issuanceSize: string;
  /** Bonds: fixed coupon in percent, issue date (default 2025-01-02) and maturity date. */
  readonly couponPercent?: string;
  readonly issueDate?: string;
  readonly maturityDate?: string;
  /** Bonds: whether the venue quotes the token clean or dirty (default clean), and its nominal (default 100). */
  readonly convention?: 'clean' | 'dirty';
  readonly nominalPerToken?: string;
  /** Funds: the annual rate an accumulating fund grows at, percent (default 0). */
  readonly accrualPercent?: string;
}

/** The NAV a fund last published: the value and its valuation date (`YYYY-MM-DD`, the sandbox's date). */
export interface PublishedNav {
  readonly value: string;
  readonly date: string;
}

export interface InstrumentSource {
  readonly seed: InstrumentSeed;
  readonly symbol: string;
  readonly isin: string;
  readonly dti: string;
  readonly blockChain: string;
  /** Base token contract (the pair's `smartContractBase`). */
  readonly tokenAddress: string;
  /** A fund's last published NAV; null for a bond. */
  readonly nav: PublishedNav | null;
}

export const TRADING_VENUE = 'XSBX';
const EFFECTIVE = '2025-01-02T08:00:00Z';
export const DEFAULT_ISSUE_DATE = '2025-01-02';
export const NAV_SOURCE = 'Sandbox Fund Administration';

export function instrumentId(symbol: string): string {
  return `fi-${symbol.toLowerCase()}`;
}

function terminationDate(s: InstrumentSeed): string | null {
  return s.maturityDate === undefined ? null : `${s.maturityDate}T17:00:00Z`;
}

function prospectus(src: InstrumentSource): string {
  return `https://sandbox.invalid/prospectus/${src.isin}.pdf`;
}

export function instrumentSummary(src: InstrumentSource): Record<string, unknown> {
  return {
    symbol: src.symbol,
    fullName: src.seed.fullName,
    status: 'ACTIVE',
    isin: src.isin,
    dti: src.dti,
    issuerName: src.seed.issuerName,
    prospectusLink: prospectus(src),
    effectiveDate: EFFECTIVE,
    terminationDate: terminationDate(src.seed),
    smartContractAddress: src.tokenAddress,
    internalId: instrumentId(src.symbol),
  };
}

function issuerData(s: InstrumentSeed): Record<string, unknown> {
  const city =
    s.domicile === 'LU'
      ? { areaCode: 'L-2449', city: 'Luxembourg', street: 'Boulevard Royal 12' }
      : { areaCode: '60311', city: 'Frankfurt am Main', street: 'Neue Mainzer Strasse 1' };
  return {
    companyName: s.issuerName,
    website: `https://${s.issuerName
      .toLowerCase()
      .replace(/[^a-z]+/g, '-')
      .replace(/^-|-$/g, '')}.invalid`,
    legalAddress: { countryCode: s.domicile, ...city },
    legalEntityIdentifier: s.issuerLei,
  };
}

function derivativeGroups(src: InstrumentSource): Record<string, unknown> {
  const s = src.seed;
  const underlying = {
    isin: src.isin,
    issuerLei: s.issuerLei,
    index: 'OTHR',
    indexName: 'NONE',
    indexTermUnit: 'YEAR',
    indexTermValue: 0,
  };
  return {
    derivativeData: {
      expiryDate: s.maturityDate ?? null,
      priceMultiplier: '1',
      optionType: 'OTHR',
      strikePriceType: 'PNDG',
      strikePriceValue: '0',
      strikePriceCurrency: 'EUR',
      optionExerciseStyle: 'OTHR',
      deliveryType: 'CASH',
      equityDerivativeUnderlyingType: 'OTHR',
      equityDerivativeParameter: 'PRBP',
      underlyingInstruments: [underlying],
    },
    commodityDerivativeData: {
      baseProduct: 'OTHR',
      subProduct: 'CSHP',
      furtherSubProduct: 'OTHR',
      transactionType: 'OTHR',
      finalPriceType: 'OTHR',
      sizeSpecification: 'HAND',
      freightRoute: 'NONE',
      settlementLocation: 'NONE',
      commodityNotionalCurrency: 'EUR',
      emissionAllowanceSubType: 'OTHR',
    },
    interestRateDerivativeData: {
      referenceRateIndex: 'EURI',
      referenceRateName: 'EURIBOR 6M',
      interestRateTermUnit: 'MNTH',
      interestRateTermValue: 6,
      notionalCurrency2: 'EUR',
      fixedRateLeg1: s.couponPercent ?? '0',
      fixedRateLeg2: '0',
      floatingRateLeg2Index: 'EURI',
      floatingRateLeg2Name: 'EURIBOR 6M',
      interestRateLeg2TermUnit: 'MNTH',
      interestRateLeg2TermValue: 6,
      underlyingInterestRateDerivativeType: 'BOND',
      underlyingInterestRateDerivativeIsin: src.isin,
      underlyingInterestRateDerivativeIndexName: 'NONE',
      underlyingInterestRateDerivativeReferenceRateIndex: 'EURI',
      underlyingInterestRateDerivativeReferenceRateName: 'EURIBOR 6M',
      underlyingInterestRateDerivativeTermUnit: 'YEAR',
      underlyingInterestRateDerivativeTermValue: 1,
      underlyingInterestRateDerivativeBond: {
        issuerLei: s.issuerLei,
        maturityDate: s.maturityDate ?? null,
        issuanceDate: s.issueDate ?? DEFAULT_ISSUE_DATE,
      },
      underlyingInterestRateDerivativeSwap: { notionalCurrency: 'EUR', maturityDate: s.maturityDate ?? null },
    },
    foreignExchangeDerivativeData: {
      notionalCurrency2: 'USD',
      foreignExchangeType: 'FXMJ',
      foreignExchangeContractSubType: 'DLVB',
    },
    emissionAllowanceData: { subType: 'OTHR' },
    contractsForDifferenceData: { underlyingType: 'OTHR', notionalCurrency1: 'EUR', notionalCurrency2: 'EUR' },
    // The specification names the group but publishes none of its fields.
    creditDerivativeData: {},
  };
}

/** A fund's NAV group: the last published NAV and its date; a bond has none. */
function performanceData(src: InstrumentSource): Record<string, unknown> {
  return {
    nav: src.nav?.value ?? null,
    navCurrency: 'EUR',
    navLastUpdate: src.nav?.date ?? null,
    navSource: NAV_SOURCE,
    totalExpenseRatio: '0.19',
    assetsUnderManagement: src.seed.issuanceSize,
    assetsUnderManagementCurrency: 'EUR',
    assetsUnderManagementLastUpdate: src.nav?.date ?? null,
  };
}

/** A fixed-rate bond's terms (no benchmark index); a fund has none. */
function debtInstrumentData(src: InstrumentSource): Record<string, unknown> {
  const s = src.seed;
  return {
    totalIssuedNominalAmount: s.issuanceSize,
    maturityDate: s.maturityDate ?? null,
    currency: 'EUR',
    minimumTradedValue: '1',
    fixedRate: s.couponPercent ?? '0',
    bondSeniority: 'SNDB',
    bondType: 'CRPB',
    bondIssuanceDate: s.issueDate ?? DEFAULT_ISSUE_DATE,
    indexBenchmark: null,
  };
}

export function instrumentDetail(src: InstrumentSource): Record<string, unknown> {
  const s = src.seed;
  const bond = s.kind === 'bond';
  return {
    status: 'ACTIVE',
    domicile: s.domicile,
    wkn: s.wkn,
    sedol: `B${s.wkn.slice(0, 6)}`.slice(0, 7),
    cusip: `${src.isin.slice(2, 11)}`,
    valor: String(1_000_000 + (src.isin.charCodeAt(9) * 997 + src.isin.charCodeAt(10) * 31)),
    dti: src.dti,
    symbol: src.symbol.slice(0, 10),
    protocol: src.blockChain.startsWith('EVM') ? 'EVM_CHAIN' : 'WASM_CHAIN',
    smartContractAddress: src.tokenAddress,
    isin: src.isin,
    fullName: s.fullName,
    cfi: s.cfi,
    commoditiesDerivativeIndicator: false,
    issuerId: `issuer-${s.issuerLei.slice(0, 10).toLowerCase()}`,
    issuerName: s.issuerName,
    tradingVenue: TRADING_VENUE,
    fisn: s.fisn.slice(0, 35),
    issuerRequestForAdmissionToTrade: true,
    listingDate: '2025-01-02',
    issuerApprovalDate: '2024-12-02T09:00:00Z',
    admissionToTradeRequestDate: '2024-12-09T09:00:00Z',
    effectiveDate: EFFECTIVE,
    terminationDate: terminationDate(s),
    notionalCurrency1: 'EUR',
    mifirIdentifier: bond ? 'BOND' : 'ETFS',
    numberOfOutstandingInstruments: s.issuanceSize,
    holdingsExceedingTotalVotingRightThreshold: '0',
    issuanceSize: s.issuanceSize,
    assetClassOfUnderlying: bond ? 'INTR' : 'EQUI',
    maturityDate: s.maturityDate ?? null,
    contractType: 'OTHR',
    linkedEntities: [
      { entityType: 'TOKENIZER', entityId: 'sandbox-tokenizer', entityName: 'Sandbox Tokenization Services GmbH' },
      { entityType: 'MARKET_MAKER', entityId: 'sandbox-market-maker', entityName: 'Sandbox Liquidity Partners' },
      { entityType: 'REGISTRAR', entityId: 'sandbox-registrar', entityName: 'Sandbox Registrar AG' },
    ],
    availability: {
      classification: ['RETAIL', 'PROFESSIONAL'],
      distribution: ['NATURAL_PERSON', 'LEGAL_ENTITY'],
      jurisdictions: ['DE', 'AT', 'LU'],
    },
    displayData: {
      assetType: bond ? 'D_DEBT_INSTRUMENTS' : 'C_COLLECTIVE_INVESTMENT_VEHICLES',
      subAssetType: bond ? 'D_B' : 'C_E',
      prospectusLink: prospectus(src),
      description: `${s.fullName}, issued by ${s.issuerName} as a token on the venue's ledger.`,
      replication: bond ? 'NONE' : 'PHYSICAL_FULL',
      investmentStyle: bond ? 'FIXED_INCOME' : 'PASSIVE_INDEX',
      useOfIncome: bond ? 'DISTRIBUTING' : 'ACCUMULATING',
      instrumentName: s.fullName,
      instrumentNickname: src.symbol,
      underlyingInstrumentName: bond ? s.fullName : 'Sandbox Global Equity Index',
      underlyingInstrumentNickname: bond ? src.symbol : 'SGEI',
      linkToUnderlying: `https://sandbox.invalid/underlying/${src.isin}`,
    },
    performanceData: bond ? null : performanceData(src),
    debtInstrumentData: bond ? debtInstrumentData(src) : null,
    ...derivativeGroups(src),
    internalId: instrumentId(src.symbol),
    issuerData: issuerData(s),
  };
}
