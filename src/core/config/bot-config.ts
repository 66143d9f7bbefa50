/**
 * The bot's YAML configuration. Parsed once at start: unknown keys are refused and every problem is reported
 * together. JSON Schema for editors is generated from this file into `config/schema/`.
 */
import { z } from 'zod';
import { sandboxConfigSchema } from './sandbox-config.ts';
import { throttleConfigSchema, throttleLimitsSchema } from './throttle-config.ts';
import { BLOCKCHAIN_VALUES } from '../pair.ts';
import { bps, durationMs, humanDecimal, reportingIds, secretRef } from './common.ts';
import { pairFairValueSchema } from './fair-value-config.ts';
import { chainsSchema } from './chains-config.ts';
import { evaluationProblems, evaluationSchema, recordSchema, reportSchema } from './report-config.ts';
import { obligationsSchema } from './obligations-config.ts';
import { VENUE_DEFAULTS } from './venue-defaults.ts';

/** Risk limits: the top-level `risk` section holds the defaults, a pair's `risk` overrides them key by key. */
export const riskLimitsSchema = z.strictObject({
  maxInventory: humanDecimal.optional().describe('Largest base position (absolute) the quotes may build'),
  maxNotional: humanDecimal.optional().describe('Largest position value at the mark, quote units'),
  maxOpenOrders: z.number().int().min(0).optional().describe('Most live orders at once on the pair'),
  maxOrderValue: humanDecimal.optional().describe('Largest single order value, quote units'),
  dailyLossLimit: humanDecimal
    .optional()
    .describe('Loss since the start of the trading day that trips the kill switch, quote units'),
  maxDrawdown: humanDecimal.optional().describe('Fall from the highest PnL that trips the kill switch, quote units'),
  staleMarketDataMs: durationMs
    .optional()
    .describe('Quotes are pulled when market data is older than this (default 15000)'),
  maxConsecutiveFailures: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Failed transactions in a row before the pair stops (default 5)'),
  failureBackoffMs: durationMs
    .optional()
    .describe('First back-off after a failed transaction, doubling (default 2000)'),
  failureBackoffMaxMs: durationMs.optional().describe('Longest back-off (default 60000)'),
  nativeAlert: humanDecimal.optional().describe('Native fee balance below which an alert is logged'),
  nativeStop: humanDecimal.optional().describe('Native fee balance below which the wallet stops trading'),
  maxOrderMessagesPerDay: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Placements and cancellations a trading day after which no placement is sent (cancels still are)'),
  maxOrderToTradeRatio: z
    .number()
    .positive()
    .optional()
    .describe('Order messages per trade of the day at which placements wait for fills; replacements slow from 80 %'),
});

const tickOverride = z.union([
  z.strictObject({ fixed: humanDecimal.describe('Every price is a multiple of this tick') }),
  z.strictObject({
    table: z
      .array(z.strictObject({ from: humanDecimal, tick: humanDecimal }))
      .min(1)
      .describe('Rows of {from, tick}; a row applies from its price (inclusive) to the next row'),
  }),
]);

export const pairConfigSchema = z.strictObject({
  name: z.string().min(1).optional().describe('Label used in logs and metrics; defaults to BASE/QUOTE@chain'),
  blockChain: z.enum(BLOCKCHAIN_VALUES).describe('Chain of the pair; EVM_CHAIN also matches EVM_CHAIN_TESTNET'),
  base: z.string().min(1).describe('baseTokenData.symbol of the pair'),
  quote: z.string().min(1).describe('quoteTokenSymbol of the pair'),
  wallet: z.string().min(1).describe('Id of the wallet (under wallets) that trades this pair'),
  strategy: z.string().min(1).describe('Strategy file, relative to the config file'),
  enabled: z.boolean().default(true).describe('A disabled pair is not traded'),
  tick: tickOverride
    .optional()
    .describe('Tick override; the venue tables are not public, so this wins over tickSizeMode'),
  minimumSize: humanDecimal.optional().describe('Minimum order size; default one minimumSizeIncrement'),
  valueMarginBps: bps.default(200).describe('Safety margin above minimumOrderValue, in basis points'),
  reporting: reportingIds.optional().describe("The pair's [ownerReportingId, decisionReportingId]; else engine's"),
  allowanceBudget: z
    .strictObject({
      base: humanDecimal.optional().describe('Base units kept approved beyond the next order (sells)'),
      quote: humanDecimal.optional().describe('Quote units kept approved beyond the next order (buys)'),
    })
    .optional()
    .describe(
      'Allowance kept approved ahead of orders, so that most orders need no approval of their own; default four times the need of the order at hand, never unlimited',
    ),
  refreshCost: humanDecimal
    .default('0')
    .describe('Chain cost of re-placing a level (its bid and ask), quote units; widens the fee-aware minimum spread'),
  risk: riskLimitsSchema.optional().describe('Overrides of the risk defaults for this pair'),
  throttle: throttleLimitsSchema.optional().describe('Overrides of throttle.pair for this pair'),
  obligations: obligationsSchema
    .optional()
    .describe('Market-making obligations of this pair: measured, and kept by the quote guard'),
  fairValue: pairFairValueSchema.optional(),
});

export const walletConfigSchema = z.strictObject({
  id: z.string().min(1).describe('Name that pairs refer to'),
  chain: z.enum(['evm', 'wasm']).describe('Chain A (evm) or chain B (wasm)'),
  key: secretRef.describe('Chain A: hex private key. Chain B: secret seed (S...)'),
  marketMaker: z.boolean().default(false).describe('Wallet is flagged as market maker and pays marketMakerCommission'),
  channelAccounts: z
    .array(secretRef)
    .default([])
    .describe('Chain B only: secret seeds of channel accounts used as transaction sources'),
});

export const botConfigSchema = z.strictObject({
  sandbox: sandboxConfigSchema,
  venue: z
    .strictObject({
      restUrl: z.url().describe('REST base URL including /api/v1'),
      wsUrl: z.url().describe('Market-data WebSocket: the AppSync Events realtime URL, wss://<host>/event/realtime'),
      wsHost: z
        .string()
        .min(1)
        .describe(
          'HTTP host of the Events API, sent as authorization.host (e.g. <id>.appsync-api.<region>.amazonaws.com)',
        ),
      dateHeader: z
        .string()
        .regex(/^x-[a-z0-9-]+-date$/)
        .default('x-amz-date')
        .describe('Date field of the WebSocket authorization'),
      apiKey: secretRef.describe('x-api-key of the WebSocket authorization'),
      accessToken: secretRef
        .optional()
        .describe('A fixed bearer token for participant and wallet order endpoints, instead of venue.oauth'),
      oauth: z
        .strictObject({
          tokenUrl: z
            .url()
            .describe('Token endpoint of the OAuth2 client-credentials grant (https; plain http only on this machine)'),
          clientId: secretRef.describe('Client id'),
          clientSecret: secretRef.describe('Client secret'),
          scope: z.string().min(1).optional().describe('Space-separated scopes to ask for; none by default'),
          clientAuth: z
            .enum(['basic', 'post'])
            .default('basic')
            .describe(
              'How the client authenticates at the token endpoint: HTTP Basic (client_secret_basic) or the form body (client_secret_post)',
            ),
        })
        .optional()
        .describe(
          'Bearer tokens of the participant and wallet order endpoints from an OAuth2 client-credentials grant, renewed ahead of expiry',
        ),
      participantId: z.string().min(1).optional().describe('Participant id of the participant order endpoint'),
      requestTimeoutMs: durationMs.default(VENUE_DEFAULTS.requestTimeoutMs).describe('Timeout of one REST request'),
      tradeInfoPollMs: durationMs
        .default(VENUE_DEFAULTS.tradeInfoPollMs)
        .describe("How often each pair's trade info (status, last price) is read"),
      marketDataStaleMs: durationMs
        .default(VENUE_DEFAULTS.marketDataStaleMs)
        .describe('A market without a WebSocket message this long is stale and served from REST snapshots'),
    })
    .optional(),
  chains: chainsSchema,
  wallets: z.array(walletConfigSchema).default([]),
  pairs: z.array(pairConfigSchema).default([]),
  calendar: z
    .strictObject({
      enabled: z.boolean().default(true).describe('Gate trading on 08:00-17:00 Europe/Berlin weekdays'),
      holidays: z.array(z.iso.date()).default([]).describe('Berlin dates without trading, YYYY-MM-DD'),
    })
    .default({ enabled: true, holidays: [] }),
  risk: riskLimitsSchema.default({}).describe('Risk limit defaults of every pair'),
  throttle: throttleConfigSchema,
  engine: z
    .strictObject({
      tickMs: durationMs
        .default(5_000)
        .describe('Recompute every pair at least this often (time-based parameters, back-off ends)'),
      phasePollMs: durationMs.default(5_000).describe('Read each order book phase this often'),
      balanceMaxAgeMs: durationMs.default(10_000).describe('Read balances again after this long even without activity'),
      inventoryCheckMs: durationMs
        .default(60_000)
        .describe('Compare derived inventory with on-chain balances this often'),
      tradeCheckMs: durationMs
        .default(60_000)
        .describe(
          "Compare the venue's list of each wallet's trades with the fills read from the chain this often (0: never)",
        ),
      tradeCheckGraceMs: durationMs
        .default(120_000)
        .describe('A trade final at the venue, or a fill of ours, unmatched this long after is a mismatch'),
      shutdownTimeoutMs: durationMs
        .default(60_000)
        .describe('SIGTERM: how long to wait for the cancellations to be final'),
      crossIdTag: z
        .number()
        .int()
        .min(1)
        .max(255)
        .default(0xd1)
        .describe('High byte of our client order ids (cross identifiers); tells our orders from others'),
      reporting: reportingIds
        .default([0, 0])
        .describe('[ownerReportingId, decisionReportingId]: the 32-bit values every order carries for surveillance'),
    })
    .prefault({}),
  report: reportSchema,
  record: recordSchema,
  evaluation: evaluationSchema,
  store: z
    .strictObject({
      path: z.string().min(1).default('state/dlt-mm.sqlite').describe('SQLite state file, relative to the config file'),
    })
    .default({ path: 'state/dlt-mm.sqlite' }),
  telemetry: z
    .strictObject({
      metricsPort: z.number().int().min(0).max(65535).default(9464).describe('Port of /metrics, /healthz and /readyz'),
      metricsHost: z.string().default('0.0.0.0').describe('Interface the telemetry server listens on'),
      logLevel: z
        .enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal'])
        .default('info')
        .describe(
          'Least level logged; JSON lines on standard output, or in the log file when a terminal shows the board',
        ),
    })
    .default({ metricsPort: 9464, metricsHost: '0.0.0.0', logLevel: 'info' }),
});

export type BotConfig = z.infer<typeof botConfigSchema>;
export type PairConfig = z.infer<typeof pairConfigSchema>;
export type WalletConfig = z.infer<typeof walletConfigSchema>;

/** Cross-field rules a schema cannot express; returns every problem. */
export function crossCheckBotConfig(config: BotConfig): string[] {
  const problems: string[] = [];
  const embedded = config.sandbox?.embedded === true || config.sandbox?.manifest !== undefined;
  if (!embedded && config.venue === undefined)
    problems.push('venue: required unless sandbox.embedded or sandbox.manifest is set');
  // A sandbox names its own venue and wallets: keys that would be ignored beside it are refused instead.
  const sandboxKey =
    config.sandbox?.embedded === true
      ? 'sandbox.embedded'
      : config.sandbox?.manifest !== undefined
        ? 'sandbox.manifest'
        : null;
  if (sandboxKey !== null && config.venue !== undefined)
    problems.push(`venue: not used with ${sandboxKey} (the sandbox names its venue); remove one of them`);
  if (sandboxKey !== null && config.wallets.length > 0)
    problems.push(
      `wallets: not used with ${sandboxKey} (the sandbox's market-maker wallets trade); remove one of them`,
    );
  if (config.sandbox?.embedded === true && config.sandbox.manifest !== undefined)
    problems.push('sandbox: set sandbox.embedded or sandbox.manifest, not both');
  if (config.venue !== undefined) {
    if (config.venue.accessToken !== undefined && config.venue.oauth !== undefined)
      problems.push('venue: set venue.oauth or venue.accessToken, not both');
    if (config.venue.accessToken === undefined && config.venue.oauth === undefined)
      problems.push(
        'venue: venue.oauth (client credentials) or venue.accessToken is required: the order endpoints need a bearer token',
      );
  }
  problems.push(...evaluationProblems(config.evaluation));
  const wallets = new Map<string, (typeof config.wallets)[number]>();
  config.wallets.forEach((w, i) => {
    if (wallets.has(w.id)) problems.push(`wallets.${i}.id: duplicate wallet id ${JSON.stringify(w.id)}`);
    wallets.set(w.id, w);
    if (w.chain === 'evm' && w.channelAccounts.length > 0)
      problems.push(`wallets.${i}.channelAccounts: only chain B wallets have channel accounts`);
    if (!embedded && config.chains[w.chain] === undefined)
      problems.push(`wallets.${i}: chains.${w.chain} is not configured`);
  });
  config.pairs.forEach((p, i) => {
    const w = wallets.get(p.wallet);
    if (!embedded && w === undefined) problems.push(`pairs.${i}.wallet: no wallet with id ${JSON.stringify(p.wallet)}`);
    const chain = p.blockChain.startsWith('EVM') ? 'evm' : 'wasm';
    if (w !== undefined && w.chain !== chain)
      problems.push(`pairs.${i}.wallet: wallet ${w.id} is on ${w.chain}, the pair on ${chain}`);
  });
  return problems;
}
