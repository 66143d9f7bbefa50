/** Strategy files (`strategies/*.yaml`): one quote model and its parameters per file. */
import { z } from 'zod';
import { bps, durationMs, humanDecimal } from './common.ts';

const referencePrice = z.enum(['mid', 'microprice', 'last', 'static']);

const common = {
  description: z.string().optional(),
  referencePrice: z
    .array(referencePrice)
    .min(1)
    .default(['mid', 'last', 'static'])
    .describe('Reference price sources, first available wins'),
  refresh: z
    .strictObject({
      priceToleranceTicks: z.number().int().min(0).default(1).describe('Keep a live quote while its price is within this many ticks'),
      sizeTolerance: humanDecimal.default('0').describe('Keep a live quote while its size differs by at most this much'),
    })
    .default({ priceToleranceTicks: 1, sizeTolerance: '0' }),
  minSpreadBps: bps.default(10).describe('Never quote tighter than this (the fee-aware floor applies on top)'),
};

const ladder = z.strictObject({
  levels: z.number().int().min(1).max(50).default(1),
  spacingBps: bps.default(10).describe('Distance between levels'),
  sizes: z.array(humanDecimal).min(1).describe('Size per level (the last repeats)'),
  bidSpreadBps: bps.describe('Distance of the first bid below the reference'),
  askSpreadBps: bps.describe('Distance of the first ask above the reference'),
});

const skew = z.strictObject({
  targetInventory: humanDecimal.default('0').describe('Base inventory the skew pulls towards'),
  maxInventory: humanDecimal.describe('Hard bound: no further bids above, no further asks below its negative'),
  priceSkewBps: bps.default(0).describe('Price shift at full inventory deviation'),
  sizeSkew: z.number().min(0).max(1).default(0).describe('Fraction of size removed from the side that adds inventory at full deviation'),
});

export const strategyConfigSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('ladder'), ...common, ladder, skew: skew.optional() }),
  z.strictObject({
    kind: z.literal('avellaneda-stoikov'),
    ...common,
    avellanedaStoikov: z.strictObject({
      riskAversion: z.number().positive().describe('gamma'),
      orderBookLiquidity: z.number().positive().describe('kappa, arrival-rate decay of market orders'),
      volatilityWindow: z.number().int().min(2).default(100).describe('Mid-price samples for the online volatility estimate'),
      minVolatility: z.number().min(0).default(0.0001).describe('Volatility floor, per square-root second'),
      horizonMs: durationMs.optional().describe('Fixed horizon; default: time to the close'),
      size: humanDecimal,
      maxInventory: humanDecimal,
    }),
  }),
]);

export type StrategyConfig = z.infer<typeof strategyConfigSchema>;
