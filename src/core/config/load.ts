/**
 * Loading configuration text: YAML parse errors, schema violations, cross-field rules and unreadable secrets are
 * all collected and reported together. Pure: file and environment access are passed in.
 */
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { DltError } from '../errors.ts';
import { describeIssues } from '../formats.ts';
import { botConfigSchema, crossCheckBotConfig, type BotConfig } from './bot-config.ts';
import type { SecretRef } from './common.ts';
import { strategyConfigSchema, type StrategyConfig } from './strategy-config.ts';

export interface ConfigEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Reads a file as UTF-8 text; throws when it cannot. */
  readonly readFile: (path: string) => string;
}

function parseYaml(text: string, source: string): { value: unknown; problems: string[] } {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const problems = doc.errors.map((e) => `${source}: ${e.message.split('\n')[0]}`);
  return { value: problems.length > 0 ? undefined : doc.toJS({ maxAliasCount: 100 }), problems };
}

function validate<S extends z.ZodType>(schema: S, value: unknown): { data?: z.infer<S>; problems: string[] } {
  const r = schema.safeParse(value ?? {});
  return r.success ? { data: r.data, problems: [] } : { problems: describeIssues(r.error) };
}

function fail(source: string, problems: string[]): never {
  throw new DltError('E_CONFIG_INVALID', `${source} has ${problems.length} problem(s):\n  ${problems.join('\n  ')}`, {
    details: { source, problems },
  });
}

export function parseBotConfig(text: string, source: string): BotConfig {
  const y = parseYaml(text, source);
  if (y.problems.length > 0) fail(source, y.problems);
  const v = validate(botConfigSchema, y.value);
  if (!v.data) fail(source, v.problems);
  const cross = crossCheckBotConfig(v.data);
  if (cross.length > 0) fail(source, cross);
  return v.data;
}

export function parseStrategyConfig(text: string, source: string): StrategyConfig {
  const y = parseYaml(text, source);
  if (y.problems.length > 0) fail(source, y.problems);
  const v = validate(strategyConfigSchema, y.value);
  if (!v.data) fail(source, v.problems);
  return v.data;
}

/** Reads one secret; the error names the variable or file but never a value. */
export function readSecret(ref: SecretRef, where: string, environment: ConfigEnvironment): string {
  if ('env' in ref) {
    const value = environment.env[ref.env];
    if (value === undefined || value.trim() === '') {
      throw new DltError('E_CONFIG_SECRET', `${where}: environment variable ${ref.env} is not set`, {
        details: { where, env: ref.env },
      });
    }
    return value.trim();
  }
  let text: string;
  try {
    text = environment.readFile(ref.file);
  } catch (cause) {
    throw new DltError('E_CONFIG_SECRET', `${where}: secret file ${ref.file} cannot be read`, {
      details: { where, file: ref.file },
      cause,
    });
  }
  if (text.trim() === '')
    throw new DltError('E_CONFIG_SECRET', `${where}: secret file ${ref.file} is empty`, {
      details: { where, file: ref.file },
    });
  return text.trim();
}

/** Every secret reference of a config with its location, so that all of them can be checked at start. */
export function secretRefsOf(config: BotConfig): Array<{ where: string; ref: SecretRef }> {
  const out: Array<{ where: string; ref: SecretRef }> = [];
  if (config.venue) {
    out.push({ where: 'venue.apiKey', ref: config.venue.apiKey });
    if (config.venue.accessToken !== undefined) out.push({ where: 'venue.accessToken', ref: config.venue.accessToken });
    if (config.venue.oauth !== undefined) {
      out.push(
        { where: 'venue.oauth.clientId', ref: config.venue.oauth.clientId },
        { where: 'venue.oauth.clientSecret', ref: config.venue.oauth.clientSecret },
      );
    }
  }
  config.wallets.forEach((w, i) => {
    out.push({ where: `wallets.${i}.key`, ref: w.key });
    w.channelAccounts.forEach((c, j) => out.push({ where: `wallets.${i}.channelAccounts.${j}`, ref: c }));
  });
  return out;
}

/** Checks that every secret can be read; all failures are reported together. */
export function checkSecrets(config: BotConfig, source: string, environment: ConfigEnvironment): void {
  const problems: string[] = [];
  for (const { where, ref } of secretRefsOf(config)) {
    try {
      readSecret(ref, where, environment);
    } catch (e) {
      problems.push(e instanceof Error ? e.message : String(e));
    }
  }
  if (problems.length > 0) {
    throw new DltError(
      'E_CONFIG_SECRET',
      `${source}: ${problems.length} secret(s) unavailable:\n  ${problems.join('\n  ')}`,
      {
        details: { source, problems },
      },
    );
  }
}
