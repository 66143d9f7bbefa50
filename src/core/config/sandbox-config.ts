/** The sandbox section of the bot's configuration: an embedded sandbox, or a running one by its manifest. */
import { z } from 'zod';
import { channelCount, portBase } from './common.ts';
import { obligationsSchema } from './obligations-config.ts';

export const sandboxConfigSchema = z
  .strictObject({
    embedded: z
      .boolean()
      .default(false)
      .describe('Start the local sandbox in-process and take every address and credential from it'),
    manifest: z.string().optional().describe('Use a running sandbox described by this manifest file'),
    strategy: z
      .string()
      .default('../strategies/ladder.yaml')
      .describe('Strategy of every sandbox pair when `pairs` is empty'),
    portBase: portBase
      .optional()
      .describe('Embedded sandbox: API on this port, chain A +1, chain B +2 (default: free)'),
    flow: z.boolean().default(true).describe('Embedded sandbox: run the simulated market'),
    channelAccounts: channelCount
      .optional()
      .describe(
        'Embedded sandbox: chain B channel accounts of its market maker (default 8): its transactions per ledger',
      ),
    obligations: obligationsSchema
      .optional()
      .describe('Market-making obligations of every sandbox pair without a pairs entry of its own'),
    wallets: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe("Names of the sandbox's wallets that trade (each quotes all its pairs); default its market makers"),
  })
  .optional();
