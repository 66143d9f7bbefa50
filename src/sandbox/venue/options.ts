/**
 * The sandbox's settings: every port, interval and switch, with defaults, from a YAML file
 * (`config/sandbox.yaml`), command-line flags or the caller of `startSandbox`. Unknown keys are refused and
 * every problem is reported at once. Port 0 means "any free port" (tests).
 */
import { Networks } from '@stellar/stellar-sdk';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { DltError } from '../../core/errors.ts';
import { DEFAULT_CALENDAR, type CalendarConfig } from '../../core/calendar.ts';

const port = z.number().int().min(0).max(65535);
const ms = (d: number) => z.number().int().min(0).default(d);
const positiveMs = (d: number) => z.number().int().min(1).default(d);

export const sandboxConfigSchema = z.strictObject({
  ports: z
    .strictObject({
      api: port.default(8080).describe('REST (/api/v1), WebSocket (/event/realtime) and control (/sandbox/)'),
      evm: port.default(8545).describe('Chain A JSON-RPC'),
      wasm: port.default(8000).describe('Chain B JSON-RPC (/rpc) and friendbot'),
    })
    .prefault({}),
  evm: z.strictObject({ blockTimeMs: positiveMs(2000).describe('Chain A interval mining') }).prefault({}),
  wasm: z
    .strictObject({
      ledgerIntervalMs: ms(5000).describe('Chain B ledger close interval; 0 closes only on request'),
      retentionLedgers: z
        .number()
        .int()
        .min(1)
        .max(120_960)
        .default(720)
        .describe(
          'Ledgers of transactions and events the chain B RPC keeps (getTransaction, getEvents); kept in memory, so bounded',
        ),
      networkPassphrase: z.string().min(1).default(Networks.STANDALONE),
      channelAccounts: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .default(8)
        .describe(
          'Channel accounts of the chain B market-maker wallet (in the manifest): up to this many of its transactions per ledger',
        ),
    })
    .prefault({}),
  api: z
    .strictObject({
      apiKey: z.string().min(8).max(255).optional().describe('WebSocket x-api-key; default random per start'),
      accessToken: z
        .string()
        .min(8)
        .max(255)
        .optional()
        .describe('A fixed REST bearer token, never expiring; default random per start'),
      clientId: z
        .string()
        .min(1)
        .max(255)
        .default('dlt-mm-sandbox')
        .describe('Client id of the token endpoint (client-credentials grant)'),
      clientSecret: z
        .string()
        .min(8)
        .max(255)
        .optional()
        .describe('Client secret of the token endpoint; default random per start'),
      tokenLifetimeSeconds: z
        .number()
        .int()
        .min(1)
        .max(86_400)
        .default(3600)
        .describe('expires_in of the tokens the token endpoint grants (wall time)'),
      participantId: z.string().min(1).max(255).default('P-SANDBOX-0001'),
      dateHeader: z
        .string()
        .regex(/^x-[a-z0-9-]+-date$/)
        .default('x-amz-date')
        .describe('Date field of the WebSocket authorization'),
      dateToleranceMs: positiveMs(300_000),
      orderLagMs: ms(1000).describe('Participant and wallet order lists lag the chain by this much'),
      wsCoalesceMs: ms(100),
      wsSnapshotIntervalMs: positiveMs(5000),
      wsDepth: z.number().int().min(1).max(1000).default(50),
      wsKeepAliveMs: positiveMs(60_000).describe('A ka message on every acknowledged WebSocket this often'),
      wsConnectionTimeoutMs: positiveMs(300_000).describe('connectionTimeoutMs announced in connection_ack'),
      wsTickerFieldNames: z
        .enum(['documentation', 'sdk'])
        .default('documentation')
        .describe('Ticker data in the documentation field names (numbers) or the venue SDK model (strings)'),
    })
    .prefault({})
    .refine((a) => a.wsConnectionTimeoutMs > a.wsKeepAliveMs, {
      message:
        'wsConnectionTimeoutMs must be longer than wsKeepAliveMs, or every client gives up between two keep-alives',
      path: ['wsConnectionTimeoutMs'],
    }),
  indexer: z
    .strictObject({ pollMs: positiveMs(200), maxBlockRange: z.number().int().min(1).max(10_000).default(500) })
    .prefault({}),
  trading: z
    .strictObject({
      mode: z.enum(['always-open', 'calendar']).default('always-open'),
      holidays: z.array(z.iso.date()).default([]),
      open: z
        .string()
        .regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/)
        .default('08:00'),
      close: z
        .string()
        .regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/)
        .default('17:00'),
      clearingDelayMinutes: z.number().int().min(0).max(600).default(5),
      firstHaltPauseMs: positiveMs(330_000),
      secondHaltPauseMs: positiveMs(930_000),
      resumeCutoffMs: ms(1_800_000),
      tickMs: positiveMs(250),
    })
    .prefault({}),
  clock: z
    .strictObject({
      mode: z.enum(['real', 'accelerated', 'manual']).default('real'),
      speed: z.number().positive().max(1_000_000).default(60),
      start: z.iso.datetime({ offset: true }).optional().describe('Sandbox time at start; default now'),
    })
    .prefault({}),
  flow: z
    .strictObject({
      enabled: z.boolean().default(true),
      seed: z.number().int().min(0).max(4_294_967_295).default(1),
      volatility: z
        .number()
        .min(0)
        .max(1)
        .default(0.02)
        .describe('True value of funds: relative standard deviation per sqrt(hour) of wall time'),
      reversionPerHour: z
        .number()
        .min(0)
        .max(10)
        .default(0.05)
        .describe(
          'Share of its distance to the static reference price (its start yield) the true value closes per hour',
        ),
      yieldVolatilityBps: z
        .number()
        .min(0)
        .max(10_000)
        .default(25)
        .describe('True value of bonds: standard deviation of the yield per sqrt(hour) of wall time, bp'),
      takerIntervalMs: positiveMs(8000),
      makerTickMs: positiveMs(2000),
      levels: z.number().int().min(1).max(10).default(3),
      spreadBps: z.number().int().min(1).max(2000).default(60),
      stepBps: z.number().int().min(1).max(1000).default(25),
      informedShare: z.number().min(0).max(1).default(0.5).describe('Share of the taker decisions that are informed'),
      informedEdgeBps: z
        .number()
        .min(0)
        .max(10_000)
        .default(0)
        .describe('An informed taker trades only against a level mispriced by more than this, bp of the true value'),
      makerLagMs: ms(60_000).describe("Half-life of the background maker's view of the true value (wall time)"),
    })
    .prefault({}),
  feeds: z
    .strictObject({
      delayMs: ms(1000).describe('GET /sandbox/feeds/{symbol} serves the true value of this long ago (wall time)'),
      noiseBps: z.number().min(0).max(10_000).default(2).describe('Seeded Gaussian noise on the price, bp'),
      sampleMs: positiveMs(250).describe('The true value is sampled this often (wall time)'),
    })
    .prefault({}),
  oracles: z
    .strictObject({
      deviationBps: z
        .number()
        .int()
        .min(0)
        .max(10_000)
        .default(50)
        .describe('An oracle publishes when the true value moved more than this from its answer, bp'),
      heartbeatMs: positiveMs(3_600_000).describe('...or at the latest this long after its answer (sandbox time)'),
      pollMs: positiveMs(1000).describe('How often the oracle operator looks (wall time)'),
      resolutionSeconds: z
        .number()
        .int()
        .min(1)
        .max(86_400)
        .default(300)
        .describe(
          "Chain B (SEP-40): a price's timestamp is the start of its tick of this many seconds (Reflector: 300)",
        ),
    })
    .prefault({}),
  band7Pair: z
    .boolean()
    .default(false)
    .describe('Add the chain A pair MMF7EURe in liquidity band 7 (granular ticks, seven-decimal prices)'),
  manifest: z
    .union([z.string().min(1), z.literal(false)])
    .optional()
    .describe('Manifest path; false writes none'),
});

export type SandboxConfigInput = z.input<typeof sandboxConfigSchema>;
export type SandboxConfig = z.output<typeof sandboxConfigSchema>;

/** Validates a settings object; every problem in one error. */
export function parseSandboxConfig(input: unknown, where = 'sandbox settings'): SandboxConfig {
  const r = sandboxConfigSchema.safeParse(input ?? {});
  if (!r.success) {
    const problems = r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new DltError('E_CONFIG_INVALID', `${where} has problems:\n  ${problems.join('\n  ')}`, {
      details: { problems },
    });
  }
  return r.data;
}

/** The YAML text of a settings file, as an object (not yet validated). */
export function readSandboxYaml(text: string, where: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (e) {
    throw new DltError('E_CONFIG_READ', `${where}: not valid YAML (${(e as Error).message})`, {
      cause: e,
      details: { path: where },
    });
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new DltError('E_CONFIG_READ', `${where}: expected a mapping at the top`, { details: { path: where } });
  return value as Record<string, unknown>;
}

/** Deep merge of plain objects (later wins); arrays and scalars are replaced. */
export function mergeSettings(...layers: readonly Record<string, unknown>[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [k, v] of Object.entries(layer)) {
      const prev = out[k];
      const bothObjects = [prev, v].every((x) => x !== null && typeof x === 'object' && !Array.isArray(x));
      out[k] = bothObjects ? mergeSettings(prev as Record<string, unknown>, v as Record<string, unknown>) : v;
    }
  }
  return out;
}

/** The manifest path of a sandbox: `.sandbox/manifest.json` on the default API port, else one per port. */
export function defaultManifestPath(apiPort: number): string {
  return apiPort === 8080 ? '.sandbox/manifest.json' : `.sandbox/manifest-${apiPort}.json`;
}

/** The trading calendar of the sandbox's settings (holidays, open, close, clearing delay). */
export function sandboxCalendar(config: SandboxConfig): CalendarConfig {
  return {
    ...DEFAULT_CALENDAR,
    holidays: config.trading.holidays,
    open: config.trading.open,
    close: config.trading.close,
    clearingDelayMinutes: config.trading.clearingDelayMinutes,
  };
}
