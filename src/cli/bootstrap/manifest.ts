/**
 * A running sandbox's manifest as the bot reads it: where its venue and chains are, its market-maker wallets
 * and their pairs. Checked on reading, so that a wrong file is a listed configuration problem, not a crash
 * after connections opened.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { DltError } from '../../core/errors.ts';
import type { CliIo } from '../io.ts';
import { pairFairValueSchema, type PairFairValue } from '../../core/config/fair-value-config.ts';
import { describeIssues } from '../../core/formats.ts';
import type { BotConfig } from '../../core/config/bot-config.ts';
import type { SandboxOptions } from '../../sandbox/venue/start.ts';

const manifestSchema = z.object({
  venue: z.object({
    restUrl: z.string().min(1),
    wsUrl: z.string().min(1),
    wsHost: z.string().min(1),
    dateHeader: z.string().min(1),
    apiKey: z.string(),
    participantId: z.string().min(1),
    accessToken: z.string(),
    oauth: z.object({ tokenUrl: z.string().min(1), clientId: z.string(), clientSecret: z.string() }).optional(),
  }),
  chains: z.object({
    evm: z.object({ rpcUrl: z.string().min(1), chainId: z.number().int() }).optional(),
    wasm: z.object({ rpcUrl: z.string().min(1), networkPassphrase: z.string().min(1) }).optional(),
  }),
  pairs: z.array(z.object({ id: z.string().min(1), fairValue: pairFairValueSchema.optional() })).default([]),
  wallets: z.array(
    z.object({
      name: z.string().min(1),
      chain: z.enum(['evm', 'wasm']),
      key: z.string().min(1),
      marketMaker: z.boolean(),
      pairIds: z.array(z.string()),
      channelAccounts: z.array(z.object({ secret: z.string() })).optional(),
    }),
  ),
});

/** What the bot reads of a sandbox manifest (the embedded sandbox's manifest is one). */
export interface BotManifest {
  readonly venue: {
    readonly restUrl: string;
    readonly wsUrl: string;
    readonly wsHost: string;
    readonly dateHeader: string;
    readonly apiKey: string;
    readonly participantId: string;
    readonly accessToken: string;
    readonly oauth?:
      { readonly tokenUrl: string; readonly clientId: string; readonly clientSecret: string } | undefined;
  };
  readonly chains: {
    readonly evm?: { readonly rpcUrl: string; readonly chainId: number } | undefined;
    readonly wasm?: { readonly rpcUrl: string; readonly networkPassphrase: string } | undefined;
  };
  /** The sandbox's pairs: where each one's feed and oracles are. */
  readonly pairs: ReadonlyArray<{ readonly id: string; readonly fairValue?: PairFairValue | undefined }>;
  readonly wallets: ReadonlyArray<{
    readonly name: string;
    readonly chain: 'evm' | 'wasm';
    readonly key: string;
    readonly marketMaker: boolean;
    readonly pairIds: readonly string[];
    readonly channelAccounts?: ReadonlyArray<{ readonly secret: string }> | undefined;
  }>;
}

/** The manifest, or the problems that make it unusable (each prefixed with `where`). */
export function readManifest(
  text: string,
  where: string,
): { readonly manifest: BotManifest | null; readonly problems: readonly string[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { manifest: null, problems: [`${where}: not JSON (${(e as Error).message})`] };
  }
  const r = manifestSchema.safeParse(value);
  return r.success
    ? { manifest: r.data, problems: [] }
    : { manifest: null, problems: describeIssues(r.error).map((p) => `${where}: ${p}`) };
}

/** Where `dlt-mm run` with an embedded sandbox writes that sandbox's manifest, below the working directory. */
export const EMBEDDED_MANIFEST = ['.sandbox', 'embedded-manifest.json'] as const;

/**
 * The settings of the sandbox `dlt-mm run` embeds, from the configuration's `sandbox` section: its ports
 * (`portBase`, else free ones), the simulated market, the market maker's chain B channel accounts, and where
 * the manifest goes. `extra` (tests: fast blocks) is laid over them; its chain B settings join the channel count.
 * Only types of the sandbox are named here: its code is loaded by `dlt-mm run` alone, when it embeds one.
 */
export function embeddedSandboxOptions(config: BotConfig, cwd: string, extra: SandboxOptions = {}): SandboxOptions {
  const base = config.sandbox?.portBase;
  const channels = config.sandbox?.channelAccounts;
  const wasm = { ...(channels === undefined ? {} : { channelAccounts: channels }), ...extra.wasm };
  return {
    ports: base === undefined ? { api: 0, evm: 0, wasm: 0 } : { api: base, evm: base + 1, wasm: base + 2 },
    flow: { enabled: config.sandbox?.flow ?? true },
    manifest: resolve(cwd, ...EMBEDDED_MANIFEST),
    cwd,
    ...extra,
    ...(Object.keys(wasm).length === 0 ? {} : { wasm }),
  };
}

/** The manifest of the sandbox a running `dlt-mm run` embeds (`npm start`); refused when none runs. */
export function runningEmbeddedManifest(io: Pick<CliIo, 'cwd' | 'readFile'>): BotManifest {
  const path = resolve(io.cwd, ...EMBEDDED_MANIFEST);
  let text: string;
  try {
    text = io.readFile(path);
  } catch {
    throw new DltError('E_USAGE', `the embedded sandbox is not running (no ${path}): start the bot first (npm start)`);
  }
  const read = readManifest(text, path);
  if (read.manifest === null) throw new DltError('E_CONFIG_INVALID', read.problems.join('\n'));
  return read.manifest;
}
