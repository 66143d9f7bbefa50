/**
 * Fair value: the strategy file's `fairValue` block (which sources, how they combine, the guards) and a pair's
 * fair-value facts (where its feed and oracle are, how its bond is quoted), which come from the bot
 * configuration's `pairs[].fairValue` or a sandbox manifest. Units: ages and intervals in milliseconds,
 * deviations in basis points, prices in quote per base, bond prices per 100 nominal, rates in percent.
 */
import { z } from 'zod';
import { DAY_COUNTS } from '../bond/day-count.ts';
import { FREQUENCIES } from '../bond/schedule.ts';
import { durationMs, humanDecimal, secretRef } from './common.ts';

const positiveDuration = durationMs.min(1);
const signedDecimal = z.string().regex(/^-?[0-9]+(?:\.[0-9]+)?$/, 'expected a decimal string like "3.1" or "-0.2"');
const bp = z.number().min(0).max(100_000);

/** An HTTP(S) JSON document polled for one number and its time. */
export const feedSchema = z.strictObject({
  url: z
    .string()
    .min(1)
    .optional()
    .describe(
      "URL of the JSON document; {isin}, {symbol} and {base} are replaced by the pair's. Default: the pair's feed (pairs[].fairValue.feedUrl or the sandbox manifest)",
    ),
  pricePath: z.string().min(1).default('price').describe('Dotted path of the number in the document ("data.0.price")'),
  timePath: z
    .string()
    .min(1)
    .default('timestamp')
    .describe('Dotted path of its time: unix seconds, unix milliseconds (above 10^11) or ISO 8601 text'),
  pollMs: positiveDuration.default(1_000).describe('How often the document is read'),
  timeoutMs: positiveDuration.default(2_000).describe('Longest wait for one answer'),
  maxAgeMs: positiveDuration.default(10_000).describe('A value older than this (by its own time) is unusable'),
  headers: z
    .record(z.string().min(1), z.union([z.string(), secretRef]))
    .default({})
    .describe('Request headers; a secret value is {env: NAME} or {file: path}, never inline'),
});
export type FeedConfig = z.infer<typeof feedSchema>;

const feedSource = feedSchema.extend({
  kind: z.literal('feed').describe('An external HTTP(S) JSON price'),
});

const oracleSource = z.strictObject({
  kind: z
    .literal('oracle')
    .describe(
      "On-chain oracle of the pair's chain: a Chainlink-compatible aggregator (chain A), a SEP-40 contract (chain B)",
    ),
  pollMs: positiveDuration.default(2_000).describe('How often the oracle is read'),
  maxAgeMs: positiveDuration
    .default(3_900_000)
    .describe(
      "An answer older than this (updatedAt / the price's timestamp) is unusable; above the oracle's heartbeat",
    ),
});

const navSource = z.strictObject({
  kind: z.literal('nav').describe("The fund's NAV from GET /financialinstruments/{id} (performanceData.nav)"),
  pollMs: positiveDuration.default(60_000).describe('How often the instrument record is read'),
  maxAgeMs: positiveDuration
    .default(345_600_000)
    .describe('A NAV whose navLastUpdate is older than this is unusable (default 4 days: a weekend and a holiday)'),
  accrual: z
    .strictObject({
      ratePercent: signedDecimal.describe('Annual rate the fund accrues at, percent (simple interest)'),
      dayCount: z.enum(['ACT/360', 'ACT/365F']).default('ACT/365F').describe('Day count of the accrual'),
    })
    .optional()
    .describe('Accumulating funds: the NAV grown from its date to now'),
});

const bondSource = z.strictObject({
  kind: z
    .literal('bond')
    .describe("Price from a yield with the instrument's coupon, maturity and issue date (debtInstrumentData)"),
  frequency: z
    .number()
    .int()
    .refine((f) => (FREQUENCIES as readonly number[]).includes(f), 'must be 1, 2, 4 or 12')
    .default(1)
    .describe('Coupons a year: 1, 2, 4 or 12'),
  dayCount: z.enum(DAY_COUNTS).default('ACT/ACT-ICMA').describe('Day count of accrued interest and discounting'),
  yield: z
    .union([
      z.strictObject({ fixed: signedDecimal.describe('Yield, percent, compounded at the coupon frequency') }),
      z.strictObject({
        feed: feedSchema.describe("A benchmark yield (percent) from a feed; its URL defaults to the pair's yield feed"),
        spreadBps: z.number().min(-10_000).max(10_000).default(0).describe('Added to the benchmark yield, bp'),
      }),
    ])
    .describe('The yield the bond is priced at'),
  convention: z
    .enum(['clean', 'dirty'])
    .optional()
    .describe("Whether the venue quotes the token clean or dirty (default the pair's, else clean)"),
  nominalPerToken: humanDecimal
    .optional()
    .describe(
      "Nominal of one token: the price per token is the price per 100 times this / 100 (default the pair's, else 100)",
    ),
  pollMs: positiveDuration.default(3_600_000).describe('How often the instrument record is read'),
});

export const fairValueSourceSchema = z.discriminatedUnion('kind', [feedSource, oracleSource, navSource, bondSource]);
export type FairValueSourceConfig = z.infer<typeof fairValueSourceSchema>;
export type FairValueSourceKind = FairValueSourceConfig['kind'];

export const fairValueSchema = z
  .strictObject({
    sources: z
      .array(fairValueSourceSchema)
      .min(1)
      .refine((l) => new Set(l.map((s) => s.kind)).size === l.length, 'each kind at most once')
      .describe('Where the fair value comes from, in order of preference'),
    combine: z
      .enum(['first', 'median'])
      .default('first')
      .describe('first: the first usable source in order; median: the median of the usable ones'),
    maxDispersionBps: bp
      .default(100)
      .describe('median: usable sources further apart than this (bp of the median) stop the pair quoting'),
    guards: z
      .strictObject({
        maxDeviationBps: bp
          .optional()
          .describe("Fair value further than this from the mid of others' book (bp) starts the deviation action"),
        onDeviation: z
          .enum(['pull', 'widen', 'quote'])
          .default('pull')
          .describe(
            "pull: cancel our quotes; widen: every quote's distance from the centre times widenFactor; quote: around fair value regardless",
          ),
        widenFactor: z.number().min(1).max(100).default(2).describe('Factor of the widen action'),
        jump: z
          .strictObject({
            thresholdBps: bp.describe('A fair value moving more than this (bp) within the window...'),
            windowMs: positiveDuration.default(60_000).describe('...of this length...'),
            coolDownMs: positiveDuration
              .default(30_000)
              .describe('...pauses the pair this long after the last such move'),
          })
          .optional()
          .describe('Jump guard: a pause after a sudden move, so quotes are not left around a price that jumped'),
      })
      .prefault({})
      .describe('Guards: each visible on /metrics and the board, logged once when it starts and once when it ends'),
  })
  .describe("The pair's own fair value, the `fair` reference source");
export type FairValueConfig = z.infer<typeof fairValueSchema>;

/** What a pair contributes to its fair value: where its feeds and oracle are, how its bond is quoted. */
export const pairFairValueSchema = z
  .strictObject({
    feedUrl: z.string().min(1).optional().describe("URL of the pair's price feed (JSON)"),
    yieldFeedUrl: z.string().min(1).optional().describe("URL of the benchmark yield feed of the pair's bond (JSON)"),
    oracle: z
      .strictObject({
        address: z.string().min(1).describe('Chain A: the aggregator (0x...); chain B: the SEP-40 contract (C...)'),
        asset: z
          .string()
          .min(1)
          .optional()
          .describe(
            'Chain B: the asset the contract prices, a contract address (C...) or a symbol; default the base token',
          ),
      })
      .optional()
      .describe("The pair's on-chain price oracle"),
    bond: z
      .strictObject({
        convention: z.enum(['clean', 'dirty']).default('clean').describe('The venue quotes the token clean or dirty'),
        nominalPerToken: humanDecimal.default('100').describe('Nominal of one token'),
      })
      .optional()
      .describe("How the pair's bond is quoted"),
  })
  .describe(
    "The pair's fair-value facts: its feed, its oracle, how its bond is quoted (strategy fairValue sources use them)",
  );
export type PairFairValue = z.infer<typeof pairFairValueSchema>;
