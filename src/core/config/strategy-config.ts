/**
 * Strategy files (`strategies/*.yaml`): one quote model and its parameters per file. Units: prices in quote
 * per base, sizes and inventories in base units (or quote units where a parameter says so), spreads in basis
 * points of the reference price, times in milliseconds, volatility per square-root second.
 */
import { z } from 'zod';
import { bps, durationMs, humanDecimal, positiveDecimal } from './common.ts';
import { fairValueSchema } from './fair-value-config.ts';

export const REFERENCE_SOURCES = ['fair', 'mid', 'microprice', 'last', 'static'] as const;

const referenceSource = z
  .enum(REFERENCE_SOURCES)
  .describe(
    "fair: the pair's own fair value (the fairValue block); mid: halfway between the best bid and ask of others; microprice: the best bid and ask weighted by the opposite side's size; " +
      "last: the last execution price; static: the pair's static reference price. Book sources need both sides.",
  );

const common = {
  description: z.string().optional().describe('Free text for people reading the file'),
  referencePrice: z
    .array(referenceSource)
    .min(1)
    .refine((list) => new Set(list).size === list.length, 'each source at most once')
    .default(['mid', 'last', 'static'])
    .describe('Reference price sources in order of preference: the first available wins'),
  refresh: z
    .strictObject({
      priceToleranceTicks: z
        .number()
        .int()
        .min(0)
        .default(1)
        .describe('Keep a live order while its price is within this many ticks of the desired price'),
      sizeTolerance: humanDecimal
        .default('0')
        .describe(
          'Keep a live order while its remaining size differs from the desired size by at most this (base units)',
        ),
    })
    .prefault({})
    .describe('When a live order is left alone rather than replaced'),
  fairValue: fairValueSchema.optional(),
  minSpreadBps: bps
    .default(10)
    .describe(
      'Margin a bid and ask pair must earn after the maker commission on both legs and the refresh cost, in bp of the centre',
    ),
};

const ladder = z
  .strictObject({
    levels: z.number().int().min(1).max(50).default(3).describe('Quotes per side'),
    spacingBps: bps.default(10).describe('Distance between consecutive levels, bp of the centre'),
    sizes: z.array(positiveDecimal).min(1).describe('Size per level from the nearest outwards; the last repeats'),
    sizeUnit: z
      .enum(['base', 'quote'])
      .default('base')
      .describe('base: sizes are base quantities; quote: sizes are order values in quote units'),
    bidSpreadBps: bps.describe('Distance of the first bid below the centre, bp'),
    askSpreadBps: bps.describe('Distance of the first ask above the centre, bp'),
  })
  .describe('Levels, spacing, sizes and per-side spreads');

const skew = z
  .strictObject({
    targetInventory: humanDecimal.default('0').describe('Base inventory (free plus locked) the skew pulls towards'),
    maxInventory: positiveDecimal.describe(
      'Hard bound on the deviation from the target (base units): bids stop at target + max, asks at target - max, and no side quotes more than the room left',
    ),
    priceSkewBps: bps.default(0).describe('Centre shift against the position at full deviation, bp of the reference'),
    sizeSkew: z
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe('Fraction of size removed from the side that adds to the position, at full deviation'),
  })
  .describe('Inventory skew towards a target; without it the ladder ignores inventory (funds still apply)');

const volatility = z
  .strictObject({
    halfLifeMs: durationMs.min(1).default(300_000).describe('Half-life of the exponentially weighted variance'),
    minimum: z.number().min(0).default(0.00001).describe('Floor of sigma, per square-root second'),
    initial: z.number().min(0).default(0.00005).describe('Sigma assumed before any sample, per square-root second'),
    maxGapMs: durationMs
      .min(1)
      .default(600_000)
      .describe('Samples further apart than this re-anchor the estimate instead of counting as one return'),
  })
  .prefault({})
  .describe('Online volatility of the reference price (log returns)');

const avellanedaStoikov = z
  .strictObject({
    riskAversion: z
      .number()
      .positive()
      .describe('gamma, dimensionless: reservation shift and spread per lot of inventory'),
    orderBookLiquidity: z
      .number()
      .positive()
      .describe('kappa, per unit of relative distance: order arrival falls by e every 1/kappa of the reference'),
    size: positiveDecimal.describe('Base quantity of each quote; inventory is counted in lots of this size'),
    targetInventory: humanDecimal.default('0').describe('Base inventory (free plus locked) the model pulls towards'),
    maxInventory: positiveDecimal.describe('Hard bound on the deviation from the target, base units'),
    horizonMs: durationMs
      .min(1)
      .optional()
      .describe('Fixed horizon T - t; without it, the time to the session close (no quotes when that is unknown)'),
    volatility,
  })
  .describe('Avellaneda-Stoikov model parameters');

const strategyKinds = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('ladder').describe('A spread ladder around the reference'),
    ...common,
    ladder,
    skew: skew.optional(),
  }),
  z.strictObject({
    kind: z.literal('avellaneda-stoikov').describe('Avellaneda-Stoikov reservation price and optimal spread'),
    ...common,
    avellanedaStoikov,
  }),
]);

export const strategyConfigSchema = strategyKinds.refine(
  (s) => !s.referencePrice.includes('fair') || s.fairValue !== undefined,
  { message: 'referencePrice names fair: the fairValue block says where it comes from', path: ['fairValue'] },
);

export type StrategyConfig = z.infer<typeof strategyConfigSchema>;
export type LadderStrategyConfig = Extract<StrategyConfig, { kind: 'ladder' }>;
export type AvellanedaStoikovStrategyConfig = Extract<StrategyConfig, { kind: 'avellaneda-stoikov' }>;
