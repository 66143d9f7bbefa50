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
  readonly tradingHaltCounter?: number;
  /** Every field as sent, including those the specification does not list. */
  readonly raw: Readonly<Record<string, unknown>>;
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
