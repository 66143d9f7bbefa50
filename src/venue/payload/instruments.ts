/**
 * Financial instruments: the list (`FinancialInstrumentTableBaseWithId`) and the detail
 * (`FinancialInstrumentPublic`). Top-level fields are checked against the specification's formats; the
 * nested descriptive objects (displayData, derivativeData, ...) are kept as sent, since the bot reads none of
 * them, except the two a fair value needs: `performanceData` (a fund's NAV) and `debtInstrumentData` (a
 * bond's terms), whose fields are checked. `null` is accepted for an absent optional field. Unknown fields
 * are kept.
 */
import { z } from 'zod';
import { chainAddress, countryCode, currencyCode, dateTime, decimalString, isin } from '../../core/formats.ts';
import { malformedPayload, parseEach, zodProblems, fieldError, type Lenient } from './problems.ts';

const text = (max: number) => z.string().max(max).nullish();
const date = z.iso.date().nullish();

const instrumentSummarySchema = z
  .object({
    symbol: text(255),
    fullName: text(255),
    status: text(255),
    isin: isin.nullish(),
    dti: text(255),
    issuerName: text(255),
    prospectusLink: text(255),
    effectiveDate: dateTime.nullish(),
    terminationDate: dateTime.nullish(),
    smartContractAddress: chainAddress.nullish(),
    internalId: text(255),
  })
  .loose();

const performanceDataSchema = z
  .object({
    nav: decimalString.nullish(),
    navCurrency: currencyCode.nullish(),
    navLastUpdate: date,
    navSource: text(255),
  })
  .loose();

const debtInstrumentDataSchema = z
  .object({
    totalIssuedNominalAmount: decimalString.nullish(),
    maturityDate: date,
    currency: currencyCode.nullish(),
    fixedRate: decimalString.nullish(),
    bondIssuanceDate: date,
    indexBenchmark: z
      .object({ isin: isin.nullish(), indexName: text(25), basePointSpread: z.number().int().min(0).nullish() })
      .loose()
      .nullish(),
  })
  .loose();

const instrumentSchema = z
  .object({
    fullName: z.string().max(255),
    status: text(255),
    domicile: countryCode.nullish(),
    wkn: text(6),
    sedol: text(7),
    cusip: text(9),
    valor: text(50),
    dti: text(9),
    symbol: text(10),
    protocol: text(255),
    smartContractAddress: chainAddress.nullish(),
    isin: isin.nullish(),
    cfi: z
      .string()
      .regex(/^[A-Z]{6}$/, 'expected six capital letters')
      .nullish(),
    commoditiesDerivativeIndicator: z.boolean().nullish(),
    issuerId: text(255),
    issuerName: text(255),
    tradingVenue: text(4),
    fisn: text(35),
    issuerRequestForAdmissionToTrade: z.boolean().nullish(),
    listingDate: date,
    issuerApprovalDate: dateTime.nullish(),
    admissionToTradeRequestDate: dateTime.nullish(),
    effectiveDate: dateTime.nullish(),
    terminationDate: dateTime.nullish(),
    notionalCurrency1: currencyCode.nullish(),
    numberOfOutstandingInstruments: decimalString.nullish(),
    holdingsExceedingTotalVotingRightThreshold: decimalString.nullish(),
    issuanceSize: decimalString.nullish(),
    maturityDate: date,
    linkedEntities: z.array(z.object({ entityType: z.string() }).loose()).nullish(),
    performanceData: performanceDataSchema.nullish(),
    debtInstrumentData: debtInstrumentDataSchema.nullish(),
    internalId: text(255),
  })
  .loose();

export type FinancialInstrumentSummary = z.infer<typeof instrumentSummarySchema>;
export type FinancialInstrument = z.infer<typeof instrumentSchema>;

/** The list is a top-level array; a bad item is set aside with its problems. */
export function parseInstrumentList(body: unknown, source: string): Lenient<FinancialInstrumentSummary> {
  if (!Array.isArray(body)) throw fieldError(source, '(root)', body, 'expected an array of instruments');
  return parseEach(body, (raw, i) => {
    const r = instrumentSummarySchema.safeParse(raw);
    if (!r.success) throw malformedPayload(source, zodProblems(r.error, raw, String(i)));
    return r.data;
  });
}

export function parseInstrument(body: unknown, source: string): FinancialInstrument {
  const r = instrumentSchema.safeParse(body);
  if (!r.success) throw malformedPayload(source, zodProblems(r.error, body));
  return r.data;
}
