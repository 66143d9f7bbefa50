/** The running bot's JSON endpoints on its telemetry port (loopback), as the read-only commands ask them. */
import type { BotConfig } from '../../core/config/bot-config.ts';
import { DltError } from '../../core/errors.ts';

/** The telemetry server's base URL a command on this machine reaches (a wildcard listener is asked on loopback). */
export function botBaseUrl(config: BotConfig): string {
  const host =
    config.telemetry.metricsHost === '0.0.0.0' || config.telemetry.metricsHost === '::'
      ? '127.0.0.1'
      : config.telemetry.metricsHost;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.telemetry.metricsPort}`;
}

/** GET `path` of the running bot; null when nothing listens there (the bot does not run) or the port is 0. */
export async function botEndpoint(config: BotConfig, path: string): Promise<Record<string, unknown> | null> {
  if (config.telemetry.metricsPort === 0) return null;
  const url = `${botBaseUrl(config)}${path}`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (res.status === 404) return null;
    return (await res.json()) as Record<string, unknown>;
  } catch (e) {
    const code = (e as { cause?: { code?: string } }).cause?.code;
    if (code === 'ECONNREFUSED') return null;
    throw new DltError('E_USAGE', `the bot's endpoint ${url} did not answer: ${(e as Error).message}`);
  }
}
