/**
 * Placement throttles (RTS 6 message-rate controls): how many placement transactions a wallet, and each pair,
 * may have in one block or ledger and in one second. Off unless configured. Cancellations are never throttled.
 */
import { z } from 'zod';

export const throttleLimitsSchema = z.strictObject({
  perBlock: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      'Placement transactions in one block or ledger at most: no more are sent while this many are not yet included',
    ),
  perSecond: z.number().int().min(1).optional().describe('Placement transactions sent in any one second at most'),
});

export const throttleConfigSchema = z
  .strictObject({
    wallet: throttleLimitsSchema.default({}).describe('Limits of each wallet, over all its pairs'),
    pair: throttleLimitsSchema.default({}).describe('Limits of each pair (a pair may override them)'),
  })
  .default({ wallet: {}, pair: {} })
  .describe('Placement throttles; placements wait (in a later round), cancellations never do');

export type ThrottleLimitsConfig = z.infer<typeof throttleLimitsSchema>;
