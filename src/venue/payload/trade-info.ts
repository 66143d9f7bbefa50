/** `GET /tradingpairs/{id}/tradeinfo`: last and reference prices, 24 h change and volume, status. */
import { z } from 'zod';
import type { Decimal } from '../../core/decimal.ts';
import { int32Min0 } from '../../core/formats.ts';
import { decimalValue, nonNegativeDecimal } from './decimal-value.ts';
import { malformedPayload, zodProblems } from './problems.ts';

// null is read as "no value" (no trade yet has no last price); unknown fields are kept.
const tradeInfoSchema = z
  .object({
    lastPrice: nonNegativeDecimal.nullish(),
    referencePrice: nonNegativeDecimal.nullish(),
    priceChange24h: decimalValue.nullish(),
    tradeVolume24h: nonNegativeDecimal.nullish(),
    liquidityBand: int32Min0.nullish(),
    tradingStatus: z.string().max(255).nullish(),
    statusChangeReason: z.string().max(255).nullish(),
    statusChangeReasonText: z.string().max(255).nullish(),
    estimatedTradingHaltEnd: z.string().max(64).nullish(),
    tradingHaltCounter: int32Min0.nullish(),
  })
  .loose();

export interface TradeInfo {
  readonly lastPrice?: Decimal;
  readonly referencePrice?: Decimal;
  /** In percent. */
  readonly priceChange24h?: Decimal;
  /** Base tokens traded in the last 24 hours. */
  readonly tradeVolume24h?: Decimal;
  readonly liquidityBand?: number;
  readonly tradingStatus?: string;
  readonly statusChangeReason?: string;
  /** Free text of the venue's documentation beside the reason. */
  readonly statusChangeReasonText?: string;
  /** ISO date-time the venue expects a halt to end (its documentation and SDK). */
  readonly estimatedTradingHaltEnd?: string;
  readonly tradingHaltCounter?: number;
  /** Every field as sent, including those the specification does not list. */
  readonly raw: Readonly<Record<string, unknown>>;
}

/** Trading statuses: the specification's, in the REST rendering the venue's SDK shows. */
const TRADING_STATUSES: ReadonlySet<string> = new Set([
  'CREATED',
  'OUT_OF_TRADING',
  'CONTINUOUS_TRADING',
  'AUTOMATIC_TRADING_HALT',
  'MANUAL_TRADING_HALT',
  'DISABLED',
  'PERMANENTLY_DELETED',
]);

/** Status-change reasons by the specification's meanings, with the names the venue's SDK confirms. */
const STATUS_CHANGE_REASONS: ReadonlySet<string> = new Set([
  'N_A',
  'TRADING_PAIR_CREATION',
  'START_OF_TRADING_DAY',
  'MANUAL_MARKET_OPEN',
  'END_OF_TRADING_DAY',
  'MANUAL_MARKET_CLOSE',
  'REGULATOR_INITIATED_HALT',
  'PARTICIPANT_INITIATED_HALT',
  'VENUE_INITIATED_HALT',
  'CAPACITY_LIMIT_HALT',
  'VOLATILITY_HALT',
  'TECHNICAL_HALT',
  'TRADING_PAIR_ACTIVATED',
  'TRADING_PAIR_DEACTIVATED',
  'TRADING_PAIR_OFFBOARDING',
  'AUTOMATIC_RESUME',
]);

/**
 * The fields whose value this bot does not know: data, never a failure (a status other than
 * `CONTINUOUS_TRADING` means not open whatever it is).
 */
export function unknownValues(t: TradeInfo): { readonly field: string; readonly value: string }[] {
  const out: { field: string; value: string }[] = [];
  if (t.tradingStatus !== undefined && !TRADING_STATUSES.has(t.tradingStatus))
    out.push({ field: 'tradingStatus', value: t.tradingStatus });
  if (t.statusChangeReason !== undefined && !STATUS_CHANGE_REASONS.has(t.statusChangeReason))
    out.push({ field: 'statusChangeReason', value: t.statusChangeReason });
  return out;
}

export function parseTradeInfo(body: unknown, source: string): TradeInfo {
  const r = tradeInfoSchema.safeParse(body);
  if (!r.success) throw malformedPayload(source, zodProblems(r.error, body));
  const info: Record<string, unknown> = { raw: body as Record<string, unknown> };
  for (const key of Object.keys(tradeInfoSchema.shape) as (keyof typeof tradeInfoSchema.shape)[]) {
    const value = r.data[key];
    if (value !== null && value !== undefined) info[key] = value;
  }
  return info as unknown as TradeInfo;
}
