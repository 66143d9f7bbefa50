/**
 * A pair's market-making obligations in the bot configuration (`pairs[].obligations`, and
 * `sandbox.obligations` for every sandbox pair), and their compiled form (`ObligationTerms` of the core).
 */
import { z } from 'zod';
import { Decimal } from '../decimal.ts';
import type { ObligationTerms } from '../obligations.ts';
import { durationMs, positiveDecimal } from './common.ts';

export const obligationsSchema = z
  .strictObject({
    maxSpreadBps: z
      .number()
      .positive()
      .max(10_000)
      .optional()
      .describe('Maximum spread between our bid and ask, basis points of their midpoint (or maxSpread)'),
    maxSpread: positiveDecimal
      .optional()
      .describe('Maximum spread between our bid and ask as a quote amount (or maxSpreadBps)'),
    minSize: positiveDecimal.optional().describe('Minimum size of each side, base units (or minValue)'),
    minValue: positiveDecimal.optional().describe('Minimum size of each side as its value, quote units (or minSize)'),
    presenceTarget: z
      .number()
      .min(0)
      .max(100)
      .describe('Percent of the continuous trading time of each trading day to quote within the terms'),
    maxSizeRatio: z
      .number()
      .min(0)
      .max(1)
      .default(0.5)
      .describe('The larger side may exceed the smaller by at most this share of the larger'),
    stressedSpreadMultiplier: z
      .number()
      .min(1)
      .max(100)
      .default(1)
      .describe('Factor on the maximum spread while the market is stressed'),
    stressedAfterHaltMs: durationMs
      .default(0)
      .describe('A market counts as stressed for this long after a volatility halt ends'),
    alertMarginMs: durationMs
      .default(1_800_000)
      .describe('Warn when the absence the day can still take before its target is out of reach falls below this'),
    guard: z
      .boolean()
      .default(true)
      .describe('Quote one bid and one ask within the terms when the model would not (false: measure only)'),
  })
  .superRefine((o, ctx) => {
    if ((o.maxSpreadBps === undefined) === (o.maxSpread === undefined))
      ctx.addIssue({
        code: 'custom',
        message: 'set exactly one of maxSpreadBps and maxSpread',
        path: ['maxSpreadBps'],
      });
    if ((o.minSize === undefined) === (o.minValue === undefined))
      ctx.addIssue({ code: 'custom', message: 'set exactly one of minSize and minValue', path: ['minSize'] });
  });

export type ObligationsConfig = z.infer<typeof obligationsSchema>;

export function obligationTerms(c: ObligationsConfig): ObligationTerms {
  return {
    maxSpread:
      c.maxSpreadBps !== undefined
        ? { unit: 'bps', value: new Decimal(c.maxSpreadBps) }
        : { unit: 'quote', value: new Decimal(c.maxSpread as string) },
    minSize:
      c.minSize !== undefined
        ? { unit: 'base', value: new Decimal(c.minSize) }
        : { unit: 'quote', value: new Decimal(c.minValue as string) },
    target: c.presenceTarget / 100,
    maxSizeRatio: c.maxSizeRatio,
    stressedSpreadMultiplier: new Decimal(c.stressedSpreadMultiplier),
  };
}
